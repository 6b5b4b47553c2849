/**
 * Finding the job one submit made by the request id of its tag, when its prompt_id is not known
 * (the submit's answer was lost, or an earlier try of the item made it): among the running and
 * pending jobs of the queue, and on a self-hosted server also among the jobs that ended last (its
 * history keeps each job's extra_data, as upstream ComfyUI does). The cloud's API lists no ended
 * jobs, so there a job that already ended cannot be found.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { pathSegmentProblem } from '../../../shared/path-segment';
import { isRecord, ownValue } from '../../../shared/validation';
import { readQueue, readRecentHistory } from '../../transport/cloud-api';
import { taggedRequestId } from './job-tag';
import { entriesOf } from './own-jobs';

/** Where a job was found: queued (running or pending), or among the ended ones. */
export type FoundWhere = 'running' | 'pending' | 'ended';

export interface FoundJob {
	promptId: string;
	where: FoundWhere;
}

/**
 * How many of the jobs that ended last are read: a self-hosted server runs one job at a time, and
 * a lost submit is looked for within its time limit (a minute by default), so its job, if it
 * already ended, is among the last few; a hundred leaves room for a busy server of short jobs
 * while keeping the answer (each entry holds its workflow) to a few MiB at most.
 */
export const RECENT_JOBS = 100;

/** The request ids of a queue answer's running and pending jobs that the node can follow (prompt_id → request id). */
export function queuedByRequestId(queue: unknown): Map<string, FoundJob> {
	const found = new Map<string, FoundJob>();
	for (const where of ['running', 'pending'] as const) {
		for (const entry of entriesOf(queue, where === 'running' ? 'queue_running' : 'queue_pending')) {
			if (!Array.isArray(entry) || typeof entry[1] !== 'string' || pathSegmentProblem(entry[1])) continue;
			const requestId = taggedRequestId(entry[3]);
			if (requestId && !found.has(requestId)) found.set(requestId, { promptId: entry[1], where });
		}
	}
	return found;
}

/** The job the submit `requestId` made, if the server lists it (one queue read; on a self-hosted server with `ended`, one history read). */
export async function findJobByRequestId(
	context: IExecuteFunctions,
	requestId: string,
	options: { itemIndex: number; ended: boolean },
): Promise<FoundJob | undefined> {
	const action = `looking for the job of request ${requestId}`;
	// The queue first: a job that ends between the two reads moves to the history, where it is read second.
	const queued = queuedByRequestId(await readQueue(context, { itemIndex: options.itemIndex, retry: true, action })).get(requestId);
	if (queued || !options.ended) return queued;
	const history = await readRecentHistory(context, RECENT_JOBS, { itemIndex: options.itemIndex, action });
	for (const [promptId, entry] of Object.entries(history)) {
		const queueItem = isRecord(entry) ? ownValue(entry, 'prompt') : undefined;
		if (Array.isArray(queueItem) && taggedRequestId(queueItem[3]) === requestId && !pathSegmentProblem(promptId))
			return { promptId, where: 'ended' };
	}
	return undefined;
}
