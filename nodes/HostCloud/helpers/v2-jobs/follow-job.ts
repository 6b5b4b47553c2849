/**
 * Following one v2 job to its end. `GET /api/v2/jobs/{id}` is the truth; the job's event stream
 * only tells the node when to read it: a terminal `status` event costs one GET for the whole job,
 * a dropped stream one GET to re-sync, then the stream is opened again (a few times at most) or
 * the job is polled. A server that does not stream (`501 not_implemented`) or has too many streams
 * open (`429 too_many_streams`) is polled at the user's Poll Interval at once. Max Wait and the
 * stop signal (n8n's Stop, or the run giving up) end every wait.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { pause } from '../../../shared/waits/pause';
import { openJobEvents, readJob } from '../../transport/v2-api';
import { checkedJob, JOB_STATUSES, jobPhase, type JobStatus, type V2Job } from './job-record';
import { readSseFrames } from './sse-frames';

/** How a run follows its jobs; `events.available` turns false for the run once the server says it does not stream. */
export interface FollowSettings {
	pollIntervalMs: number;
	/** Silence Timeout: an event stream silent this long ends, and the job is read. */
	silenceMs: number;
	/** When Max Wait is over (epoch ms); Infinity when it is 0, which waits without limit. */
	deadline: number;
	/** Ends every wait: n8n's Stop, or the run giving up. */
	stop: AbortSignal;
	events: { available: boolean };
}

/** The stream is opened at most this many times for one job: then the job is polled. */
export const MOST_STREAM_DROPS = 3;

/** The deadline a request's waits (a 429's Retry-After) must keep: none beyond its read limit when Max Wait is 0. */
export function requestDeadline(deadline: number): number | undefined {
	return Number.isFinite(deadline) ? deadline : undefined;
}

/**
 * A wait that ended before its job did (Max Wait, or the stop signal): a NodeOperationError like
 * any other the user sees (a subclass would show its own name as the error's), known by this set;
 * its context names the job and the reason.
 */
const WAITS_ENDED = new WeakSet<object>();
export type JobWaitEnded = NodeOperationError & { context: { reason: 'stopped' | 'maxWait'; job_id: string } };
export function isWaitEnded(error: unknown): error is JobWaitEnded {
	return error instanceof NodeOperationError && WAITS_ENDED.has(error);
}

/** What one opening of the event stream came to. */
type StreamEnd = 'terminal' | 'dropped' | 'unavailable';

/** Reads the job, checked to be about it. */
async function readChecked(context: IExecuteFunctions, jobId: string, itemIndex: number, follow: FollowSettings): Promise<V2Job> {
	const answer = await readJob(context, jobId, { itemIndex, stop: follow.stop, deadline: requestDeadline(follow.deadline) });
	return checkedJob(context, answer, jobId, itemIndex);
}

/** Follows the job from its current state (`job`, read already) until it has ended. */
export async function followJob(context: IExecuteFunctions, job: V2Job, itemIndex: number, follow: FollowSettings): Promise<V2Job> {
	let current = job;
	let drops = 0;
	while (jobPhase(current.status) === 'running') {
		endIfOver(context, current, itemIndex, follow);
		if (follow.events.available && drops < MOST_STREAM_DROPS) {
			const end = await watchEvents(context, current.id, itemIndex, follow);
			// Each opening counts: a stream that keeps saying "ended" while the job reads otherwise is not opened forever.
			drops = end === 'unavailable' ? MOST_STREAM_DROPS : drops + 1;
			// Unavailable: polled from now on, after the Poll Interval, as any poll.
			if (end !== 'unavailable') {
				// Read even at Max Wait: a job that ended as the wait did is found ended, not timed out.
				endIfOver(context, current, itemIndex, { ...follow, deadline: Number.POSITIVE_INFINITY });
				current = await readChecked(context, current.id, itemIndex, follow);
				continue;
			}
		}
		await pause(Math.max(1, Math.min(follow.pollIntervalMs, follow.deadline - Date.now())), follow.stop).catch(() => undefined);
		endIfOver(context, current, itemIndex, { ...follow, deadline: Number.POSITIVE_INFINITY });
		current = await readChecked(context, current.id, itemIndex, follow);
	}
	return current;
}

