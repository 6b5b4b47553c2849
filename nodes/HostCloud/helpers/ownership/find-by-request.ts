/**
 * Finding the job one submit made by the request id of its tag, when its prompt_id is not known
 * (the submit's answer was lost, or an earlier try of the item made it): among the running and
 * pending jobs of the queue, and on a self-hosted server also among the jobs that ended last (its
 * history keeps each job's extra_data, as upstream ComfyUI does). The cloud's API lists no ended
 * jobs, so there a job that already ended cannot be found.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { isRecord, ownValue } from '../../../shared/items/validation';
import { readQueue, readRecentHistory } from '../../transport/cloud-api';
import { jobTagOf, madeByThisInstall, taggedRequestId, thisExecutionId, thisInstanceId, thisWorkflowId } from './job-tag';
import { entriesOf, usablePromptId } from './own-jobs';

/** Where a job was found: queued (running or pending), or among the ended ones. */
export type FoundWhere = 'running' | 'pending' | 'ended';

export interface FoundJob {
	promptId: string;
	where: FoundWhere;
}

/** One submit to look for: its request id, the item that made it, and the client id it was sent with (Execute's). */
export interface SubmitToFind {
	requestId: string;
	itemIndex: number;
	clientId?: string;
}

/**
 * How many of the jobs that ended last are read: a self-hosted server runs one job at a time, and
 * a lost submit is looked for within its time limit (a minute by default), so its job, if it
 * already ended, is among the last few; a hundred leaves room for a busy server of short jobs
 * while keeping the answer (each entry holds its workflow) to a few MiB at most.
 */
export const RECENT_JOBS = 100;

/** A listed job that carries some submit's request id in its tag. */
interface Listed extends FoundJob {
	extraData: unknown;
}

/** The running and pending jobs of a queue answer that the node can follow, by the request id of their tag. */
export function queuedByRequestId(queue: unknown): Map<string, Listed[]> {
	const found = new Map<string, Listed[]>();
	for (const where of ['running', 'pending'] as const) {
		for (const entry of entriesOf(queue, where === 'running' ? 'queue_running' : 'queue_pending')) {
			if (!Array.isArray(entry) || !usablePromptId(entry[1])) continue;
			const requestId = taggedRequestId(entry[3]);
			if (requestId) found.set(requestId, [...(found.get(requestId) ?? []), { promptId: entry[1], where, extraData: entry[3] }]);
		}
	}
	return found;
}

/**
 * Whether a job's extra_data shows it made by `submit` of this node in this execution: a request
 * id alone could be copied into another job's tag, so this install, the execution, the workflow,
 * node and item must match too, and the client id where both the job and the submit show one.
 */
function madeBy(context: IExecuteFunctions, submit: SubmitToFind, extraData: unknown): boolean {
	const tag = jobTagOf(extraData);
	if (!tag || ownValue(tag, 'request_id') !== submit.requestId) return false;
	if (!madeByThisInstall(tag, thisInstanceId(context))) return false;
	if (ownValue(tag, 'execution_id') !== thisExecutionId(context)) return false;
	// As the tag was written: with this workflow's id when n8n gave one, without it when it gave none.
	if (ownValue(tag, 'workflow_id') !== thisWorkflowId(context)) return false;
	if (ownValue(tag, 'node_name') !== context.getNode().name || ownValue(tag, 'item_index') !== submit.itemIndex) return false;
	const clientId = isRecord(extraData) ? ownValue(extraData, 'client_id') : undefined;
	return submit.clientId === undefined || typeof clientId !== 'string' || clientId === submit.clientId;
}

/** The job of `submit` among the queued ones (from `queuedByRequestId`), if listed. */
export function queuedJobOf(context: IExecuteFunctions, queued: Map<string, Listed[]>, submit: SubmitToFind): FoundJob | undefined {
	const job = queued.get(submit.requestId)?.find((listed) => madeBy(context, submit, listed.extraData));
	return job && { promptId: job.promptId, where: job.where };
}

/** The job of `submit` among the ended ones of a history answer, if there: its key must be the id its entry names. */
export function endedJobOf(context: IExecuteFunctions, history: unknown, submit: SubmitToFind): FoundJob | undefined {
	if (!isRecord(history)) return undefined;
	for (const [promptId, entry] of Object.entries(history)) {
		const queueItem = isRecord(entry) ? ownValue(entry, 'prompt') : undefined;
		if (!usablePromptId(promptId) || !Array.isArray(queueItem) || queueItem[1] !== promptId) continue;
		if (madeBy(context, submit, queueItem[3])) return { promptId, where: 'ended' };
	}
	return undefined;
}

/**
 * The job `submit` made, if the server lists it: one queue read and, on a self-hosted server with
 * `ended`, one history read. Neither read is repeated here (`retry: false`): the caller looks
 * again, and a look stays within two time limits.
 */
export async function findJobByRequestId(
	context: IExecuteFunctions,
	submit: SubmitToFind,
	options: { ended: boolean },
): Promise<FoundJob | undefined> {
	const read = { itemIndex: submit.itemIndex, retry: false, action: `looking for the job of request ${submit.requestId}` };
	// The queue first: a job that ends between the two reads moves to the history, where it is read second.
	const queued = queuedJobOf(context, queuedByRequestId(await readQueue(context, read)), submit);
	if (queued || !options.ended) return queued;
	return endedJobOf(context, await readRecentHistory(context, RECENT_JOBS, read), submit);
}
