/**
 * Follows the jobs of one node run to their end, each in one phase (`tracked-job.ts`): outputs
 * come from `executed` messages, and a job ends with `execution_success`, `execution_error` or
 * `execution_interrupted`. While the socket is silent, closed or absent, job status is polled and
 * missed outputs are read from the job record (or the job fails as "outputs may be incomplete": a
 * partial list is never passed off as whole). Max Wait ends a wait. A job settled gives its place
 * back (`RunPlaces`), a failed one after the run has learnt of its failure. `watcher.ts` is its
 * face to the items: the socket, their submits and follows, abandoning.
 */
import type { IExecuteFunctions, NodeOperationError } from 'n8n-workflow';

import { RunPlaces } from '../../../shared/items/concurrent-items';
import { Naps } from '../../../shared/waits/pause';
import type { CloudJobState } from '../job-reports/job-state';
import { asJobFailure, executionFailure, isStillRunning, jobFailure, jobFailureMessages } from '../job-reports/errors';
import type { JobFailureMessage } from '../job-reports/execution-errors';
import { cancelOwnJobs, failureFromRecord, fateAtMaxWait, outputsFromRecord, readJobState } from './recovery';
import type { JobMessage } from '../progress-socket/progress-socket';
import type { SocketShare } from './socket-share';
import {
	isDone,
	jobsDue,
	newTrackedJob,
	checkSoon,
	type NewJob,
	nextJobTime,
	readMessage,
	type FinishedJob,
	type SentSubmit,
	type TrackedJob,
	type WatchSettings,
} from './tracked-job';
import type { PreviewImage } from '../progress-socket/preview-frames';

export abstract class JobTracker {
	protected socket?: SocketShare;
	/** Bumped whenever messages may have been lost (socket closed, silence). */
	protected gapEpoch = 0;
	protected readonly jobs = new Map<string, TrackedJob>();
	protected readonly submitting = new Map<string, SentSubmit & { itemIndex: number }>(); // by request id: a cancel finds the jobs of those it cut short
	protected readonly naps = new Naps();
	protected closed = false;
	protected abandoned?: { reason: string };
	protected readonly cleanups: Array<Promise<void>> = [];
	/** The credential's secrets (kept out of every message), and failures told naming where jobs run. */
	protected secrets: string[] = [];
	protected failureMessages = jobFailureMessages('cloud');
	protected readonly cancelSignal: AbortSignal | undefined;
	/** The node started the jobs, so stopping early cancels them on the cloud. */
	protected readonly ownsJobs: boolean;
	protected readonly places: RunPlaces;

	constructor(
		protected readonly context: IExecuteFunctions,
		protected readonly settings: WatchSettings,
	) {
		this.cancelSignal = context.getExecutionCancelSignal();
		this.ownsJobs = settings.cancelOnAbandon !== false;
		// A tool's job left running at Tool Wait is its answer, not a failure.
		const forgiven = (error: unknown) => settings.asTool === true && isStillRunning(error);
		this.places = new RunPlaces(context, settings.places, () => this.abandon('failed'), forgiven);
	}

	/** Stops waiting: every job still running fails (and is cancelled on the cloud when the node started it). */
	abstract abandon(reason: string): void;

	protected abandonError(promptId: string, itemIndex: number): NodeOperationError {
		return this.jobError(
			promptId,
			itemIndex,
			this.failureMessages.abandoned(promptId, this.abandoned?.reason === 'cancelled', this.ownsJobs),
		);
	}

	protected track(start: NewJob): Promise<FinishedJob> {
		const { promptId, itemIndex } = start;
		return new Promise<FinishedJob>((resolve, reject) => {
			const job = newTrackedJob(start, this.settings, { resolve, reject });
			if (this.abandoned) {
				// Submitted while the run was being abandoned: cancel it too.
				if (this.ownsJobs) this.cleanups.push(cancelOwnJobs(this.context, [promptId]));
				job.phase = 'done';
				reject(this.abandonError(promptId, itemIndex));
				job.giveBack();
				return;
			}
			this.jobs.set(promptId, job);
			this.naps.wakeUp();
		});
	}

	// ---- what the socket says ----

	protected onJobMessage(promptId: string, message: JobMessage): void {
		const job = this.jobs.get(promptId);
		if (job) this.apply(job, message);
	}

	protected onPreview(promptId: string, preview: PreviewImage): void {
		const job = this.jobs.get(promptId);
		if (job && job.phase !== 'done') job.preview = preview;
	}

	/** One message of a tracked job. */
	protected apply(job: TrackedJob, message: JobMessage): void {
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
		const failure = this.failureMessages.timedOut(
			job.promptId,
			{ maxWaitMs: this.settings.maxWaitMs, lastStatus: job.lastStatus, lastProblem: job.lastProblem },
			fate,
		);
		this.settleWithError(job, this.jobError(job.promptId, job.itemIndex, failure));
	}

	private settle(job: TrackedJob, result: FinishedJob): void {
		if (job.phase === 'done') return;
		job.phase = 'done';
		this.jobs.delete(job.promptId);
		job.resolve(result);
		// The job has ended: fetching its files holds no place on the cloud.
		job.giveBack();
	}

	protected settleWithError(job: TrackedJob, error: Error): void {
		if (job.phase === 'done') return;
		job.phase = 'done';
		this.jobs.delete(job.promptId);
		job.reject(error);
		// The run learns of the failure before the place comes back: an item waiting for it is refused.
		this.places.failed(error, job.itemIndex);
		job.giveBack();
	}

	protected jobError(promptId: string, itemIndex: number, failure: JobFailureMessage): NodeOperationError {
		return jobFailure(this.context.getNode(), { promptId, itemIndex }, failure, this.secrets);
	}

	private wrap(job: TrackedJob, error: unknown): Error {
		return asJobFailure(this.context.getNode(), job, error, this.secrets);
	}

	// ---- the reconciling loop ----

	protected async run(): Promise<void> {
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
