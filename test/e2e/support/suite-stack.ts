/**
 * The stack of a real-n8n suite's entry file: started before its first case, stopped after its
 * last (also when a case or the set-up fails), read by the cases with `e2e()`. n8n's log (of every
 * start) is copied to test/e2e/.work/ at the end, passed or failed, for a failed case to be read after.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

import { setE2eStack } from './context';
import { startHostStack, type HostStack, type StartStackOptions } from './stack';

/** Cold: npm install of n8n (about 5 min) and sqlite3's compile (about 2 min) come first. */
const SET_UP_TIMEOUT_MS = 25 * 60 * 1000;
const WORK_DIR = join(__dirname, '..', '.work');

/** `tag` prefixes the suite's progress lines; n8n's log is kept as `.work/<logName>`. */
export function useHostStack(tag: string, logName: string, options: Omit<StartStackOptions, 'progress'> = {}): void {
	let stack: HostStack | undefined;

	beforeAll(async () => {
		const started = Date.now();
		stack = await startHostStack({ ...options, progress: (line) => process.stderr.write(`[${tag}] ${line}\n`) });
		setE2eStack(stack);
		process.stderr.write(`[${tag}] stack ready in ${((Date.now() - started) / 1000).toFixed(1)}s\n`);
	}, SET_UP_TIMEOUT_MS);

	afterAll(async () => {
		setE2eStack(undefined);
		if (stack) {
			const kept = join(WORK_DIR, logName);
			mkdirSync(WORK_DIR, { recursive: true });
			copyFileSync(stack.n8n.logFile, kept);
			process.stderr.write(`[${tag}] n8n's log: ${kept}\n`);
		}
		await stack?.stop();
	}, 60000);
}
