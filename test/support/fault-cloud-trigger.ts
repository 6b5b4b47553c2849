/**
 * The Host Cloud Trigger's paths in the replaying fault injector (issue 34): the trigger is
 * activated through n8n-core's TriggerContext (listening-trigger.ts) with the world's credential,
 * which points at the fault proxy, while a job is submitted straight to the simulator from outside,
 * as another client would. Every HTTP read of the trigger goes through the proxy and is replayed
 * with faults. On the cloud the account's WebSocket also goes through the proxy (its address comes
 * from the credential's base URL), which pipes upgrades through untouched: the sweep faults the
 * trigger's reads, not the socket (a dropped socket is the engine test's and the chaos suite's).
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { REMEMBERED_CHARS } from '../../nodes/shared/tasks/trigger-memory';
import { REQUEST_TIME_LIMIT } from '../../nodes/shared/transport/transport';
import type { Simulator } from '../../simulator/server';
import type { SelfHostedArea } from '../../simulator/self-hosted/area';
import type { EngineHarness } from './engine';
import { txt2img } from './cloud';
import { directHeaders } from './cloud-credential';
import { ListeningTrigger } from './listening-trigger';
import { waitUntil } from './wait';

/** Submits a job straight to the simulator (not through the proxy), as another client would; answers its prompt_id. */
export async function directSubmit(sim: Simulator, promptId?: string, extraData?: IDataObject): Promise<string> {
	const headers = {
		'content-type': 'application/json',
		...directHeaders({ flavour: sim.flavour, baseUrl: sim.baseUrl, apiKey: sim.apiKey, proxy: sim.options.proxyAuth }),
	};
	const path = sim.flavour === 'self-hosted' ? '/prompt' : '/api/prompt';
	const response = await fetch(`${sim.baseUrl}${path}`, {
		method: 'POST',
		headers,
		// A self-hosted server takes a client's own prompt_id; the cloud chooses its own.
		body: JSON.stringify({
			prompt: txt2img(),
			client_id: 'someone-else',
			...(promptId ? { prompt_id: promptId } : {}),
			...(extraData ? { extra_data: extraData } : {}),
		}),
	});
	return ((await response.json()) as { prompt_id: string }).prompt_id;
}

/** What a trigger path saw: the flows it started, when, and how long its close took. */
export interface TriggerRun {
	items: INodeExecutionData[];
	/** When each flow started. */
	startedAt: number[];
	/** The job submitted from outside (undefined: the activation failed, nothing was submitted). */
	job?: string;
	/** The activation failed (in words, as n8n shows it when publishing). */
	activationError?: unknown;
	/** What the trigger reported later with emitError (n8n deactivates the workflow with these words). */
	reported: Error[];
	closeMs: number;
	/** The longest list the trigger remembers in its saved static data, in characters. */
	rememberedChars: number;
}

/** On the cloud a repeat would come at once (the socket, or the look it prompts): this long after the flow. */
export const CLOUD_REPEAT_LOOK_MS = 500;
/** Between the activation and the job. */
const JOB_AFTER_MS = 200;
/** How long a close may take: it only stops timers and the socket. */
const CLOSE_WAIT_MS = 2_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function closeTimed(trigger: ListeningTrigger): Promise<number> {
	const started = Date.now();
	let timer: NodeJS.Timeout | undefined;
	const cap = new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)));
	await Promise.race([trigger.close().catch(() => undefined), cap]);
	clearTimeout(timer);
	return Date.now() - started;
}

/** The longest list (jobs done, jobs watched) of what n8n saved for the trigger, in characters of prompt_ids. */
function rememberedChars(trigger: ListeningTrigger): number {
	const memory = trigger.memory as IDataObject;
	const chars = (list: unknown) => (Array.isArray(list) ? list.filter((id) => typeof id === 'string').join('').length : 0);
	return Math.max(chars(memory.done), chars(memory.watching));
}

