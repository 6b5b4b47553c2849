/**
 * Size by meaning: no function in nodes/ or credentials/ is over 60 lines (first to last line,
 * counted with the TypeScript compiler API). A longer one does more than one job: split it into
 * pieces named by their jobs.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

import { functionSizes } from '../support/function-sizes';
import { sourceFiles } from '../support/import-graph';

const ROOT = join(__dirname, '../..');
const MOST_LINES = 60;

/** `file:line name length` for every function of `files` over the bound. */
function overLong(files: Array<[string, string]>): string[] {
	return files.flatMap(([file, text]) =>
		functionSizes(file, text)
			.filter((size) => size.lines > MOST_LINES)
			.map((size) => `${file}:${size.line} ${size.name} ${size.lines}`),
	);
}

test(`no function in nodes/ or credentials/ is over ${MOST_LINES} lines (the list: file:line name length)`, () => {
	const files = sourceFiles(ROOT, ['nodes', 'credentials']).map(
		(file) => [relative(ROOT, file), readFileSync(file, 'utf8')] as [string, string],
	);
	expect(files.length).toBeGreaterThan(100);
	expect(overLong(files)).toEqual([]);
});

describe('the counter', () => {
	const body = (count: number) => Array.from({ length: count }, (_, i) => `\tconst v${i} = ${i};`).join('\n');

	test('sees a long function, a long method, and a long arrow inside another function (each counted, named and placed)', () => {
		const source = [
			`export function long(): void {\n${body(MOST_LINES - 1)}\n}`,
			`export function fits(): void {\n${body(MOST_LINES - 2)}\n}`,
			`class Socket {\n\tconnect(): void {\n${body(MOST_LINES)}\n\t}\n}`,
			`const outer = () => [1].map(() => {\n${body(MOST_LINES)}\n});`,
		].join('\n');
		expect(overLong([['nodes/x.ts', source]])).toEqual([
			`nodes/x.ts:1 long ${MOST_LINES + 1}`,
			`nodes/x.ts:${2 * MOST_LINES + 3} Socket.connect ${MOST_LINES + 2}`,
			`nodes/x.ts:${3 * MOST_LINES + 6} outer ${MOST_LINES + 2}`,
			`nodes/x.ts:${3 * MOST_LINES + 6} (arrow in outer) ${MOST_LINES + 2}`,
		]);
	});

	test('counts a real file of the package (the transport has functions it can read)', () => {
		const transport = 'nodes/shared/transport/transport.ts';
		const sizes = functionSizes(transport, readFileSync(join(ROOT, transport), 'utf8'));
		expect(sizes.length).toBeGreaterThan(5);
		expect(sizes.every((size) => size.line > 0 && size.lines > 0)).toBe(true);
	});
});
