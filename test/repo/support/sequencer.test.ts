/**
 * The planned order of test files (test/sequencer.js): a file that needs the CPU beside files that
 * wait, long files early enough to end with the run, and an untimed file first.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '../../..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const PlannedOrder = require('../../sequencer.js') as SequencerModule;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const recorded = require('../../file-seconds.json') as Record<string, { seconds: number; cpu?: number }>;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { maxWorkers } = require('../../../jest.config.js') as { maxWorkers: number };

interface PlayedFile {
	seconds: number;
	share: number;
	path?: string;
}
type Choose = (left: PlayedFile[], running: unknown[], now: number, length: number, cores: number) => number;
interface SequencerModule {
	new (): { sort(tests: FakeTest[]): FakeTest[] };
	plan(files: PlayedFile[], workers: number, cores: number): PlayedFile[];
	play(
		files: PlayedFile[],
		workers: number,
		length: number,
		cores: number,
		choose: Choose,
	): { order: Array<{ file: PlayedFile; start: number; end: number }>; end: number };
}
interface FakeTest {
	path: string;
	context: { config: { rootDir: string; cacheDirectory: string; id: string } };
}

let cache: string;
beforeAll(() => {
	cache = mkdtempSync(join(tmpdir(), 'n8n-nodes-host-sequencer-'));
});
afterAll(() => rmSync(cache, { recursive: true, force: true }));

const testOf = (path: string): FakeTest => ({
	path: join(ROOT, path),
	context: { config: { rootDir: ROOT, cacheDirectory: cache, id: 'sequencer-test' } },
});
const pathOf = (test: FakeTest) => test.path.slice(ROOT.length + 1);
const paths = Object.keys(recorded);
const shareOf = (path: string) => Math.min(1, (recorded[path].cpu ?? recorded[path].seconds) / recorded[path].seconds);
const files: PlayedFile[] = paths.map((path) => ({ path, seconds: recorded[path].seconds, share: shareOf(path) }));
const { plan, play } = PlannedOrder;
const longestFirst: Choose = () => 0;
/** The run as played from `order` (each free worker takes the next file). */
const played = (order: PlayedFile[], cores: number) => {
	let next = 0;
	return play(order, maxWorkers, Infinity, cores, (left) => left.indexOf(order[next++]!));
};

describe('the run as played beforehand', () => {
	test('files that need a whole core share the cores evenly', () => {
		const cpu = Array.from({ length: 3 }, () => ({ seconds: 10, share: 1 }));
		expect(play(cpu, 3, Infinity, 2, longestFirst).end).toBeCloseTo(15, 6);
	});

	test('waiting files take their own seconds beside them, and the worker count bounds how many run', () => {
		const waiting = Array.from({ length: 4 }, () => ({ seconds: 30, share: 0.02 }));
		expect(play(waiting, 4, Infinity, 2, longestFirst).end).toBeCloseTo(30, 6);
		expect(play(waiting, 2, Infinity, 2, longestFirst).end).toBeCloseTo(60, 6);
	});
});

describe('the order of the recorded run (test/file-seconds.json) on this 2-core machine', () => {
	const order = plan(files, maxWorkers, 2);

	test('the first workers take files that need the CPU beside waiting ones, not waiting files only', () => {
		const first = order.slice(0, maxWorkers).map((file) => file.share);
		expect(first.some((share) => share >= 0.25)).toBe(true);
		expect(first.some((share) => share < 0.25)).toBe(true);
	});

	test('the three longest files start with the first workers', () => {
		const longest = [...files].sort((a, b) => b.seconds - a.seconds).slice(0, 3);
		for (const file of longest) expect(order.indexOf(file)).toBeLessThan(maxWorkers);
	});

	test('as played, every file over 20 s has ended by nine tenths of the run (short files fill its end), which is shorter than longest first', () => {
		const run = played(order, 2);
		const late = run.order.filter((r) => r.file.seconds > 20 && r.end > run.end * 0.9).map((r) => r.file.path);
		expect(late).toEqual([]);
		expect(run.end).toBeLessThan(play(files, maxWorkers, Infinity, 2, longestFirst).end);
	});
});

describe.each([1, 2, 4, 16])('on %i cores', (cores) => {
	test('every file once, in an order that plays no longer than longest first', () => {
		const order = plan(files, maxWorkers, cores);
		expect(order).toHaveLength(files.length);
		expect(new Set(order).size).toBe(files.length);
		expect(played(order, cores).end).toBeLessThanOrEqual(play(files, maxWorkers, Infinity, cores, longestFirst).end + 1e-6);
	});
});

describe('the sequencer Jest runs', () => {
	test('orders every file once', () => {
		const order = new PlannedOrder().sort(paths.map(testOf)).map(pathOf);
		expect([...order].sort()).toEqual([...paths].sort());
	});

	test('a file with no time anywhere runs first', () => {
		const untimed = 'test/unit/not-yet-timed.test.ts';
		const sorted = new PlannedOrder().sort([...paths.slice(0, 5), untimed].map(testOf)).map(pathOf);
		expect(sorted[0]).toBe(untimed);
	});
});
