/**
 * Waits for the cloud jobs of one node run over its share of the process's progress socket
 * (`socket-share.ts`), each job in one phase (`tracked-job.ts`): outputs come from `executed` messages, and a job ends with
 * `execution_success`, `execution_error` or `execution_interrupted`. While the socket is silent,
 * closed or absent, job status is polled and missed outputs are read from the job record (or the
 * job fails as "outputs may be incomplete": a partial list is never passed off as whole). Max Wait
 * and the execution's cancel signal end a wait; the node then cancels only its own jobs.
 */
import { randomUUID } from 'crypto';

import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { Naps } from '../../../shared/waits/pause';
import type { CloudJobState } from '../job-reports/job-state';
import { progressSocketAddress } from '../../transport/cloud-api';
import { asJobFailure, executionFailure, jobFailure, jobFailureMessages } from '../job-reports/errors';
import type { JobFailureMessage } from '../job-reports/execution-errors';
import { cancelOwnJobs, cancelUnansweredSubmissions, failureFromRecord, fateAtMaxWait, outputsFromRecord, readJobState } from './recovery';
import { JobSocket, type JobMessage } from '../progress-socket/progress-socket';
import { shareJobSocket, type SocketShare } from './socket-share';
import {
	isDone,
	jobsDue,
	newTrackedJob,
	checkSoon,
	type NewJob,
	nextJobTime,
	readMessage,
	type FinishedJob,
	type Submit,
	type TrackedJob,
	type WatchSettings,
} from './tracked-job';
import type { PreviewImage } from '../progress-socket/preview-frames';

export class JobWatcher {
	private socket?: SocketShare;
	/** Bumped whenever messages may have been lost (socket closed, silence). */
	private gapEpoch = 0;
	private readonly jobs = new Map<string, TrackedJob>();
	private readonly following = new Map<string, Promise<FinishedJob>>();
	private readonly submitting = new Map<string, Submit>(); // by request id: a cancel finds the jobs of those it cut short
	private readonly submittedBy = new Map<string, number>(); // the item of each prompt_id submitted
	private readonly naps = new Naps();
	private closed = false;
	private abandoned?: { reason: string };
	private loop?: Promise<void>;
	private readonly cleanups: Array<Promise<void>> = [];
	/** The credential's secrets (kept out of every message), and failures told naming where jobs run. */
	private secrets: string[] = [];
	private failureMessages = jobFailureMessages('cloud');
	private clientId: string = randomUUID(); // the shared socket's, once there is one
	private readonly cancelSignal: AbortSignal | undefined;
	/** The node started the jobs, so stopping early cancels them on the cloud. */
	private readonly ownsJobs: boolean;
	private readonly onCancel = () => this.abandon('cancelled');

	constructor(
		private readonly context: IExecuteFunctions,
		private readonly settings: WatchSettings,
	) {
		this.cancelSignal = context.getExecutionCancelSignal();
		this.ownsJobs = settings.cancelOnAbandon !== false;
	}

	/** Opens the socket (when there is one) before anything is submitted, and starts reconciling. */
	async start(): Promise<void> {
		const address = await progressSocketAddress(this.context);
		this.secrets = address.secrets;
		this.failureMessages = jobFailureMessages(address.kind);
		if (this.settings.useWebSocket && JobSocket.available()) {
			this.socket = shareJobSocket(
				address,
				{ keepPreview: this.settings.keepPreview, connectTimeoutMs: this.settings.connectTimeoutMs },
				{
					watches: (promptId) => this.jobs.has(promptId),
					onJobMessage: (promptId, message) => this.onJobMessage(promptId, message),
					onPreview: (promptId, preview) => this.onPreview(promptId, preview),
					onLost: () => {
						this.gapEpoch++;
						this.naps.wakeUp();
					},
					onChange: () => this.naps.wakeUp(),
				},
				this.context.logger,
			);
			this.clientId = this.socket.clientId;
			await this.socket.connect();
		}
		if (this.cancelSignal?.aborted) this.abandon('cancelled');
		else this.cancelSignal?.addEventListener('abort', this.onCancel, { once: true });
		this.loop = this.run();
	}

