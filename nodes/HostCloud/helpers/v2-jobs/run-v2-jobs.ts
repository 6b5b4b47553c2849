/**
 * A run of v2 jobs (Execute, Wait for Completion): every item's job followed at once, up to Max
 * Concurrent Jobs at a time for Execute (`RunPlaces`, as v1), results in item order, each paired
 * with its item. n8n's Stop and a failed item (without Continue On Fail) end every wait; Execute
 * then cancels the jobs it submitted and nothing else, as it does at Max Wait when On Timeout says
 * so. Wait for Completion never cancels on Stop (its jobs were started elsewhere).
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { errorForItem, failedItem, paired, type CheckedItems } from '../../../shared/items/items';
import { notSubmitted, RunPlaces } from '../../../shared/items/concurrent-items';
import { uploadInputAssets } from '../assets/upload-asset';
import { earlierSubmitOf, forgetSubmit, keepSubmit } from '../ownership/item-submits';
import type { PreparedWorkflow } from '../submit/prepare-workflow';
import { cancelJob, readJob } from '../../transport/v2-api';
import { followJob, isWaitEnded, requestDeadline, type FollowSettings, type JobWaitEnded } from './follow-job';
import { checkedJob, endedJobError, jobPhase, type V2Job } from './job-record';
import { runningV2JobForTool, v2JobItem, type V2Download } from './job-item';
import { submitV2Job } from './submit-job';

/** What a run reads once, before anything is sent (the operation reads its form). */
export interface V2RunSettings {
	pollIntervalMs: number;
	/** Silence Timeout: an event stream silent this long ends, and the job is read. */
	silenceMs: number;
	maxWaitMs: number;
	cancelOnTimeout: boolean;
	/** The user's "live updates" setting: off, every job is polled. */
	useEvents: boolean;
	/** Max Concurrent Jobs (Execute); none: every item at once. */
	places?: number;
	download?: V2Download;
	/** Called as a tool: a job still running at Tool Wait (its Max Wait) is the answer, left running. */
	asTool?: boolean;
}

/** When an item's Max Wait is over: 0 waits without limit (its description says so, and v1 does the same). */
function maxWaitDeadline(maxWaitMs: number): number {
	return maxWaitMs > 0 ? Date.now() + maxWaitMs : Number.POSITIVE_INFINITY;
}

/** The run's settings from the wait settings Execute and Wait for Completion read (`jobs/wait-settings.ts`'s shape). */
export function v2RunSettingsOf(read: {
	asTool: boolean;
	options: { pollIntervalMs: number; silenceMs: number; maxWaitMs: number; cancelOnTimeout: boolean; useWebSocket: boolean };
	download?: V2Download;
}): V2RunSettings {
	const { pollIntervalMs, silenceMs, maxWaitMs, cancelOnTimeout, useWebSocket } = read.options;
	const useEvents = useWebSocket;
	return { pollIntervalMs, silenceMs, maxWaitMs, cancelOnTimeout, useEvents, download: read.download, asTool: read.asTool };
}

/** A tool's wait that reached Tool Wait: not a failure of the run. */
const isToolTimeout = (run: V2Run, error: unknown): error is JobWaitEnded =>
	run.settings.asTool === true && isWaitEnded(error) && error.context.reason === 'maxWait';

/** A tool's job still running at Tool Wait: its answer (the job goes on), or undefined for any other failure. */
function stillRunningForTool(run: V2Run, error: unknown, itemIndex: number): INodeExecutionData[] | undefined {
	if (!isToolTimeout(run, error)) return undefined;
	const jobId = String(error.context.job_id);
	return paired([{ json: runningV2JobForTool(jobId, run.settings.maxWaitMs) }], itemIndex, run.context);
}

/** The fields of a failed item that name its job and what went wrong. */
const FAILURE_FIELDS = ['job_id', 'prompt_id', 'status', 'error_code', 'node_id', 'class_type', 'idempotency_key'];

/** One run: its places, the signal that stops its waits, and the jobs it submitted that still run. */
class V2Run {
	readonly stopper = new AbortController();
	readonly places: RunPlaces;
	readonly events = { available: true };
	private readonly onCancel = () => this.stopper.abort();

	constructor(
		readonly context: IExecuteFunctions,
		readonly settings: V2RunSettings,
	) {
		this.places = new RunPlaces(context, settings.places, () => this.stopper.abort());
		const signal = context.getExecutionCancelSignal();
		if (signal?.aborted) this.stopper.abort();
		else signal?.addEventListener('abort', this.onCancel, { once: true });
		if (!settings.useEvents) this.events.available = false;
	}

	followFor(): FollowSettings {
		const { pollIntervalMs, silenceMs, maxWaitMs } = this.settings;
		return { pollIntervalMs, silenceMs, deadline: maxWaitDeadline(maxWaitMs), stop: this.stopper.signal, events: this.events };
	}

	close(): void {
		this.context.getExecutionCancelSignal()?.removeEventListener('abort', this.onCancel);
	}
}

