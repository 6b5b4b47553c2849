/**
 * The cloud's finished jobs, heard on the account's WebSocket: every connection of an account gets
 * the messages of all its jobs. What a gap may have hidden (the socket dropped, a frame could not be
 * read, n8n restarted) is looked up: the queue says which jobs still run, and each job seen queued
 * or running before that, and gone from the queue since, is asked for by its prompt_id. A job that
 * both started and ended inside a gap cannot be found: the spec lists no finished jobs.
 */
import { randomUUID } from 'crypto';

import type { ITriggerFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { Naps, pause } from '../../../shared/waits/pause';
import { progressSocketAddress, readQueue } from '../../transport/cloud-api';
import { errorInfoFrom } from '../job-reports/execution-errors';
import { JobSocket, type JobMessage, type SocketListener } from '../progress-socket/progress-socket';
import { entriesOf, isQueueAnswer, usablePromptId } from '../ownership/own-jobs';
import { entryFacts, passesFilters, type EndedJob, type JobEnd } from './ended-job';
import { HeardJobs, type HeardJob } from './heard-jobs';
import { endFromStatus, statusOf, withRecord } from './job-lookups';
import type { TriggerMemory } from './memory';
import type { TriggerSettings } from './settings';

/** How often the jobs in flight are looked at even with the socket open: an end message may be lost unseen. */
export const LOOK_EVERY_MS = 30_000;
/** A job heard this recently is not looked up yet: it may not be in the queue's answer. */
const QUIET_BEFORE_LOOKUP_MS = 5_000;
/** Status reads in one look, at most (the rest wait for the next look). */
const LOOKUPS_PER_LOOK = 20;
/** How often the looks come while a running job was never heard of on the socket. */
const UNHEARD_LOOK_EVERY_MS = 5_000;
/** Queue reads made to learn whose new jobs are, at most one this often (a busy account is not read back to back). */
const LEARN_EVERY_MS = 1_000;
/** A job running this long in the queue with no message heard: the open socket has gone deaf, and is opened anew. */
const DEAF_AFTER_MS = 20_000;
/** Connects in a row that did not last (closed at once, or never opened) while the queue answers: the socket cannot be used, and the trigger says so. */
const SOCKET_TRIES = 4;

/** A refusal that asking again will not change (a key or account problem): the trigger cannot work. */
export function isRefusal(error: unknown): boolean {
	const status = statusOf(error);
	return status >= 400 && status < 500 && status !== 404 && status !== 408 && status !== 429;
}

export class CloudJobListener {
	private readonly heard = new HeardJobs();
	private socket?: JobSocket;
	private readonly stopped = new AbortController();
	private readonly naps = new Naps();
	/** Ended jobs are judged one at a time, in the order they ended. */
	private judging: Promise<void> = Promise.resolve();
	/** A queue read under way to learn whose new jobs are (a job's end waits for it, and only for it). */
	private learning?: Promise<void>;
	private learnAgain = false;
	private learnScheduled = false;
	private nextLearnAt = 0;
	/** When the socket last opened. */
	private openedAt = 0;
	/** The trigger reads every job's messages. */
	private readonly listener: SocketListener = {
		watches: () => true,
		wantsPreview: false,
		onJobMessage: (promptId, message) => this.onMessage(promptId, message),
		onPreview: () => undefined,
		onLost: () => this.onLost(),
		// The listening loop connects itself and awaits it: a connect's end is no news to wake it with (it looked twice).
		onChange: () => undefined,
	};

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
		const address = await progressSocketAddress(this.context);
		this.socket = new JobSocket(
			address.urlFor(`n8n-trigger-${randomUUID()}`),
			{ headers: address.headers, secrets: address.secrets },
			this.context.logger,
		);
		this.socket.listen(this.listener);
		if (await this.socket.connect()) this.openedAt = Date.now();
		const failure = await this.lookAround().then(
			() => undefined,
			(error: Error) => error,
		);
		if (failure && isRefusal(failure)) {
			this.close();
			throw failure;
		}
		if (failure && !this.stopped.signal.aborted)
			this.context.logger.warn(`Host Cloud Trigger: ${failure.message}; looking again in ${LOOK_EVERY_MS / 1000} s`);
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
		return await withRecord(this.context, { promptId, end }, false, this.stopped.signal);
	}

	private async listen(): Promise<void> {
		const socket = this.socket!;
		while (!this.stopped.signal.aborted) {
			try {
				if (!socket.open) {
					if (socket.shortTries >= SOCKET_TRIES) return await this.reportDeafSocket(socket);
					if (!socket.connectDue(Date.now())) await this.sleep(Math.max(50, socket.reconnectAt - Date.now()));
					else if (await socket.connect()) {
						this.openedAt = Date.now();
						await this.lookAround();
					}
					continue;
				}
				// Also when nothing is followed: the queue shows a job an open socket never told of (a deaf socket),
				// and while one runs, the looks come sooner (its end is then seen by its status).
				await this.sleep(this.runningUnheard() ? UNHEARD_LOOK_EVERY_MS : LOOK_EVERY_MS);
				if (socket.open) await this.lookAround();
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

	/**
	 * The socket closes as soon as it opens, try after try: the trigger would hear no job end. One last
	 * look passes on what it finds, then it stops and says so (n8n deactivates the workflow and publishes
	 * it again). A queue that fails too is the service's silence, not the socket's: the loop goes on.
	 */
	private async reportDeafSocket(socket: JobSocket): Promise<void> {
		const tries = socket.shortTries;
		socket.shortTries = 0;
		await this.lookAround();
		await this.judging;
		if (this.stopped.signal.aborted) return;
		this.close();
		this.onFailure(
			new NodeOperationError(
				this.context.getNode(),
				`The cloud's WebSocket closed as soon as it opened (or would not open), ${tries} times in a row, so the trigger cannot hear jobs finish; a proxy or firewall between n8n and the cloud may not let WebSockets through`,
				{
					description:
						"Let WebSocket connections through to the cloud's address (the one of the credential) in any proxy, load balancer or firewall on the way. n8n publishes the workflow again by itself; a job that starts and ends while the WebSocket cannot stay open is not passed on.",
				},
			),
		);
	}

	/** Waits `ms`, or less when the socket drops or the trigger stops. */
	private async sleep(ms: number): Promise<void> {
		await this.naps.nap(ms, this.stopped.signal);
	}

	/** Whether a job the queue lists running was never heard of on the socket. */
	private runningUnheard(): boolean {
		return [...this.heard.values()].some((job) => !job.heardOnSocket && job.runningSince !== undefined);
	}

	/** Messages may have been missed: no job's outputs are whole any more, and the loop reconnects. */
	private onLost(): void {
		for (const job of this.heard.values()) this.heard.dropFiles(job);
		this.naps.wakeUp();
	}

	private hear(promptId: string, fromStart: boolean): HeardJob {
		const known = this.heard.get(promptId);
		if (known) return known;
		const job = this.heard.add(promptId, fromStart);
		this.memory.watching = [...this.memory.watching.filter((id) => id !== promptId), promptId];
		return job;
	}

	private onMessage(promptId: string, message: JobMessage): void {
		if (!usablePromptId(promptId) || this.memory.isDone(promptId)) return;
		const isNew = !this.heard.has(promptId);
		const job = this.hear(promptId, message.type === 'execution_start');
		job.lastHeard = Date.now();
		job.heardOnSocket = true;
		if (isNew) this.learnWhose();
		if (job.ended) return;
		switch (message.type) {
			case 'executed':
				return this.heard.keepFiles(job, message.data);
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

	/** No longer followed: not in memory, not watched. */
	private forget(promptId: string): void {
		this.heard.delete(promptId);
		this.memory.watching = this.memory.watching.filter((id) => id !== promptId);
	}

	/**
	 * A new job was heard: the queue says whose it is and what its graph holds, while it is there.
	 * One read at a time, at most one a second: a job's end waits for the read under way only, so a
	 * busy account delays no flow by more than one read (a job too brief for it passes untagged).
	 */
	private learnWhose(): void {
		if (this.learning || this.learnScheduled) {
			this.learnAgain = true;
			return;
		}
		const wait = this.nextLearnAt - Date.now();
		if (wait > 0) {
			this.learnScheduled = true;
			void pause(wait, this.stopped.signal).then(
				() => {
					this.learnScheduled = false;
					this.learnWhose();
				},
				() => undefined,
			);
			return;
		}
		this.learnAgain = false;
		this.nextLearnAt = Date.now() + LEARN_EVERY_MS;
		this.learning = this.readQueue()
			.then(
				() => undefined,
				(error: Error) => {
					if (!this.stopped.signal.aborted) this.context.logger.warn(`Host Cloud Trigger: ${error.message}`);
				},
			)
			.finally(() => {
				this.learning = undefined;
				if (this.learnAgain && !this.stopped.signal.aborted) this.learnWhose();
			});
	}

	/** The queue's jobs, each heard of (with its tag and graph); their prompt_ids. */
	private async readQueue(): Promise<Set<string>> {
		const now = Date.now();
		const queue = await readQueue(this.context, { retry: true, action: 'reading the queue for jobs to watch', stop: this.stopped.signal });
		if (!isQueueAnswer(queue))
			throw new NodeOperationError(
				this.context.getNode(),
				"The service's answer to reading the queue is not a queue (queue_running and queue_pending lists)",
			);
		const queued = new Set<string>();
		const running = new Set(entriesOf(queue, 'queue_running'));
		for (const entry of [...running, ...entriesOf(queue, 'queue_pending')]) {
			const promptId: unknown = Array.isArray(entry) ? entry[1] : undefined;
			if (!usablePromptId(promptId) || this.memory.isDone(promptId)) continue;
			queued.add(promptId);
			const job = this.hear(promptId, false);
			this.heard.setFacts(job, entryFacts(entry, this.settings));
			if (running.has(entry)) job.runningSince ??= now;
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
		// Every open socket of the account gets every running job's messages: one that told nothing of a job
		// running this long has gone deaf (a connection half-closed somewhere): it is opened anew.
		const deaf = [...this.heard.values()].some(
			(job) => !job.heardOnSocket && job.runningSince !== undefined && now - job.runningSince >= DEAF_AFTER_MS,
		);
		if (deaf && now - this.openedAt >= DEAF_AFTER_MS) {
			this.context.logger.warn('Host Cloud Trigger: the WebSocket told nothing of a running job; it is opened anew');
			for (const job of this.heard.values()) {
				this.heard.dropFiles(job);
				job.runningSince = undefined;
			}
			this.socket?.restart(this.listener);
		}
	}

	/** How a job ended, from its status; undefined while it runs. A job the service does not know is forgotten. */
	private async endFromStatus(promptId: string): Promise<JobEnd | undefined> {
		const end = await endFromStatus(this.context, promptId, this.stopped.signal);
		if (end !== 'unknown') return end;
		this.forget(promptId);
		return undefined;
	}

	private ended(promptId: string, how: HeardJob['ended'] & object): void {
		// A status read that answers after the socket told of the end: the job was judged already.
		if (this.memory.isDone(promptId)) return;
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
		if (this.memory.isDone(promptId)) return this.forget(promptId);
		if (!job?.ended) return;
		const heardOutputs = job.whole ? job.outputs : undefined;
		const ended = await withRecord(this.context, { promptId, ...job.ended, ...job.facts }, heardOutputs, this.stopped.signal);
		this.forget(promptId);
		// Remembered before the flow starts: n8n saves the memory as the trigger starts it.
		this.memory.markDone([promptId]);
		if (passesFilters(ended, this.settings)) await this.onJob(ended);
	}
}