	/** A submit begins (sent with `sendWith`): until its answer comes, messages of jobs nobody watches yet are kept for it. */
	openSubmit(itemIndex: number): Submit {
		const sendWith = { clientId: this.clientId, requestId: randomUUID() };
		const mark = this.socket?.beginSubmission() ?? 0;
		const submit = { sendWith, itemIndex, mark, epoch: this.gapEpoch, socketOpen: this.socket?.open === true };
		this.submitting.set(sendWith.requestId, submit);
		return submit;
	}

	/** Waits for the job of an open submit, once its answer named the job (`promptId`); closes the submit. */
	async waitForSubmitted(submit: Submit, promptId: string): Promise<FinishedJob> {
		const { itemIndex } = submit;
		let promise: Promise<FinishedJob>, kept: { messages: JobMessage[]; whole: boolean };
		try {
			this.claimPromptId(promptId, itemIndex);
			kept = this.socket?.takeKept(promptId, submit.mark) ?? { messages: [], whole: true };
			// Some of its messages were dropped from a full store: as if the socket had been down.
			const gapFromStart = !submit.socketOpen || !kept.whole;
			promise = this.track({ promptId, itemIndex, epoch: submit.epoch, gapFromStart, pollNow: false });
		} finally {
			this.closeSubmit(submit);
		}
		const job = this.jobs.get(promptId);
		if (job) for (const message of kept.messages) this.apply(job, message);
		return await promise;
	}

	/** Answered or failed, a submit needs no more messages kept for it (once; later calls do nothing). */
	closeSubmit(submit: Submit): void {
		if (this.submitting.delete(submit.sendWith.requestId)) this.socket?.endSubmission();
	}

	/** A prompt_id answered for two submits of this run: both items fail, naming it (their results cannot be told apart). */
	private claimPromptId(promptId: string, itemIndex: number): void {
		const earlier = this.submittedBy.get(promptId);
		if (earlier === undefined) return void this.submittedBy.set(promptId, itemIndex);
		const failure = this.failureMessages.sharedPromptId(promptId, earlier, itemIndex);
		const open = this.jobs.get(promptId);
		if (open && open.phase !== 'done') this.settleWithError(open, this.jobError(promptId, open.itemIndex, failure));
		throw this.jobError(promptId, itemIndex, failure);
	}

	/** Waits for a job submitted earlier (its earlier messages were missed: outputs come from the job record). */
	follow(promptId: string, itemIndex: number): Promise<FinishedJob> {
		const followed = this.following.get(promptId);
		if (followed) {
			// The same job named by several items: one wait, each item's error carrying its own index.
			return followed.catch((error: Error & { description?: string }) => {
				throw this.jobError(promptId, itemIndex, { message: error.message, description: error.description ?? undefined });
			});
		}
		// A self-hosted server sends a job's messages only to the client that submitted it: this one is polled.
		const unheard = this.failureMessages.kind === 'selfHosted';
		const promise = this.track({ promptId, itemIndex, epoch: this.gapEpoch, gapFromStart: true, pollNow: true, unheard });
		this.following.set(promptId, promise);
		return promise;
	}

	/**
	 * Stops waiting: every job still running is cancelled on the cloud and its wait fails.
	 * `reason` 'cancelled' is the execution's cancel signal; anything else is a failed item.
	 */
	abandon(reason: string): void {
		if (this.abandoned) return;
		this.abandoned = { reason };
		const open = [...this.jobs.values()].filter((job) => job.phase !== 'done');
		for (const job of open) this.settleWithError(job, this.abandonError(job.promptId, job.itemIndex));
		if (this.ownsJobs) {
			const submitting = [...this.submitting.values()].map((submit) => ({ ...submit.sendWith, itemIndex: submit.itemIndex }));
			const known = open.map((job) => job.promptId);
			// A submit cut short by the cancel may have reached the service unanswered: found in the queue by its request id.
			const unanswered = async () => await cancelUnansweredSubmissions(this.context, submitting, known, reason === 'cancelled');
			this.cleanups.push(cancelOwnJobs(this.context, known).then(unanswered));
		}
		this.naps.wakeUp();
	}

	/** Closes the socket and waits for clean-up calls (cancelling jobs) to finish. */
	async close(): Promise<void> {
		this.closed = true;
		this.cancelSignal?.removeEventListener('abort', this.onCancel);
		this.naps.wakeUp();
		this.socket?.close();
		await this.loop;
		await Promise.all(this.cleanups);
	}

	private abandonError(promptId: string, itemIndex: number): NodeOperationError {
		return this.jobError(
			promptId,
			itemIndex,
			this.failureMessages.abandoned(promptId, this.abandoned?.reason === 'cancelled', this.ownsJobs),
		);
	}