/** Each item's output in item order: its job's item, or its failure under Continue On Fail; else the run's first failure thrown. */
async function eachItem<T>(
	run: V2Run,
	checked: CheckedItems<T>,
	count: number,
	jobOf: (value: T, itemIndex: number) => Promise<V2Job>,
): Promise<INodeExecutionData[]> {
	const { context } = run;
	try {
		const outputs = await Promise.all(
			Array.from({ length: count }, async (_, itemIndex) => {
				try {
					if (!checked.passed.has(itemIndex)) throw checked.failures.get(itemIndex);
					const job = await jobOf(checked.passed.get(itemIndex) as T, itemIndex);
					const item = await v2JobItem(context, job, itemIndex, run.settings.download);
					// Made: a retry of this item (its files could not be read) would otherwise take this job again.
					forgetSubmit(context, itemIndex);
					return paired([item], itemIndex, context);
				} catch (error) {
					const running = stillRunningForTool(run, error, itemIndex);
					if (running) return running;
					run.places.failed(error, itemIndex);
					const context_ = ((error as { context?: IDataObject }).context ?? {}) as IDataObject;
					const extra = Object.fromEntries(FAILURE_FIELDS.filter((key) => context_[key] !== undefined).map((key) => [key, context_[key]]));
					return context.continueOnFail() ? [failedItem(context, error, itemIndex, extra)] : [];
				}
			}),
		);
		return run.places.results(outputs);
	} finally {
		run.close();
	}
}

/** The job an item's earlier try left (Retry On Fail), running or done since; undefined when it ended without outputs, or there is none. */
async function earlierJobOf(context: IExecuteFunctions, itemIndex: number): Promise<V2Job | undefined> {
	const jobId = earlierSubmitOf(context, itemIndex)?.promptId;
	if (!jobId) return undefined;
	const job = checkedJob(context, await readJob(context, jobId, { itemIndex }), jobId, itemIndex);
	// Still running, or done since (paid for): its outputs, never a second job.
	if (jobPhase(job.status) !== 'ended') return job;
	// It failed, was cancelled or expired: the retry runs the workflow anew, with a new key.
	forgetSubmit(context, itemIndex);
	return undefined;
}

/** Cancels a job this run submitted, as a clean-up (sent even after Stop); a failure to cancel is not the item's error. */
async function cancelOwn(context: IExecuteFunctions, jobId: string, itemIndex: number): Promise<void> {
	await cancelJob(context, jobId, { itemIndex, cleanup: true }).catch(() => undefined);
}

/** Execute's item: an earlier try's job followed, or the workflow submitted, in a place; its job to its end. */
async function executeItem(run: V2Run, prepared: PreparedWorkflow, itemIndex: number): Promise<V2Job> {
	const { context, settings } = run;
	const refuse = () => {
		const refused = notSubmitted(context, itemIndex, run.stopper.signal.aborted);
		if (refused) throw refused;
	};
	refuse();
	const giveBack = await run.places.take();
	let job: V2Job | undefined;
	let ended = false;
	try {
		refuse();
		job = await earlierJobOf(context, itemIndex);
		if (!job) {
			await uploadInputAssets(context, prepared, itemIndex);
			// A service's "slow down" (429) is waited out within the item's Max Wait, never longer.
			job = await submitV2Job(context, prepared, itemIndex, requestDeadline(maxWaitDeadline(settings.maxWaitMs)));
		}
		const last = await followJob(context, job, itemIndex, run.followFor());
		ended = true;
		// A job that ended without outputs: a retry runs anew. One that succeeded is kept until its item is made.
		if (jobPhase(last.status) !== 'succeeded') {
			forgetSubmit(context, itemIndex);
			throw endedJobError(context, last, itemIndex);
		}
		return last;
	} catch (error) {
		const waitEnded = isWaitEnded(error);
		// Stop may land inside a read or the stream's opening: the wait then ends in that request's error.
		const stopped = run.stopper.signal.aborted || (waitEnded && error.context.reason === 'stopped');
		if (job && !ended && (waitEnded || stopped)) {
			// The node's own job: cancelled on Stop, and at Max Wait when On Timeout says so; else a retry follows it.
			if (stopped || settings.cancelOnTimeout) {
				await cancelOwn(context, job.id, itemIndex);
				forgetSubmit(context, itemIndex);
			} else keepSubmit(context, itemIndex);
		}
		// The run learns of the failure before the place comes back.
		if (!isToolTimeout(run, error)) run.places.failed(error, itemIndex);
		throw errorForItem(context, error, itemIndex);
	} finally {
		giveBack();
	}
}

/** Execute on v2: each checked item's workflow submitted (or an earlier try's job followed) and followed to its outputs. */
export async function executeV2Jobs(
	context: IExecuteFunctions,
	checked: CheckedItems<PreparedWorkflow>,
	count: number,
	settings: V2RunSettings,
): Promise<INodeExecutionData[]> {
	const run = new V2Run(context, settings);
	return await eachItem(run, checked, count, async (prepared, itemIndex) => await executeItem(run, prepared, itemIndex));
}

/**
 * Wait for Completion on v2: each item's job (by id) followed to its outputs. These jobs were
 * started elsewhere: Stop ends the wait only; Max Wait cancels one only when `cancelAtMaxWait`.
 */
export async function waitForV2Jobs(
	context: IExecuteFunctions,
	checked: CheckedItems<string>,
	count: number,
	settings: V2RunSettings & { cancelAtMaxWait: boolean },
): Promise<INodeExecutionData[]> {
	const run = new V2Run(context, { ...settings, places: undefined });
	return await eachItem(run, checked, count, async (jobId, itemIndex) => {
		const job = checkedJob(context, await readJob(context, jobId, { itemIndex, stop: run.stopper.signal }), jobId, itemIndex);
		try {
			const ended = await followJob(context, job, itemIndex, run.followFor());
			if (jobPhase(ended.status) !== 'succeeded') throw endedJobError(context, ended, itemIndex);
			return ended;
		} catch (error) {
			if (isWaitEnded(error) && error.context.reason === 'maxWait' && settings.cancelAtMaxWait) await cancelOwn(context, job.id, itemIndex);
			throw errorForItem(context, error, itemIndex);
		}
	});
}
