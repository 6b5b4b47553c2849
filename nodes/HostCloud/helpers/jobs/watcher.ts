/**
 * Waits for the cloud jobs of one node run over its share of the process's progress socket
 * (`socket-share.ts`): the items' face of `job-tracker.ts`, which follows each job to its end. An
 * item's submit takes one of the watcher's places (Max Concurrent Jobs, `RunPlaces`) and is refused
 * once the execution is stopped or another item failed the run; its job gives the place back as it
 * settles. The execution's cancel signal and a failed item (without Continue On Fail) abandon the
 * run: the node then cancels only its own jobs.
 */
import { randomUUID } from 'crypto';

import type { INodeExecutionData } from 'n8n-workflow';

import { notSubmitted } from '../../../shared/items/concurrent-items';
import { errorForItem } from '../../../shared/items/items';
import { progressSocketAddress } from '../../transport/cloud-api';
import { jobFailureMessages } from '../job-reports/errors';
import { JobTracker } from './job-tracker';
import { cancelOwnJobs, cancelUnansweredSubmissions } from './recovery';
import { JobSocket, type JobMessage } from '../progress-socket/progress-socket';
import { shareJobSocket } from './socket-share';
import type { FinishedJob, Submit } from './tracked-job';

export class JobWatcher extends JobTracker {
	private readonly following = new Map<string, Promise<FinishedJob>>();
	private readonly submittedBy = new Map<string, number>(); // the item of each prompt_id submitted
	private loop?: Promise<void>;
	private clientId: string = randomUUID(); // the shared socket's, once there is one
	private readonly onCancel = () => this.abandon('cancelled');

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

	/** An item not to be submitted (the execution was stopped, or another item failed the run) is refused: throws why. */
	refuseIfStopped(itemIndex: number): void {
		const refused = notSubmitted(this.context, itemIndex, this.abandoned !== undefined);
		if (refused) throw refused;
	}

	/** An item's submit begins: waits for one of the watcher's places, then refuses, as `refuseIfStopped`, or answers the submit holding it. */
	async openSubmit(itemIndex: number): Promise<Submit> {
		this.refuseIfStopped(itemIndex);
		const giveBack = await this.places.take();
		const refused = notSubmitted(this.context, itemIndex, this.abandoned !== undefined);
		if (refused) giveBack();
		if (refused) throw refused;
		return { itemIndex, giveBack };
	}

	/** Just before the submit is sent: refuses as `openSubmit`; until its answer, messages of jobs nobody watches yet are kept for it. */
	sendWith(submit: Submit): { clientId: string; requestId: string } {
		this.refuseIfStopped(submit.itemIndex);
		const sendWith = { clientId: this.clientId, requestId: randomUUID() };
		const mark = this.socket?.beginSubmission() ?? 0;
		submit.sent = { sendWith, mark, epoch: this.gapEpoch, socketOpen: this.socket?.open === true };
		this.submitting.set(sendWith.requestId, { ...submit.sent, itemIndex: submit.itemIndex });
		return sendWith;
	}

	/** Waits for the job of a sent submit, once its answer named the job (`promptId`), in the submit's place; closes the submit. */
	async waitForSubmitted(submit: Submit, promptId: string): Promise<FinishedJob> {
		const { itemIndex, sent } = submit;
		let promise: Promise<FinishedJob>, kept: { messages: JobMessage[]; whole: boolean };
		try {
			this.claimPromptId(promptId, itemIndex);
			kept = this.socket?.takeKept(promptId, sent?.mark ?? 0) ?? { messages: [], whole: true };
			// Some of its messages were dropped from a full store: as if the socket had been down.
			const gapFromStart = sent?.socketOpen !== true || !kept.whole;
			const { giveBack } = submit;
			submit.giveBack = () => undefined; // the job holds the place now
			promise = this.track({ promptId, itemIndex, epoch: sent?.epoch ?? this.gapEpoch, gapFromStart, pollNow: false, giveBack });
		} catch (error) {
			this.closeSubmit(submit, error);
			throw errorForItem(this.context, error, itemIndex);
		}
		this.closeSubmit(submit);
		const job = this.jobs.get(promptId);
		if (job) for (const message of kept.messages) this.apply(job, message);
		return await promise;
	}

	/**
	 * A submit is answered or failed (`failure`): no more messages are kept for it, and a place its
	 * job does not hold comes back, after the run has learnt of its failure. Later calls do nothing.
	 */
	closeSubmit(submit: Submit, failure?: unknown): void {
		if (submit.sent && this.submitting.delete(submit.sent.sendWith.requestId)) this.socket?.endSubmission();
		if (failure !== undefined) this.itemFailed(failure, submit.itemIndex);
		submit.giveBack();
		submit.giveBack = () => undefined;
	}

	/** An item failed (its job, a file, a check): without Continue On Fail the run's first failure stops the run. */
	itemFailed(error: unknown, itemIndex: number): void {
		this.places.failed(error, itemIndex);
	}

	/** The outputs of every item in item order, or the run's first failure thrown. */
	results(outputs: INodeExecutionData[][]): INodeExecutionData[] {
		return this.places.results(outputs);
	}

	/**
	 * A prompt_id answered for two submits of this run (the earlier try's job an item follows counts as
	 * its submit): both items fail, naming it (their results cannot be told apart); the job, which no
	 * item waits for then, is cancelled when this node started it.
	 */
	private claimPromptId(promptId: string, itemIndex: number): void {
		const earlier = this.submittedBy.get(promptId);
		if (earlier === undefined) return void this.submittedBy.set(promptId, itemIndex);
		const failure = this.failureMessages.sharedPromptId(promptId, earlier, itemIndex);
		const open = this.jobs.get(promptId);
		if (open && open.phase !== 'done') {
			this.settleWithError(open, this.jobError(promptId, open.itemIndex, failure));
			// No item waits for it now, and the run's stop no longer sees it: a job of this node is cancelled here.
			if (this.ownsJobs) this.cleanups.push(cancelOwnJobs(this.context, [promptId]));
		}
		throw this.jobError(promptId, itemIndex, failure);
	}

	/**
	 * Waits for a job submitted earlier (its earlier messages were missed: outputs come from the job
	 * record), in a place of its own.
	 */
	follow(promptId: string, itemIndex: number): Promise<FinishedJob> {
		const followed = this.following.get(promptId);
		if (followed) {
			// The same job named by several items: one wait, each item's error carrying its own index.
			return followed.catch((error: Error & { description?: string }) => {
				throw this.jobError(promptId, itemIndex, { message: error.message, description: error.description ?? undefined });
			});
		}
		const promise = this.followInPlace(promptId, itemIndex);
		this.following.set(promptId, promise);
		return promise;
	}

	private async followInPlace(promptId: string, itemIndex: number): Promise<FinishedJob> {
		// An earlier try's job is the item's own: another item's submit answered with its prompt_id fails both.
		this.claimPromptId(promptId, itemIndex);
		const giveBack = await this.places.take();
		// A self-hosted server sends a job's messages only to the client that submitted it: this one is polled.
		const unheard = this.failureMessages.kind === 'selfHosted';
		return await this.track({ promptId, itemIndex, epoch: this.gapEpoch, gapFromStart: true, pollNow: true, unheard, giveBack });
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
}