	private track(start: NewJob): Promise<FinishedJob> {
		const { promptId, itemIndex } = start;
		return new Promise<FinishedJob>((resolve, reject) => {
			const job = newTrackedJob(start, this.settings, { resolve, reject });
			if (this.abandoned) {
				// Submitted while the run was being abandoned: cancel it too.
				if (this.ownsJobs) this.cleanups.push(cancelOwnJobs(this.context, [promptId]));
				job.phase = 'done';
				reject(this.abandonError(promptId, itemIndex));
				return;
			}
			this.jobs.set(promptId, job);
			this.naps.wakeUp();
		});
	}

	// ---- what the socket says ----

	private onJobMessage(promptId: string, message: JobMessage): void {
		const job = this.jobs.get(promptId);
		if (job) this.apply(job, message);
	}

	private onPreview(promptId: string, preview: PreviewImage): void {
		const job = this.jobs.get(promptId);
		if (job && job.phase !== 'done') job.preview = preview;
	}

	/** One message of a tracked job. */
	private apply(job: TrackedJob, message: JobMessage): void {
		switch (readMessage(job, message)) {
			case 'completed':
				this.completed(job);
				return;
			case 'failed':
				this.failed(job);
				return;
			case 'cancelled':
				this.cancelledByService(job);
				return;
			case 'endAnnounced':
				// Success only once the status endpoint confirms it (execution_success normally comes first).
				job.phase = 'confirming';
				job.checkSoon = true;
				job.nextPollAt = Date.now();
				this.naps.wakeUp();
		}
	}

	// ---- how a job ends ----

	private mayHaveMissedMessages(job: TrackedJob): boolean {
		return job.gapFromStart || job.startEpoch !== this.gapEpoch;
	}

	private completed(job: TrackedJob): void {
		if (job.phase === 'done' || job.phase === 'ending') return;
		if (!this.mayHaveMissedMessages(job)) {
			this.settle(job, { promptId: job.promptId, status: 'completed', outputs: job.outputs, recovered: false, preview: job.preview });
			return;
		}
		job.phase = 'ending';
		void this.recoverOutputs(job);
	}

	private failed(job: TrackedJob): void {
		if (job.phase !== 'done')
			this.settleWithError(job, executionFailure(this.context.getNode(), job, this.failureMessages.place, this.secrets));
	}

	private cancelledByService(job: TrackedJob): void {
		this.settleWithError(job, this.jobError(job.promptId, job.itemIndex, this.failureMessages.cancelledByService(job.promptId)));
	}

	/** Reads outputs from the job record (the real service has them once terminal). */
	private async recoverOutputs(job: TrackedJob): Promise<void> {
		const found = await outputsFromRecord(this.context, job.promptId, job.itemIndex, {
			over: () => isDone(job),
			pause: async () => await this.naps.nap(Math.min(this.settings.pollIntervalMs, 500)),
		});
		if ('failure' in found) {
			if (!this.cancelSignal?.aborted) this.settleWithError(job, this.wrap(job, found.failure));
			return;
		}
		const outputs = found.outputs;
		if (isDone(job)) return;
		if (outputs) {
			this.settle(job, { promptId: job.promptId, status: 'completed', outputs, recovered: true, preview: job.preview });
			return;
		}
		this.settleWithError(job, this.jobError(job.promptId, job.itemIndex, this.failureMessages.outputsIncomplete(job.promptId)));
	}

	/** Details of a failure the socket did not report, from the job record. */
	private async recoverFailure(job: TrackedJob): Promise<void> {
		job.error ??= await failureFromRecord(this.context, job.promptId, job.itemIndex);
		job.error ??= { exception_type: '', exception_message: `the status endpoint reports "${job.lastStatus ?? 'failed'}"` };
		this.failed(job);
	}

	/** A state learned from the status endpoint. */
	private onState(job: TrackedJob, state: CloudJobState): void {
		if (job.phase === 'done' || job.phase === 'ending' || state === 'running') return;
		const socket = this.socket;
		if (socket?.open && job.phase !== 'confirming' && !job.gapFromStart && (socket.isSilent || job.startEpoch === this.gapEpoch)) {
			// The open socket never told us this job ended: it cannot be trusted for the others either.
			this.gapEpoch++;
			socket.restart();
		}
		if (state === 'completed') this.completed(job);
		else if (state === 'cancelled') this.cancelledByService(job);
		else {
			job.phase = 'ending';
			void this.recoverFailure(job);
		}
	}

