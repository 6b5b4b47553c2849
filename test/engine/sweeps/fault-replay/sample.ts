/**
 * Which paths each file of the replay runs, and which faults of each path the seeded sample draws.
 *
 * The sample is drawn as it was when the replay was one file, so a seed still replays the same
 * (path, fault) replays: v1's paths are drawn from one seeded sequence, one number a path; then,
 * path after path in the order the one file ran them (the paths judged by their clean run, then
 * the sample in its drawn order), each path draws one number per fault its clean run offers and
 * keeps the lowest. v2 draws from a sequence of its own. So the faults a path draws depend on how
 * many every path before it drew: a file that runs a later part of v1's sample first runs the
 * clean runs of the paths before it, to draw what they drew (`drawsBefore`).
 *
 * The parts: the v1 paths judged by their clean run; v1's other paths in two contiguous halves of
 * about the same time; v2's paths. In a full run (FAULT_REPLAY=full) each part holds every path of
 * its kind, and nothing is drawn.
 */
import { enumeratePaths, type SweepPath } from '../../../support/fault-paths';
import { describeFault, faultsFor, MEANING_KINDS, type Exchange, type Fault } from '../../../support/fault-proxy';
import { SEED } from '../../../support/hostile-structures';
import { seededRandom } from '../../../../simulator/shared/chaos';
import type { Run } from './run-once';
import {
	FULL,
	KIND_FILTER,
	PATH_FILTER,
	SAMPLE_FAULTS,
	SAMPLE_MEANING,
	SAMPLE_PATHS,
	SAMPLE_V2_PATHS,
	SOCKET_FAULTS,
	TARGETS,
} from './settings';
import { harness } from './worlds';

export type Part = 'judged-clean' | 'v1-first-half' | 'v1-second-half' | 'v2';
export type Replay = { index: number; fault: Fault };

/** Every path of the package. */
export const EVERY_PATH = enumeratePaths(harness);
/** The paths the replay runs: every path, or those FAULT_PATHS names. */
export const inFilter = (path: SweepPath) => !PATH_FILTER || PATH_FILTER.test(path.name);
export const ALL_PATHS = EVERY_PATH.filter(inFilter);

/** Paths judged by their clean run alone (refused input, unknown ids, foreign jobs, the memory flood, scope). */
export const judgedClean = (path: SweepPath) =>
	Boolean(path.refused || path.unknownId || path.foreignJob || path.floodMemory || path.scope);

const random = seededRandom(SEED);
/** v2's draws come from their own sequence: adding v2 changes nothing of the v1 sample a seed replays. */
const randomV2 = seededRandom(SEED + 45);
const drawFor = (path: SweepPath) => (path.flavour === 'v2' ? randomV2 : random);

/** The sample: `count` of the paths that need a replay (not judged by their clean run), drawn one number a path. */
const sampled = (paths: SweepPath[], count: number) =>
	paths
		.filter((path) => !judgedClean(path))
		.map((path) => ({ path, order: drawFor(path)() }))
		.sort((a, b) => a.order - b.order)
		.slice(0, count)
		.map(({ path }) => path);

/** Runs of a sampled path: its clean run and its replays. */
const RUNS = 1 + SAMPLE_FAULTS + SAMPLE_MEANING;
/** About how long one run of a path takes, in seconds: a quarter of a second, and what a trigger listens by design. */
const runSeconds = (path: SweepPath) => 0.25 + (path.listensMs ?? 0) / 1000;

/**
 * `paths` cut in two, the order kept, where the longer half takes the least time: the first half
 * its paths' runs, the second half its paths' runs and, in the sample, the first half's clean runs
 * (drawsBefore).
 */
function halves(paths: SweepPath[]): [SweepPath[], SweepPath[]] {
	const total = paths.reduce((sum, path) => sum + runSeconds(path), 0);
	let best = { cut: 0, longer: RUNS * total };
	let before = 0;
	paths.forEach((path, at) => {
		before += runSeconds(path);
		const longer = Math.max(RUNS * before, RUNS * (total - before) + (FULL ? 0 : before));
		if (longer < best.longer) best = { cut: at + 1, longer };
	});
	return [paths.slice(0, best.cut), paths.slice(best.cut)];
}

const V1 = ALL_PATHS.filter((path) => path.flavour !== 'v2');
const V2 = ALL_PATHS.filter((path) => path.flavour === 'v2');
// Drawn when the module loads, v1's before any path draws its faults (as the one file did).
const V1_REPLAYED = FULL ? V1.filter((path) => !judgedClean(path)) : sampled(V1, SAMPLE_PATHS);
const V2_SAMPLE = FULL ? [] : sampled(V2, SAMPLE_V2_PATHS);
const [FIRST_HALF, SECOND_HALF] = halves(V1_REPLAYED);

