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
}
interface SequencerModule {
	new (): { sort(tests: FakeTest[]): FakeTest[] };
	play(
		files: PlayedFile[],
		workers: number,
		length: number,
	): { order: Array<{ file: PlayedFile; start: number; end: number }>; end: number };
	CORES: number;
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
const shareOf = (path: string) => Math.min(1, (recorded[path].cpu ?? recorded[path].seconds) / recorded[path].seconds);

describe('the run as played beforehand', () => {
	const { play, CORES } = PlannedOrder;

	test('files that need a whole core share the cores evenly', () => {
		const files = Array.from({ length: CORES + 1 }, () => ({ seconds: 10, share: 1 }));
		expect(play(files, files.length, Infinity).end).toBeCloseTo((10 * files.length) / CORES, 6);
	});

	test('waiting files take their own seconds beside them, and a worker count bounds how many run', () => {
		const waiting = Array.from({ length: 4 }, () => ({ seconds: 30, share: 0.02 }));
		expect(play(waiting, 4, Infinity).end).toBeCloseTo(30, 6);
		expect(play(waiting, 2, Infinity).end).toBeCloseTo(60, 6);
	});
});

describe('the order of the recorded run (test/file-seconds.json)', () => {
	const paths = Object.keys(recorded);
	let order: string[];
	beforeAll(() => {
		order = new PlannedOrder().sort(paths.map(testOf)).map(pathOf);
	});

	test('holds every file once', () => {
		expect([...order].sort()).toEqual([...paths].sort());
	});

	test('the first workers take files that need the CPU beside waiting ones, not waiting files only', () => {
		const first = order.slice(0, maxWorkers).map(shareOf);
		expect(first.some((share) => share >= 0.25)).toBe(true);
		expect(first.some((share) => share < 0.25)).toBe(true);
	});

	test('the three longest files start with the first workers', () => {
		const longest = [...paths].sort((a, b) => recorded[b].seconds - recorded[a].seconds);
		for (const path of longest.slice(0, 3)) expect(order.indexOf(path)).toBeLessThan(maxWorkers);
	});

	test('as played, every file over 20 s has ended by nine tenths of the run (short files fill its end)', () => {
		const files = paths.map((path) => ({ path, seconds: recorded[path].seconds, share: shareOf(path) }));
		const first = PlannedOrder.play(files, maxWorkers, Infinity);
		const planned = PlannedOrder.play(files, maxWorkers, first.end);
		const late = planned.order
			.filter((run) => run.file.seconds > 20 && run.end > planned.end * 0.9)
			.map((run) => (run.file as PlayedFile & { path: string }).path);
		expect(late).toEqual([]);
		expect(planned.end).toBeLessThanOrEqual(first.end);
	});

	test('a file with no time anywhere runs first', () => {
		const untimed = 'test/unit/not-yet-timed.test.ts';
		const sorted = new PlannedOrder().sort([...paths.slice(0, 5), untimed].map(testOf)).map(pathOf);
		expect(sorted[0]).toBe(untimed);
	});
});