	private async poll(job: TrackedJob): Promise<void> {
		job.checkSoon = false;
		const state = await this.pollStatus(job);
		if (state) this.onState(job, state);
	}

	/** Max Wait reached: one last look (it may have just finished), then give up on it. */
	private async deadlineReached(job: TrackedJob): Promise<void> {
		job.phase = 'timingOut';
		const state = await this.pollStatus(job);
		if (job.phase !== 'timingOut') return;
		if (state && state !== 'running') {
			this.onState(job, state);
			return;
		}
		await this.timedOut(job);
	}

	/** The job's status; undefined when the answer is unknown (network, 5xx): ask later. */
	private async pollStatus(job: TrackedJob): Promise<CloudJobState | undefined> {
		if (job.polling) return undefined;
		job.polling = true;
		const answer = await readJobState(this.context, job);
		job.polling = false;
		job.nextPollAt = Date.now() + this.settings.pollIntervalMs;
		if (!('problem' in answer) || this.cancelSignal?.aborted || job.phase === 'done') return 'state' in answer ? answer.state : undefined;
		const notFound = answer.problem === 'notFound' && this.failureMessages.notFound(job.promptId);
		this.settleWithError(job, notFound ? this.jobError(job.promptId, job.itemIndex, notFound) : this.wrap(job, answer.problem));
		return undefined;
	}

	private async timedOut(job: TrackedJob): Promise<void> {
		if (job.phase === 'done' || job.phase === 'ending') return;
		job.phase = 'ending';
		const fate = await fateAtMaxWait(this.context, this.settings, this.ownsJobs, job.promptId);
		if (fate === 'cancelled') {
			// Cancelled before the item fails, so the run does not end with the job still going.
			const cancelled = cancelOwnJobs(this.context, [job.promptId]);
			this.cleanups.push(cancelled);
			await cancelled;
		}
		const failure = this.failureMessages.timedOut(job.promptId, { maxWaitMs: this.settings.maxWaitMs, lastStatus: job.lastStatus, lastProblem: job.lastProblem }, fate);
		this.settleWithError(job, this.jobError(job.promptId, job.itemIndex, failure));
	}

	private settle(job: TrackedJob, result: FinishedJob): void {
		if (job.phase === 'done') return;
		job.phase = 'done';
		this.jobs.delete(job.promptId);
		job.resolve(result);
	}

	private settleWithError(job: TrackedJob, error: Error): void {
		if (job.phase === 'done') return;
		job.phase = 'done';
		this.jobs.delete(job.promptId);
		job.reject(error);
	}

	private jobError(promptId: string, itemIndex: number, failure: JobFailureMessage): NodeOperationError {
		return jobFailure(this.context.getNode(), { promptId, itemIndex }, failure, this.secrets);
	}

	private wrap(job: TrackedJob, error: unknown): Error {
		return asJobFailure(this.context.getNode(), job, error, this.secrets);
	}

	// ---- the reconciling loop ----

	private async run(): Promise<void> {
		while (!this.closed) {
			const now = Date.now();
			const pending = [...this.jobs.values()].filter((job) => job.phase !== 'done');
			const busy = pending.length > 0 || this.submitting.size > 0;
			const socket = this.socket;
			if (busy && socket?.fellSilent(now, this.settings.silenceMs)) {
				// Nothing heard for a while: messages may have been lost. Poll to find out.
				this.gapEpoch++;
				for (const job of pending) job.nextPollAt = now;
			}
			// Back again: jobs may have finished while it was down.
			if (socket?.connectDue(now)) void socket.connect().then((ok) => ok && checkSoon(this.jobs.values()));
			const trustSocket = this.socket?.trusted === true;
			for (const { job, visit } of jobsDue(this.jobs.values(), now, trustSocket))
				void (visit === 'deadline' ? this.deadlineReached(job) : this.poll(job));
			// Until the next poll, deadline, silence check or reconnect.
			const socketCheckAt = this.socket?.nextCheckAt(this.settings.silenceMs) ?? Number.POSITIVE_INFINITY;
			await this.naps.nap(Math.min(now + 60_000, nextJobTime(this.jobs.values(), trustSocket), socketCheckAt) - now);
		}
		this.socket?.close();
	}
}
