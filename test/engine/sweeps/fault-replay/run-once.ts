/**
 * One bounded run of a path through its world's fault proxy, clean or with one fault armed, and
 * what the oracle needs of it: the outcome, the proxy's log, the jobs it made, and on v2 the
 * assets it uploaded and the requests that broke the contract.
 */
import type { INodeExecutionData } from 'n8n-workflow';

import type { V2Simulator } from '../../../../simulator/server';
import { readBinary } from '../../../support/engine';
import { prepare, runPath, type PathOutcome, type SweepPath, type World } from '../../../support/fault-paths';
import type { Exchange, Fault } from '../../../support/fault-proxy';
import { jobsOf, STOP_GRACE_MS, type MeaningClean, type MeaningRun } from '../../../support/fault-meaning-oracle';
import { requestBreaches } from '../../../support/v2-contract';
import { TOLERANCE_MS } from './settings';

export interface Run extends MeaningRun {
	outcome?: PathOutcome;
	/** The run did not end within its hard cap (it was cancelled). */
	overdue?: boolean;
	elapsed: number;
	log: Exchange[];
	endedAt: number;
	/** v2: assets uploaded in the run (outputs aside), and the package's requests that broke the contract. */
	uploads?: number;
	offContract?: string[];
}

/** What a replay is judged against: its path's clean run. */
export interface Clean extends MeaningClean {
	elapsed: number;
	log: Exchange[];
	sizes: number[];
	bytes: Array<Record<string, number>>;
	incompleteTakes: number;
}

/** A fault armed at a request of the run (by index; -1: the job socket), or at every request that `every` matches. */
export type Armed = { index: number; fault: Fault } | { every: RegExp; fault: Fault };

/** The v2 view of a world's simulator (undefined on v1). */
const v2Of = (world: World) => (world.sim as unknown as Partial<V2Simulator>).v2;
/** Assets a client uploaded (tagged input or mask), not a job's outputs. */
const uploadsOf = (world: World) =>
	[...(v2Of(world)?.assets.values() ?? [])].filter((asset) => asset.tags.some((tag) => tag !== 'output')).length;

/** One bounded run of a path, with `armed` (undefined: clean). */
export async function runOnce(world: World, path: SweepPath, capMs: number, armed?: Armed): Promise<Run & { foreign?: string }> {
	world.sim.reset();
	world.proxy.release();
	const { parameters, foreign, hook } = await prepare(world, path);
	const fault = armed?.fault;
	const jobsBefore = jobsOf(world.sim);
	const uploadsBefore = uploadsOf(world);
	world.proxy.arm(
		armed && fault && ('every' in armed ? armed : armed.index < 0 ? { request: 'UPGRADE', fault } : { index: armed.index, fault }),
	);
	if (hook) world.proxy.hook = hook;
	const stop = new AbortController();
	world.proxy.onStop = () => stop.abort();
	const ending: Array<() => Promise<void>> = [];
	const started = Date.now();
	let timer: NodeJS.Timeout | undefined;
	const cap = new Promise<'overdue'>((resolve) => (timer = setTimeout(() => resolve('overdue'), capMs)));
	try {
		const outcome = await Promise.race([runPath(world, path, parameters, stop.signal, ending), cap]);
		const endedAt = Date.now();
		if (outcome === 'overdue') stop.abort();
		const openAfterStop = await openAfterStopOf(world);
		return {
			outcome: outcome === 'overdue' ? undefined : outcome,
			overdue: outcome === 'overdue',
			elapsed: endedAt - started,
			endedAt,
			log: [...world.proxy.log],
			foreign,
			openAfterStop,
			jobs: jobsOf(world.sim).filter((id) => !jobsBefore.includes(id)),
			fault,
			upgrades: world.proxy.upgrades.length,
			...(v2Of(world)
				? { uploads: uploadsOf(world) - uploadsBefore, offContract: requestBreaches(world.sim as unknown as V2Simulator) }
				: {}),
		};
	} finally {
		clearTimeout(timer);
		// A call over its cap that goes on calling (an editor's call has no cancel) is refused from now on.
		world.proxy.shut = true;
		world.proxy.release();
		for (const end of ending) await end().catch(() => undefined);
	}
}

/** After a stop: what is still open at the proxy a second after it (the held request included); undefined without a stop. */
async function openAfterStopOf(world: World): Promise<Exchange[] | undefined> {
	const stoppedAt = world.proxy.stoppedAt;
	if (stoppedAt === undefined) return undefined;
	await new Promise((resolve) => setTimeout(resolve, Math.max(0, stoppedAt + STOP_GRACE_MS + TOLERANCE_MS - Date.now())));
	return world.proxy.log.filter((exchange) => exchange.closedAt === undefined);
}

/** The size in bytes of each binary field of each item (a field that cannot be read: 0). */
export const bytesOf = async (items: INodeExecutionData[]) =>
	await Promise.all(
		items.map(async (item) =>
			Object.fromEntries(
				await Promise.all(
					Object.entries(item.binary ?? {}).map(
						async ([name, data]) => [name, (await readBinary(data).catch(() => Buffer.alloc(0))).length] as const,
					),
				),
			),
		),
	);

/** What a path's clean run gave, to judge its replays against. */
export async function cleanOf(first: Run): Promise<Clean> {
	const outcome = first.outcome;
	return {
		settled: (outcome?.items ?? []).filter((item) => item.json.error == null).length,
		failed: outcome === undefined || outcome.error !== undefined || outcome.items.some((item) => item.json.error !== undefined),
		jobs: first.jobs.length,
		elapsed: first.elapsed,
		log: first.log,
		sizes: (outcome?.items ?? []).map((item) => JSON.stringify(item.json).length),
		bytes: await bytesOf(outcome?.items ?? []),
		incompleteTakes: (outcome?.items ?? []).filter((item) => item.json.audio_may_be_incomplete === true).length,
	};
}
