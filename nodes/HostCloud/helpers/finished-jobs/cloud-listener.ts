/**
 * The cloud's finished jobs, heard on the account's WebSocket: every connection of an account gets
 * the messages of all its jobs. What a gap may have hidden (the socket dropped, a frame could not be
 * read, n8n restarted) is looked up: the queue says which jobs still run, and each job seen queued
 * or running before that, and gone from the queue since, is asked for by its prompt_id. A job that
 * both started and ended inside a gap cannot be found: the spec lists no finished jobs.
 */
import { randomUUID } from 'crypto';

import type { IDataObject, ITriggerFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { pause } from '../../../shared/pause';
import { cloudJobStateOf } from '../../../shared/task-status';
import { isRecord } from '../../../shared/validation';
import { progressSocketAddress, readQueue } from '../../transport/cloud-api';
import { errorInfoFrom, type ExecutionErrorInfo } from '../jobs/errors';
import { JobNotOnServerError, lookUpJobRecord, lookUpJobStatus } from '../jobs/lookup';
import { recordIsFor } from '../jobs/recovery';
import { JobSocket, type JobMessage } from '../jobs/socket';
import { collectExecuted } from '../jobs/tracked-job';
import { entriesOf, isQueueAnswer, usablePromptId } from '../ownership/own-jobs';
import { endOf, entryFacts, passesFilters, type EndedJob, type JobEnd } from './ended-job';
import type { TriggerMemory } from './memory';
import type { TriggerSettings } from './settings';

/** How often the jobs in flight are looked at even with the socket open: an end message may be lost unseen. */
export const LOOK_EVERY_MS = 30_000;
/** A job heard this recently is not looked up yet: it may not be in the queue's answer. */
const QUIET_BEFORE_LOOKUP_MS = 5_000;
/** Status reads in one look, at most (the rest wait for the next look). */
const LOOKUPS_PER_LOOK = 20;
/** Jobs followed at once; beyond it the oldest are left to their status (they stay watched). */
const MAX_HEARD_JOBS = 2_000;
/** `executed` messages kept per job; beyond it its outputs come from its record. */
const MAX_EXECUTED_PER_JOB = 1_000;

interface HeardJob {
	outputs: Record<string, IDataObject>;
	executed: number;
	/** Every message since its start was heard: the outputs collected are whole. */
	whole: boolean;
	facts: Pick<EndedJob, 'tag' | 'classes'>;
	lastHeard: number;
	ended?: { end: JobEnd; error?: ExecutionErrorInfo };
}

/** A refusal that asking again will not change (a key or account problem): the trigger cannot work. */
export function isRefusal(error: unknown): boolean {
	const status = error instanceof NodeApiError ? Number(error.httpCode) : 0;
	return status >= 400 && status < 500 && status !== 404 && status !== 408 && status !== 429;
}

export class CloudJobListener {
	private readonly heard = new Map<string, HeardJob>();
	private socket?: JobSocket;
	private readonly stopped = new AbortController();
	private wake = new AbortController();
	/** Ended jobs are judged one at a time, in the order they ended. */
	private judging: Promise<void> = Promise.resolve();
	/** A queue read under way to learn whose new jobs are (a job's end waits for it). */
	private learning?: Promise<void>;
	private learnAgain = false;

	constructor(
		private readonly context: ITriggerFunctions,
		private readonly settings: TriggerSettings,
		private readonly memory: TriggerMemory,
		private readonly onJob: (job: EndedJob) => Promise<void>,
		private readonly onFailure: (error: Error) => void,
	) {}

	/**
	 * Opens the socket and looks at the queue and the jobs remembered as running. Awaited by the
	 * activation: a refused key fails it with the service's words (a service that does not answer is
	 * asked again later). Listening goes on in the background.
	 */
	async start(): Promise<void> {
		if (!JobSocket.available())
			throw new NodeOperationError(
				this.context.getNode(),
				'This n8n runs on a Node.js without a WebSocket client, so the trigger cannot listen to the cloud',
				{
					description: 'Run n8n on Node.js 22 or later (or start Node.js 20 with --experimental-websocket).',
				},
			);
		const address = await progressSocketAddress(this.context, `n8n-trigger-${randomUUID()}`);
		this.socket = new JobSocket(
			address.url,
			{ keepPreview: false, headers: address.headers, secrets: address.secrets },
			{
				watches: () => true,
				onJobMessage: (promptId, message) => this.onMessage(promptId, message),
				onPreview: () => undefined,
				onLost: () => this.onLost(),
				onChange: () => this.wakeUp(),
			},
			this.context.logger,
		);
		await this.socket.connect();
		const failure = await this.lookAround().then(
			() => undefined,
			(error: Error) => error,
		);
		if (failure && isRefusal(failure)) {
			this.close();
			throw failure;
		}
		if (failure) this.context.logger.warn(`Host Cloud Trigger: ${failure.message}; looking again in ${LOOK_EVERY_MS / 1000} s`);
		void this.listen();
	}

	close(): void {
		this.stopped.abort();
		this.socket?.close();
	}

	/** A job the service still knows, by its prompt_id, once it has ended (a test run shows it). */
	async endedJob(promptId: string): Promise<EndedJob | undefined> {
		const end = await this.endFromStatus(promptId);
		if (!end) return undefined;
		return await this.withRecord({ promptId, end }, false);
	}

	private async listen(): Promise<void> {
		const socket = this.socket!;
		while (!this.stopped.signal.aborted) {
			try {
				if (!socket.open) {
					if (!socket.connectDue(Date.now())) await this.sleep(Math.max(50, socket.reconnectAt - Date.now()));
					else if (await socket.connect()) await this.lookAround();
					continue;
				}
				await this.sleep(LOOK_EVERY_MS);
				if (socket.open && (this.heard.size > 0 || this.memory.watching.length > 0)) await this.lookAround();
			} catch (error) {
				if (this.stopped.signal.aborted) return;
				if (isRefusal(error)) {
					this.close();
					this.onFailure(error as Error);
					return;
				}
				this.context.logger.warn(`Host Cloud Trigger: ${(error as Error).message}; trying again in ${LOOK_EVERY_MS / 1000} s`);
				await this.sleep(LOOK_EVERY_MS);
			}
		}
	}

	/** Waits `ms`, or less when the socket drops or the trigger stops. */
	private async sleep(ms: number): Promise<void> {
		const wake = this.wake;
		const either = AbortSignal.any([this.stopped.signal, wake.signal]);
		await pause(ms, either).catch(() => undefined);
		if (wake.signal.aborted) this.wake = new AbortController();
	}

	private wakeUp(): void {
		this.wake.abort();
	}

	/** Messages may have been missed: no job's outputs are whole any more, and the loop reconnects. */
	private onLost(): void {
		for (const job of this.heard.values()) job.whole = false;
		this.wakeUp();
	}

	private hear(promptId: string, fromStart: boolean): HeardJob {
		let job = this.heard.get(promptId);
		if (job) return job;
		job = { outputs: {}, executed: 0, whole: fromStart, facts: {}, lastHeard: Date.now() };
		this.heard.set(promptId, job);
		for (const oldest of this.heard.keys()) {
			if (this.heard.size <= MAX_HEARD_JOBS) break;
			this.heard.delete(oldest);
		}
		this.memory.watching = [...this.memory.watching.filter((id) => id !== promptId), promptId];
		return job;
	}

	private onMessage(promptId: string, message: JobMessage): void {
		if (!usablePromptId(promptId) || this.memory.isDone(promptId)) return;
		const isNew = !this.heard.has(promptId);
		const job = this.hear(promptId, message.type === 'execution_start');
		job.lastHeard = Date.now();
		if (isNew) this.learnWhose();
		if (job.ended) return;
		switch (message.type) {
			case 'executed':
				if (++job.executed > MAX_EXECUTED_PER_JOB) job.whole = false;
				else collectExecuted(job.outputs, message.data);
				return;
			case 'execution_success':
				return this.ended(promptId, { end: 'succeeded' });
			case 'execution_error':
				return this.ended(promptId, { end: 'failed', error: errorInfoFrom(message.data) });
			case 'execution_interrupted':
				return this.ended(promptId, { end: 'interrupted' });
			default:
				return;
		}
	}

	/** A new job was heard: the queue says whose it is and what its graph holds, while it is there. */
	private learnWhose(): void {
		if (this.learning) {
			this.learnAgain = true;
			return;
		}
		this.learning = (async () => {
			let answered: boolean;
			do {
				this.learnAgain = false;
				answered = await this.readQueue().then(
					() => true,
					(error: Error) => (this.context.logger.warn(`Host Cloud Trigger: ${error.message}`), false),
				);
				// A queue that did not answer is not read again at once for the jobs heard meanwhile: an ended
				// job's flow waits for this read, and would wait a read limit more for each new job. The next
				// new job or look reads it again; until then a job passes without its tag, as one too brief for the queue.
			} while (answered && this.learnAgain && !this.stopped.signal.aborted);
		})().finally(() => (this.learning = undefined));
	}

	/** The queue's jobs, each heard of (with its tag and graph); their prompt_ids. */
	private async readQueue(): Promise<Set<string>> {
		const queue = await readQueue(this.context, { retry: true, action: 'reading the queue for jobs to watch' });
		if (!isQueueAnswer(queue))
			throw new NodeOperationError(
				this.context.getNode(),
				"The service's answer to reading the queue is not a queue (queue_running and queue_pending lists)",
			);
		const queued = new Set<string>();
		for (const entry of [...entriesOf(queue, 'queue_running'), ...entriesOf(queue, 'queue_pending')]) {
			const promptId: unknown = Array.isArray(entry) ? entry[1] : undefined;
			if (!usablePromptId(promptId) || this.memory.isDone(promptId)) continue;
			queued.add(promptId);
			this.hear(promptId, false).facts = entryFacts(entry);
		}
		return queued;
	}

	/** Reads the queue, then asks after the watched jobs that left it unheard: they may have ended in a gap. */
	private async lookAround(): Promise<void> {
		const queued = await this.readQueue();
		const now = Date.now();
		const unsure = [...new Set([...this.heard.keys(), ...this.memory.watching])].filter((promptId) => {
			const job = this.heard.get(promptId);
			return !queued.has(promptId) && !this.memory.isDone(promptId) && !job?.ended && now - (job?.lastHeard ?? 0) >= QUIET_BEFORE_LOOKUP_MS;
		});
		for (const promptId of unsure.slice(0, LOOKUPS_PER_LOOK)) {
			const end = await this.endFromStatus(promptId);
			if (end) this.ended(promptId, { end });
		}
	}

	/** How a job ended, from its status; undefined while it runs. A job the service does not know is forgotten. */
	private async endFromStatus(promptId: string): Promise<JobEnd | undefined> {
		const answer = await lookUpJobStatus(this.context, promptId, { retry: true, action: `reading the status of job ${promptId}` }).then(
			(body) => ({ body }),
			(error: Error) => ({ error }),
		);
		if ('body' in answer) return endOf(cloudJobStateOf(answer.body.status));
		const status = answer.error instanceof NodeApiError ? Number(answer.error.httpCode) : 0;
		if (status !== 404 && !(answer.error instanceof JobNotOnServerError)) throw answer.error;
		this.heard.delete(promptId);
		this.memory.watching = this.memory.watching.filter((id) => id !== promptId);
		return undefined;
	}

	private ended(promptId: string, how: HeardJob['ended'] & object): void {
		const job = this.hear(promptId, false);
		if (job.ended) return;
		job.ended = how;
		this.judging = this.judging
			.then(async () => await this.judge(promptId))
			.catch((error: Error) => this.context.logger.warn(`Host Cloud Trigger: job ${promptId}: ${error.message}`));
	}

	/** An ended job, once: its outputs (heard whole, or from its record), then the filters, then the flow. */
	private async judge(promptId: string): Promise<void> {
		await this.learning;
		const job = this.heard.get(promptId);
		if (!job?.ended || this.memory.isDone(promptId)) return;
		const ended = await this.withRecord({ promptId, ...job.ended, ...job.facts }, job.whole ? job.outputs : undefined);
		this.heard.delete(promptId);
		// Remembered before the flow starts: n8n saves the memory as the trigger starts it.
		this.memory.markDone([promptId]);
		if (passesFilters(ended, this.settings)) await this.onJob(ended);
	}

	/** The job with its outputs (those heard, else its record's) and, for a failure, its record's words when none came. */
	private async withRecord(job: EndedJob, heardOutputs: Record<string, IDataObject> | false | undefined): Promise<EndedJob> {
		if (heardOutputs && (job.end !== 'failed' || job.error)) return { ...job, outputs: heardOutputs };
		let record: IDataObject | undefined;
		try {
			record = await lookUpJobRecord(this.context, job.promptId, { retry: true, action: `reading the record of job ${job.promptId}` });
		} catch {
			// No record (the service may keep none): the outputs are unknown, and said so.
		}
		// Only a record that is this job's and says it ended gives outputs.
		const fromRecord = record && isRecord(record.outputs) && recordIsFor(record, job.promptId) && endOf(cloudJobStateOf(record.status));
		const outputs = heardOutputs || (fromRecord ? (record!.outputs as Record<string, unknown>) : undefined);
		const details = record?.execution_error ?? record?.error;
		const error = job.error ?? (job.end === 'failed' && isRecord(details) ? errorInfoFrom(details) : undefined);
		return { ...job, outputs, ...(error ? { error } : {}) };
	}
}
