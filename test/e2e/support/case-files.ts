/** Loads every case file (`*.ts`) of a folder, in name order: a suite's entry file calls it at load time. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

export function loadCaseFiles(dir: string): void {
	for (const file of readdirSync(dir)
		.filter((name) => /\.ts$/.test(name) && !name.endsWith('.d.ts'))
		.sort()) {
		require(join(dir, file));
	}
}
