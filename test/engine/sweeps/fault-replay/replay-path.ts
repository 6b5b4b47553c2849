/**
 * One path of the replay: its clean run, judged, then each replay the run makes of the faults the
 * clean run offers, judged against it.
 */
import type { Flavour, SweepPath, World } from '../../../support/fault-paths';
import { describeFault } from '../../../support/fault-proxy';
import { retryAfterMs } from '../../../support/fault-meaning-oracle';
import { figures } from './figures';
import { judge } from './judge';
import { cleanOf, runOnce } from './run-once';
import { drawnReplays, offeredReplays } from './sample';
import { isSubmit, LOST_SUBMIT_MS, MAX_WAIT_MS, READ_MS } from './settings';

/** A clean run's cap: the memory flood reads six times, a Poll Every apart. */
const cleanCapMs = (path: SweepPath) => (path.floodMemory ? 45_000 : 15_000);

/** The path's clean run and its replays; every rule they broke, in words (empty: none). */
export async function replayPath(world: World, path: SweepPath): Promise<string[]> {
	figures.paths_run++;
	figures.runs++;
	const first = await runOnce(world, path, cleanCapMs(path));
	const clean = await cleanOf(first);
	figures.requests_recorded += clean.log.length;
	const problems = (await judge(world, path, first, undefined)).map((text) => `clean run: ${text}`);
	const offered = offeredReplays(path, first);
	figures.faults_available += offered.length;
	const capMs = clean.elapsed + READ_MS + MAX_WAIT_MS + 3_000;
	for (const armed of drawnReplays(path, offered, clean.log)) {
		const exchange = clean.log[armed.index];
		const extra = (isSubmit(exchange) ? LOST_SUBMIT_MS : 0) + retryAfterMs(armed.fault);
		figures.runs++;
		const run = await runOnce(world, path, capMs + extra, armed);
		const where = exchange
			? `request ${armed.index} (${exchange.host} ${exchange.method} ${exchange.path} → ${exchange.status})`
			: 'the job socket';
		for (const text of await judge(world, path, run, clean, armed)) problems.push(`${where}, ${describeFault(armed.fault)}: ${text}`);
	}
	return problems;
}

/**
 * Draws what `paths` drew in the seeded sample (sample.ts): each one's clean run, for the faults
 * it offers, neither judged nor counted in the figures (the file that runs the path does both).
 */
export async function skipDraws(worlds: Partial<Record<Flavour, World>>, paths: SweepPath[]): Promise<void> {
	for (const path of paths) {
		const first = await runOnce(worlds[path.flavour]!, path, cleanCapMs(path));
		drawnReplays(path, offeredReplays(path, first), first.log);
	}
}
