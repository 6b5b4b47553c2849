/**
 * The order Jest hands test files to its workers: each free worker takes the next file.
 *
 * Longest first (Jest's own order) left the CPU idle. Most engine files wait on timers (the
 * simulator's, the node's pauses) and use a few percent of a core, and the longest are such files:
 * with all ten workers on them two cores idled for half a minute, and the files that need the CPU
 * came at the end, all at once. So the order is planned by playing the run through first, from each
 * file's seconds and CPU seconds in a quiet run (test/file-seconds.json, which `npm run
 * test:file-seconds` writes anew; for a file not there, its seconds in Jest's cache of the last run):
 * - a free worker takes the file that needs the CPU most while the running files leave a core idle,
 *   and the longest waiting file while they keep every core busy;
 * - a file too long to wait any more (it would end after four fifths of the run) starts at once.
 * A file with no time anywhere runs first, as in Jest's own order.
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

class PlannedOrder extends Sequencer {
	time(test) {
		const seconds = recorded[relative(test.context.config.rootDir, test.path)]?.seconds;
		return seconds === undefined ? super.time(test) : seconds * 1000;
	}

	sort(tests) {
		const unknown = [];
		const files = [];
		for (const test of tests) {
			const ms = this.time(test);
			const cpu = recorded[relative(test.context.config.rootDir, test.path)]?.cpu;
			if (ms === undefined) unknown.push(test);
			else {
				const seconds = Math.max(ms / 1000, 0.01);
				files.push({ test, seconds, share: Math.min(1, (cpu ?? seconds) / seconds) });
			}
		}
		const workers = Math.max(1, Math.min(maxWorkers, files.length));
		// Twice: the first play gives the run's length, which the second uses to start long files in time.
		const length = play(files, workers, Infinity).end;
		return [...unknown, ...play(files, workers, length).order.map((run) => run.file.test)];
	}
}

/**
 * Plays a run: `workers` at once, each file at its share of a core, slowed evenly when the running
 * files ask more than the cores have. Gives the files in the order they started, each with its start
 * and end, and the run's end.
 */
function play(files, workers, length) {
	const left = [...files].sort((a, b) => b.seconds - a.seconds);
	const running = [];
	const order = [];
	let now = 0;
	while (left.length > 0 || running.length > 0) {
		while (running.length < workers && left.length > 0) {
			const file = pick(left, running, now, length);
			const run = { file, rest: file.seconds, start: now };
			running.push(run);
			order.push(run);
		}
		const speed = Math.min(1, CORES / demand(running));
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

/** Takes the next file from `left` (longest first): one that must start now to end in time, else one that fills the cores. */
function pick(left, running, now, length) {
	const longest = left[0];
	let index = 0;
	if (now + longest.seconds < length * ENDS_BY) {
		const idle = demand(running) < CORES;
		const found = idle
			? left.reduce((best, file, i) => (file.share > left[best].share ? i : best), 0)
			: left.findIndex((file) => file.share < WAITING);
		index = Math.max(0, found);
	}
	return left.splice(index, 1)[0];
}

module.exports = PlannedOrder;
// For its test (test/repo/support/sequencer.test.ts).
module.exports.play = play;
module.exports.CORES = CORES;
