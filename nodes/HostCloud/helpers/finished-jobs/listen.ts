/**
 * The Host Cloud Trigger at work: on the cloud it listens (cloud-listener.ts), on a self-hosted
 * server it reads the history every Poll Every seconds (history-poller.ts). Each job that ends and
 * passes the filters starts one flow. A test run ("Fetch Test Event") shows the latest finished job
 * at once where one is known, or else the next one to end.
 */
import { createHash } from 'crypto';

import type { ITriggerFunctions, ITriggerResponse } from 'n8n-workflow';

import { pause } from '../../../shared/waits/pause';
import { hostCloudServer } from '../../transport/cloud-service';
import { CloudJobListener, isRefusal } from './cloud-listener';
import { endedJobItem, passesFilters, type EndedJob } from './ended-job';
import { HistoryPoller } from './history-poller';
import { TriggerMemory } from './memory';
import { readTriggerSettings, type TriggerSettings } from './settings';

/** How long an activation waits for its first look before it goes on listening in the background. */
const FIRST_LOOK_MS = 20_000;

/**
 * Waits for `first` at most FIRST_LOOK_MS: a silent service must not hold n8n's activation of every
 * workflow. A failure after that goes to `lateFailure`.
 */
async function withinFirstLook(first: Promise<void>, lateFailure: (error: Error) => void): Promise<void> {
	let waiting = true;
	const timer = new AbortController();
	const look = first.catch((error: Error) => {
		if (waiting) throw error;
		lateFailure(error);
	});
	const timeUp = pause(FIRST_LOOK_MS, timer.signal).then(
		() => (waiting = false),
		() => undefined,
	);
	try {
		await Promise.race([look, timeUp]);
	} finally {
		timer.abort();
	}
}

/**
 * The key n8n (2.x) keeps with the execution a job starts, and refuses a second execution for:
 * n8n may save the trigger's memory older than it was (each execution writes back the copy it
 * read), so after a restart a job could otherwise start the flow again. n8n 1.x ignores it.
 */
function executionKey(context: ITriggerFunctions, promptId: string): string {
	const of = createHash('sha256').update(JSON.stringify([context.getWorkflow().id ?? '', context.getNode().id, promptId]));
	return `host-cloud-job:${of.digest('hex')}`;
}

/** What the trigger's two ways of finding jobs share: its settings and memory, how a job found starts a flow, and how it stops. */
interface TriggerRun {
	context: ITriggerFunctions;
	settings: TriggerSettings;
	/** A test run ("Fetch Test Event"): it shows one job and remembers nothing. */
	manual: boolean;
	memory: TriggerMemory;
	stopped: AbortController;
	emitJob: (job: EndedJob) => Promise<void>;
	fail: (error: Error) => void;
}

export async function listenForEndedJobs(context: ITriggerFunctions): Promise<ITriggerResponse> {
	const settings = readTriggerSettings(context);
	const server = await hostCloudServer(context);
	const manual = context.getMode() === 'manual';
	// A test run's memory is its own and never saved: it must not hide jobs from the published workflow.
	const stored = context.getWorkflowStaticData('node');
	const memory = new TriggerMemory(manual ? { done: stored.done, lastPassed: stored.lastPassed } : stored);
	const stopped = new AbortController();
	const emitJob = async (job: EndedJob) => {
		if (stopped.signal.aborted) return;
		const item = await endedJobItem(context, job, settings, server.kind);
		// Closed meanwhile (the workflow unpublished or updated): no flow starts after that.
		if (stopped.signal.aborted) return;
		if (!manual) memory.lastPassed = job.promptId;
		context.emit([[item]], undefined, undefined, manual ? undefined : executionKey(context, job.promptId));
		// A test run shows one job.
		if (manual) stopped.abort();
	};
	const fail = (error: Error) => {
		if (!stopped.signal.aborted) context.emitError(error);
	};
	const run: TriggerRun = { context, settings, manual, memory, stopped, emitJob, fail };
	return server.kind === 'cloud' ? await listenOnCloud(run) : await pollHistory(run);
}

/** On the cloud: the listener hears jobs end; a test run shows the job that last started a flow, when the service still knows it. */
async function listenOnCloud(run: TriggerRun): Promise<ITriggerResponse> {
	const { memory, settings, emitJob } = run;
	const listener = new CloudJobListener(run.context, settings, memory, emitJob, run.fail);
	const closeFunction = async () => {
		run.stopped.abort();
		listener.close();
	};
	if (!run.manual) {
		await withinFirstLook(listener.start(), run.fail);
		return { closeFunction };
	}
	const manualTriggerFunction = async () => {
		// The job that last started a flow passed the filters whose facts (its tag, its graph) the service no longer tells.
		const last = memory.lastPassed;
		const known = last ? await listener.endedJob(last).catch(() => undefined) : undefined;
		if (known && passesFilters(known, settings)) await emitJob(known);
		else await listener.start();
	};
	return { closeFunction, manualTriggerFunction };
}

/** On a self-hosted server: the history read every Poll Every seconds; a test run shows the latest finished job, or the next. */
async function pollHistory(run: TriggerRun): Promise<ITriggerResponse> {
	const { context, stopped } = run;
	const poller = new HistoryPoller(context, run.settings, run.memory, run.emitJob, stopped.signal);
	const closeFunction = async () => {
		stopped.abort();
	};
	if (!run.manual) {
		// The first read is the activation's: a refused server fails it, and what had ended is remembered
		// before n8n saves the activation. A server that does not answer is read again later.
		await withinFirstLook(
			poller.poll().catch((error: Error) => {
				if (isRefusal(error)) throw error;
				warnReadAgain(run, error);
			}),
			run.fail,
		);
		void pollUntilStopped(run, poller);
		return { closeFunction };
	}
	const manualTriggerFunction = async () => {
		const latest = await poller.latest();
		if (latest) return await run.emitJob(latest);
		void pollUntilStopped(run, poller);
	};
	return { closeFunction, manualTriggerFunction };
}

/** Reads the history every Poll Every seconds until the trigger closes; a refusal ends it as the trigger's error, any other failure is read again. */
async function pollUntilStopped(run: TriggerRun, poller: HistoryPoller): Promise<void> {
	const { stopped } = run;
	while (!stopped.signal.aborted) {
		await pause(run.settings.pollMs, stopped.signal).catch(() => undefined);
		if (stopped.signal.aborted) return;
		try {
			await poller.poll();
		} catch (error) {
			if (stopped.signal.aborted) return;
			if (isRefusal(error)) return run.fail(error as Error);
			warnReadAgain(run, error as Error);
		}
	}
}

/** A history read that failed and is made again: n8n's log says so, the trigger goes on. */
function warnReadAgain(run: TriggerRun, error: Error): void {
	run.context.logger.warn(`Host Cloud Trigger: ${error.message}; reading the history again in ${run.settings.pollMs / 1000} s`);
}