/** Throws when the stop signal fired or Max Wait is over, naming the job and its last status. */
function endIfOver(context: IExecuteFunctions, job: V2Job, itemIndex: number, follow: FollowSettings): void {
	const stopped = follow.stop.aborted;
	if (!stopped && Date.now() < follow.deadline) return;
	const message = stopped
		? `The wait for job ${job.id} was stopped (its last status: ${job.status})`
		: `Job ${job.id} did not finish within Max Wait (its last status: ${job.status})`;
	const error = new NodeOperationError(context.getNode(), message, {
		itemIndex,
		description: stopped
			? 'The execution was stopped, or another item failed the run.'
			: 'Raise Max Wait, or collect the job later with Wait for Completion or Get Status and its job_id.',
	});
	Object.assign(error.context, { job_id: job.id, prompt_id: job.id, status: job.status, reason: stopped ? 'stopped' : 'maxWait' });
	WAITS_ENDED.add(error);
	throw error;
}

/**
 * Opens the job's event stream and reads it until a terminal `status` event, the stream's end or
 * Max Wait; a frame that is not what the contract says is not believed: the job is read instead.
 */
async function watchEvents(context: IExecuteFunctions, jobId: string, itemIndex: number, follow: FollowSettings): Promise<StreamEnd> {
	const ends = new AbortController();
	const stop = AbortSignal.any([follow.stop, ends.signal]);
	// Max Wait ends the stream as it ends a poll (none to arm when it waits without limit).
	if (Number.isFinite(follow.deadline))
		void pause(Math.max(1, follow.deadline - Date.now()), stop).then(
			() => ends.abort(),
			() => undefined,
		);
	// A stream silent for the Silence Timeout is no better than a poll: it ends, and the job is read.
	const silence = silenceGuard(follow.silenceMs, () => ends.abort(), stop);
	try {
		silence.heard();
		const opened = await openJobEvents(context, jobId, { itemIndex, stop });
		if (opened.statusCode === 501) follow.events.available = false;
		if (opened.statusCode === 429 || opened.statusCode === 501) return 'unavailable';
		try {
			return await terminalStatusIn(opened.body as AsyncIterable<Buffer>, silence.heard);
		} finally {
			opened.abandon?.();
		}
	} catch {
		// A cut stream, a silent one, or one that could not open: the job is read, which says what became of it.
		return 'dropped';
	} finally {
		ends.abort();
	}
}

/** Calls `onSilence` once `ms` pass without `heard()`; each `heard()` starts the wait again. `stop` ends it. */
function silenceGuard(ms: number, onSilence: () => void, stop: AbortSignal): { heard: () => void } {
	let wait: AbortController | undefined;
	return {
		heard() {
			wait?.abort();
			const mine = new AbortController();
			wait = mine;
			void pause(Math.max(1, ms), AbortSignal.any([stop, mine.signal])).then(
				() => onSilence(),
				() => undefined,
			);
		},
	};
}

/** Reads frames until a terminal status ('terminal'), the end, or a frame not to believe ('dropped'); each frame is `heard`. */
async function terminalStatusIn(body: AsyncIterable<Buffer>, heard: () => void): Promise<StreamEnd> {
	for await (const frame of readSseFrames(body)) {
		heard();
		if ('malformed' in frame) return 'dropped';
		if (frame.event !== 'status') continue;
		const status = frame.data.status as JobStatus;
		if (!JOB_STATUSES.includes(status)) return 'dropped';
		if (jobPhase(status) !== 'running') return 'terminal';
	}
	return 'dropped';
}
