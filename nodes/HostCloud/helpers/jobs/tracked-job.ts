/**
 * One job as the watcher follows it: its settings, its state (one phase), and what a progress
 * message means for it.
 */
import type { IDataObject } from 'n8n-workflow';

import { errorInfoFrom, type ExecutionErrorInfo } from '../job-reports/execution-errors';
import type { JobMessage } from '../progress-socket/progress-socket';
import { collectExecuted } from '../job-reports/executed-outputs';
import type { PreviewImage } from '../progress-socket/preview-frames';

export interface WatchSettings {
	/** Use the WebSocket when the runtime has one (false: poll only). */
	useWebSocket: boolean;
	/** Between status polls of a job while the socket cannot be relied on. */
	pollIntervalMs: number;
	/** No message for this long while jobs run: poll their status to reconcile. */
	silenceMs: number;
	/** Longest wait for one job; 0 waits without limit. */
	maxWaitMs: number;
	/** At the maximum wait, cancel the job (true) or leave it running (false). */
	cancelOnTimeout: boolean;
	/**
	 * With `cancelOnTimeout`, also cancel a followed job (Wait for Completion) that this execution
	 * did not submit: someone else's, left running unless the user asked (default false).
	 */
	cancelStartedElsewhere?: boolean;
	/** Keep the last preview image of each job. */
	keepPreview: boolean;
	/** How long to wait for the socket to open. */
	connectTimeoutMs?: number;
	/** Whether stopping early (cancelled execution, failed item) cancels the jobs on the cloud (default true: the node started them). */
	cancelOnAbandon?: boolean;
	/** At most this many jobs at once (`RunPlaces`, nodes/shared/items/concurrent-items.ts); none: no bound. */
	places?: number;
	/** Runs as a tool: a job left running at Tool Wait is the tool's answer, not a failure. */
	asTool?: boolean;
}

/**
 * An item's submit (the watcher's `openSubmit`): its place, given back once (its job holds it from
 * the submit's answer on), and, once it is sent (`sendWith`), what it was sent with and what the
 * watcher noted then.
 */
export interface Submit {
	itemIndex: number;
	giveBack: () => void;
	sent?: SentSubmit;
}

export interface SentSubmit {
	sendWith: { clientId: string; requestId: string };
	/** The socket's drop count (`takeKept`), the gap epoch, and whether the socket was open. */
	mark: number;
	epoch: number;
	socketOpen: boolean;
}

export interface FinishedJob {
	promptId: string;
	status: 'completed';
	/** Node id → that node's output, as the service reported it. */
	outputs: Record<string, IDataObject>;
	/** True when the outputs were read from the job record (the socket may have missed some). */
	recovered: boolean;
	preview?: PreviewImage;
}

/**
 * Where a job's wait stands: `following` its messages; `confirming` the end the socket announced
 * with a status poll; `timingOut` (one last look at Max Wait); `ending` (its outputs or failure are
 * being read, or it is being cancelled); `done`.
 */
export type Phase = 'following' | 'confirming' | 'timingOut' | 'ending' | 'done';

export interface TrackedJob {
	promptId: string;
	itemIndex: number;
	phase: Phase;
	/** Gap epoch when the job was submitted; a later epoch means messages may have been missed. */
	startEpoch: number;
	/** Messages were certainly missed (no socket when submitted, or watched after the fact). */
	gapFromStart: boolean;
	/** The socket never carries this job's messages (another client's job on a self-hosted server): always polled. */
	unheard: boolean;
	outputs: Record<string, IDataObject>;
	preview?: PreviewImage;
	error?: ExecutionErrorInfo;
	lastStatus?: string;
	/** Why the last status read told nothing (an answer about another job), for the Max Wait message. */
	lastProblem?: string;
	deadline?: number;
	/** When its status is next polled: always while the socket cannot be trusted, once when `checkSoon`. */
	nextPollAt: number;
	checkSoon: boolean;
	/** A status request is under way. */
	polling: boolean;
	resolve(job: FinishedJob): void;
	reject(error: Error): void;
	/** Gives the job's place back (`RunPlaces`, nodes/shared/items/concurrent-items.ts), once it settles. */
	giveBack: () => void;
}