/**
 * One job finished: the trigger is activated, a job submitted from outside, its flow awaited, then
 * one more look for a repeat, then the trigger closed. The flow is awaited for the job's own run,
 * one faulted read with its retries, and the next look (a Poll Every on a self-hosted server):
 * `2 × pollMs + readMs + 500 ms` (`pollMs` 0 on the cloud, which hears the job on its socket).
 * A repeat would come at the next look: a Poll Every and a read later, or at once on the cloud.
 */
export async function runJobFinished(
	harness: EngineHarness,
	sim: Simulator,
	credential: string,
	parameters: IDataObject,
	signal?: AbortSignal,
): Promise<TriggerRun> {
	const pollMs = sim.flavour === 'self-hosted' ? Number(parameters.pollSeconds) * 1000 : 0;
	const readMs = REQUEST_TIME_LIMIT.readMs;
	const trigger = new ListeningTrigger(harness, credential, parameters as never);
	// n8n closes the trigger (the workflow is unpublished) while a read is under way.
	signal?.addEventListener('abort', () => void trigger.close().catch(() => undefined), { once: true });
	let activationError: unknown;
	let job: string | undefined;
	try {
		await trigger.activate();
		// The job starts a moment after the publishing (longer than a retry's pause): a read it prompts
		// is a read of its own, not a retry of the activation's.
		await sleep(JOB_AFTER_MS);
		job = await directSubmit(sim);
		await waitUntil(() => trigger.items.length > 0, 2 * pollMs + readMs + 500).catch(() => undefined);
		if (trigger.items.length > 0) await sleep(pollMs ? pollMs + readMs / 2 : CLOUD_REPEAT_LOOK_MS);
	} catch (error) {
		activationError = error;
	}
	const closeMs = await closeTimed(trigger);
	return {
		items: [...trigger.items],
		startedAt: [...trigger.startedAt],
		job,
		activationError,
		reported: [...trigger.errors],
		closeMs,
		rememberedChars: rememberedChars(trigger),
	};
}

/** The longest prompt_id the trigger takes (own-jobs.ts usablePromptId): 256 characters. */
const LONGEST_ID = 256;
/** Jobs per history read: the trigger reads the last 100 (history-poller.ts HISTORY_WINDOW). */
const PER_READ = 100;
/** Rounds of PER_READ jobs: enough 256-character ids to pass the size bound, and one round more. */
export const FLOOD_ROUNDS = Math.ceil(REMEMBERED_CHARS / LONGEST_ID / PER_READ) + 1;

/**
 * The memory flood (self-hosted: only there does a client choose its prompt_ids): 600 jobs with
 * 256-character prompt_ids, 100 before the activation (its first read remembers them) and 100 per
 * Poll Every after it, so none is missed: 150 KiB of ids offered to a memory bounded at 128 KiB.
 */
export async function runMemoryFlood(
	harness: EngineHarness,
	sim: Simulator,
	credential: string,
	parameters: IDataObject,
): Promise<TriggerRun> {
	const pollMs = Number(parameters.pollSeconds) * 1000;
	const history = (sim.cloud as SelfHostedArea).history;
	const submitRound = async (round: number) => {
		for (let index = 0; index < PER_READ; index++) {
			const prefix = `flood-${round}-${index}-`;
			await directSubmit(sim, prefix.padEnd(LONGEST_ID, 'x'));
		}
		await waitUntil(() => history.size >= (round + 1) * PER_READ, 10_000);
	};
	const trigger = new ListeningTrigger(harness, credential, parameters as never);
	// Over before the activation: its first read remembers these without starting flows.
	await submitRound(0);
	await trigger.activate();
	for (let round = 1; round < FLOOD_ROUNDS; round++) {
		await submitRound(round);
		await waitUntil(() => trigger.items.length >= round * PER_READ, pollMs + 2 * REQUEST_TIME_LIMIT.readMs + 1_000).catch(() => {
			throw new Error(
				`The flood's round ${round} started ${trigger.items.length} flows, not ${round * PER_READ}: it did not reach the bound`,
			);
		});
	}
	const closeMs = await closeTimed(trigger);
	return {
		items: [...trigger.items],
		startedAt: [...trigger.startedAt],
		reported: [...trigger.errors],
		closeMs,
		rememberedChars: rememberedChars(trigger),
	};
}