/** The paths of `part`, in the order they run. */
export function pathsOf(part: Part): SweepPath[] {
	if (part === 'judged-clean') return V1.filter(judgedClean);
	if (part === 'v1-first-half') return FIRST_HALF;
	if (part === 'v1-second-half') return SECOND_HALF;
	return FULL ? V2 : V2.filter(judgedClean).concat(V2_SAMPLE);
}

/** The paths whose draws come before the first of `part`'s in the seeded sample (a full run draws nothing). */
export function drawsBefore(part: Part): SweepPath[] {
	if (FULL || (part !== 'v1-first-half' && part !== 'v1-second-half')) return [];
	// Of the paths judged by their clean run, only those whose clean run offers faults draw.
	const drawing = V1.filter((path) => judgedClean(path) && !path.refused && !path.floodMemory && !path.scope);
	return part === 'v1-first-half' ? drawing : drawing.concat(FIRST_HALF);
}

/**
 * Defects of the package the v2 replay found, each kept failing in its own case
 * (fault-replay-v2-defects.test.ts) and in a full run: left out of the seeded sample so that
 * `npm test` does not turn red at random on a defect already reported. Remove one when it is fixed.
 */
const KNOWN_V2_DEFECTS: Array<{ request: RegExp; faults: RegExp }> = [];
const knownDefect = (path: SweepPath, exchange: Exchange | undefined, fault: Fault) =>
	path.flavour === 'v2' &&
	exchange !== undefined &&
	KNOWN_V2_DEFECTS.some(
		(known) =>
			known.request.test(`${exchange.method} ${exchange.path}`) &&
			known.faults.test(`${fault.kind} ${'status' in fault ? fault.status : ''}`),
	);

/** Whether `fault` applies to the path: a 200 of another shape is the credential test's fault, a stop needs a run n8n can stop. */
function faultFits(path: SweepPath, fault: Fault): boolean {
	// A credential test is n8n's own request, which n8n ends after 5 minutes of silence (docs/reliability.md): not replayed with silence here.
	if (path.kind === 'credential' && /^stall-/.test(fault.kind)) return false;
	if (fault.kind === 'html-200' || fault.kind === 'wrong-shape-200') return path.kind === 'credential';
	if (fault.kind === 'stop') return path.kind === 'node' || path.kind === 'tool' || path.type === 'hostCloudTrigger';
	// Every job of the account is the trigger's: frames of other jobs are its to hear (a socket closed at once is its fault too).
	if (fault.kind === 'socket-flood' || fault.kind === 'socket-foreign-prompt') return path.kind === 'node' || path.kind === 'tool';
	// n8n's own request: a 429 fails it whatever the package says.
	if (fault.kind === 'retry-after') return path.kind !== 'credential';
	return true;
}

/**
 * The replays a path's clean run offers: each fault at each request index, and the job socket's
 * faults when it opened one (FAULT_KINDS narrows them). A refused input, the memory flood and the
 * scope paths are judged by their clean run alone (their size rule is judged on every replay of
 * the trigger's other paths), as is a clean run over its cap.
 */
export function offeredReplays(path: SweepPath, first: Run): Replay[] {
	if (path.refused || path.floodMemory || path.scope || first.overdue) return [];
	const replays = first.log
		.flatMap((exchange) => faultsFor(exchange, TARGETS).map((fault) => ({ index: exchange.index, fault })))
		.concat(first.upgrades > 0 ? SOCKET_FAULTS.map((fault) => ({ index: -1, fault })) : [])
		.filter((replay) => faultFits(path, replay.fault));
	const kinds = KIND_FILTER;
	return kinds ? replays.filter((replay) => kinds.test(`${replay.fault.kind} ${describeFault(replay.fault)}`)) : replays;
}

/**
 * The replays the run makes of those offered: all of them in a full run; in the sample, the
 * SAMPLE_FAULTS of time, size and shape and the SAMPLE_MEANING of meaning that draw the lowest
 * numbers (none for the foreign-job and unknown-id paths, which still draw), known defects left out.
 */
export function drawnReplays(path: SweepPath, offered: Replay[], log: Exchange[]): Replay[] {
	if (FULL) return offered;
	const pick = offered
		.filter((replay) => !knownDefect(path, log[replay.index], replay.fault))
		.map((replay) => ({ replay, order: drawFor(path)() }))
		.sort((a, b) => a.order - b.order);
	const count = (meaning: boolean) => (path.foreignJob || path.unknownId ? 0 : meaning ? SAMPLE_MEANING : SAMPLE_FAULTS);
	return [false, true].flatMap((meaning) =>
		pick
			.filter(({ replay }) => MEANING_KINDS.has(replay.fault.kind) === meaning)
			.slice(0, count(meaning))
			.map(({ replay }) => replay),
	);
}