/** A job the watcher starts following: its gap epoch now, whether messages were missed, whether to poll at once. */
export interface NewJob {
	promptId: string;
	itemIndex: number;
	epoch: number;
	gapFromStart: boolean;
	pollNow: boolean;
	unheard?: boolean;
	/** The place it holds, given back when it settles. */
	giveBack?: () => void;
}

/** A job the watcher starts following now. */
export function newTrackedJob(
	job: NewJob,
	settings: Pick<WatchSettings, 'maxWaitMs' | 'pollIntervalMs'>,
	settle: Pick<TrackedJob, 'resolve' | 'reject'>,
): TrackedJob {
	const now = Date.now();
	return {
		promptId: job.promptId,
		itemIndex: job.itemIndex,
		phase: 'following',
		startEpoch: job.epoch,
		gapFromStart: job.gapFromStart,
		unheard: job.unheard === true,
		outputs: {},
		deadline: settings.maxWaitMs > 0 ? now + settings.maxWaitMs : undefined,
		nextPollAt: job.pollNow ? now : now + settings.pollIntervalMs,
		checkSoon: job.pollNow,
		polling: false,
		giveBack: job.giveBack ?? (() => undefined),
		...settle,
	};
}

/** Asks for a status poll of every job now (the socket is back: jobs may have finished while it was down). */
export function checkSoon(jobs: Iterable<TrackedJob>): void {
	for (const job of jobs) {
		job.checkSoon = true;
		job.nextPollAt = Date.now();
	}
}

/** Whether a job's wait is over (read after an await, where the compiler's narrowing no longer holds). */
export const isDone = (job: TrackedJob): boolean => job.phase === 'done';

/**
 * Applies one progress message to its job: outputs of `executed` are collected; the answer says
 * whether the message ends the job, or announces its end (`executing` with no node, sent after
 * errors too, so it counts only when nothing else was said).
 */
export function readMessage(job: TrackedJob, message: JobMessage): 'completed' | 'failed' | 'cancelled' | 'endAnnounced' | undefined {
	// Once a job is ending (outputs being read, being cancelled at Max Wait), the socket has nothing to add.
	if (job.phase === 'done' || job.phase === 'ending') return undefined;
	const data = message.data;
	switch (message.type) {
		case 'executed':
			collectExecuted(job.outputs, data);
			return undefined;
		case 'execution_success':
			return 'completed';
		case 'execution_error':
			job.error = errorInfoFrom(data);
			return 'failed';
		case 'execution_interrupted':
			return 'cancelled';
		case 'executing':
			return (data.node === null || data.node === '') && !job.error && job.phase === 'following' ? 'endAnnounced' : undefined;
		default:
			return undefined;
	}
}

/** Jobs whose wait the watcher's loop looks after (not those being ended or given a last look). */
const followed = (job: TrackedJob): boolean => (job.phase === 'following' || job.phase === 'confirming') && !job.polling;

/**
 * What each job needs now: its Max Wait is reached, or a status poll is due (always while the
 * socket cannot be trusted, else only when a check was asked for).
 */
export function jobsDue(
	jobs: Iterable<TrackedJob>,
	now: number,
	trustSocket: boolean,
): Array<{ job: TrackedJob; visit: 'deadline' | 'poll' }> {
	const due: Array<{ job: TrackedJob; visit: 'deadline' | 'poll' }> = [];
	for (const job of jobs) {
		if (job.phase !== 'following' && job.phase !== 'confirming') continue;
		// Max Wait is kept whatever is in flight: a status read that never answers does not hold the job.
		if (job.deadline !== undefined && now >= job.deadline) due.push({ job, visit: 'deadline' });
		else if (followed(job) && (!trustSocket || job.checkSoon || job.unheard) && now >= job.nextPollAt) due.push({ job, visit: 'poll' });
	}
	return due;
}

/** When the next job needs a visit (a deadline or a due poll); Infinity when none does. */
export function nextJobTime(jobs: Iterable<TrackedJob>, trustSocket: boolean): number {
	let at = Number.POSITIVE_INFINITY;
	for (const job of jobs) {
		if (job.phase !== 'following' && job.phase !== 'confirming') continue;
		if (job.deadline !== undefined) at = Math.min(at, job.deadline);
		if (!trustSocket || job.checkSoon || job.unheard) at = Math.min(at, job.nextPollAt);
	}
	return at;
}
