/**
 * The order Jest hands test files to its workers: each free worker takes the next file.
 *
 * Longest first (Jest's own order) left the CPU idle. Most engine files wait on timers (the
 * simulator's, the node's pauses) and use a few percent of a core, and the longest are such files:
 * with all ten workers on them two cores idled for half a minute, and the files that need the CPU
 * came at the end, all at once. So the order is planned by playing the run through first, from each
 * file's seconds and CPU seconds in a quiet run (test/file-seconds.json, which `npm run
 * test:file-seconds` writes anew; for a file not there, its seconds in Jest's cache of the last run):
 * - a free worker takes the file that needs the CPU most while the running files need less than
 *   every core, and the longest waiting file while they need them all;
 * - a file too long to wait any more (it would end after four fifths of the run) starts at once;
 * - where that plays no shorter than longest first (many cores, nothing waits for the CPU), longest first.
 * As in Jest's own order, a file with no time anywhere runs first, and a file that failed last time
 * before all.
 */
const { availableParallelism } = require('node:os');
const { relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;
const { maxWorkers } = require('../jest.config');
const recorded = require('./file-seconds.json');

const CORES = availableParallelism();
/** A file's share of a core below which it is a waiting file. */
const WAITING = 0.25;
/** The part of the run by which every file over a few seconds has ended: the rest is left to short files, which fill the cores to the end. */
const ENDS_BY = 0.8;
/** Jest's own number when the config gives none or a share of the cores ("50%"): one less than the cores. */
const WORKERS = Number.isInteger(maxWorkers) && maxWorkers > 0 ? maxWorkers : Math.max(1, CORES - 1);

/** A test file's seconds and CPU seconds in the quiet run, if it was there. */
const recordOf = (test) => recorded[relative(test.context.config.rootDir, test.path)];

class PlannedOrder extends Sequencer {
	time(test) {
		const seconds = recordOf(test)?.seconds;
		return seconds === undefined ? super.time(test) : seconds * 1000;
	}

	sort(tests) {
		const unknown = [];
		const files = [];
		for (const test of tests) {
			test.duration = this.time(test); // Jest's estimate of the run's length
			if (test.duration === undefined) unknown.push(test);
			else {
				const seconds = Math.max(test.duration / 1000, 0.01);
				files.push({ test, seconds, share: Math.min(1, (recordOf(test)?.cpu ?? seconds) / seconds) });
			}
		}
		const failed = new Set(tests.filter((test) => this.hasFailed(test)));
		const planned = [...unknown, ...plan(files, WORKERS, CORES).map((file) => file.test)];
		// As in Jest's own order, a file that failed in the last run first.
		return [...planned.filter((test) => failed.has(test)), ...planned.filter((test) => !failed.has(test))];
	}
}

/**
 * The files in the order to start them: planned, or longest first where that plays shorter (on many
 * cores, where nothing has to wait for the CPU).
 */
function plan(files, workers, cores) {
	// Twice: the first play gives the run's length, which the second uses to start long files in time.
	const planned = play(files, workers, play(files, workers, Infinity, cores, pick).end, cores, pick);
	const longestFirst = play(files, workers, Infinity, cores, () => 0);
	return (planned.end <= longestFirst.end ? planned : longestFirst).order.map((run) => run.file);
}

/**
 * Plays a run: `workers` at once, each file at its share of a core, slowed evenly when the running
 * files ask more than the `cores` have; `choose` gives the index in `left` (longest first) of the
 * file a free worker takes. Gives the files in the order they started, each with its start and
 * end, and the run's end.
 */
function play(files, workers, length, cores, choose) {
	const left = [...files].sort((a, b) => b.seconds - a.seconds);
	const running = [];
	const order = [];
	let now = 0;
	while (left.length > 0 || running.length > 0) {
		while (running.length < workers && left.length > 0) {
			const [file] = left.splice(choose(left, running, now, length, cores), 1);
			const run = { file, rest: file.seconds, start: now };
			running.push(run);
			order.push(run);
		}
		const speed = Math.min(1, cores / demand(running));
		const step = Math.min(...running.map((run) => run.rest)) / speed;
		now += step;
		for (const run of running) run.rest -= step * speed;
		for (let i = running.length - 1; i >= 0; i--) {
			if (running[i].rest > 1e-9) continue;
			running[i].end = now;
			running.splice(i, 1);
		}
	}
	return { order, end: now };
}

const demand = (running) => running.reduce((sum, run) => sum + run.file.share, 0);

/** The next file of `left` (longest first): one that must start now to end in time, else one that fills the cores. */
function pick(left, running, now, length, cores) {
	if (now + left[0].seconds >= length * ENDS_BY) return 0;
	const found =
		demand(running) < cores
			? left.reduce((best, file, i) => (file.share > left[best].share ? i : best), 0)
			: left.findIndex((file) => file.share < WAITING);
	return Math.max(0, found);
}

module.exports = PlannedOrder;
// For its test (test/repo/support/sequencer.test.ts).
module.exports.plan = plan;
module.exports.play = play;
