/**
 * job-reports/: a job as the server reports it, read the same way by Execute's watcher (jobs/),
 * the trigger (finished-jobs/), Get History (server/) and the job operations: its prompt_id, its
 * state, its status and record (and cancelling it), its outputs and their files item, and its
 * failure in words. It may call transport/, nodes/shared, ownership/ (whose jobs are whose) and
 * files/output-files (the files a job's outputs name); never jobs/ or finished-jobs/, which
 * call it, nor the progress socket (progress-socket/), which only carries what this reads.
 *
 * A job's status and record, and cancelling jobs, wherever the credential's server keeps them. The
 * cloud has a status route, a job record and a queue delete that cancels running jobs too. A
 * self-hosted ComfyUI-compatible server has none of the first two: a job is pending or running
 * while it is in its queue and over once it is in its history; and its queue delete leaves the
 * running job alone, which only an interrupt naming that job stops.
 * Both answer in the cloud's words (`status`: pending, in_progress, completed, failed, cancelled).
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { RunContext } from '../../../shared/transport/transport';
import { hostCloudServer } from '../../transport/cloud-service';
import { isRecord, ownValue } from '../../../shared/items/validation';
import { clipText } from '../../../shared/transport/service-values';
import {
	type CallFor,
	deleteFromQueue,
	interruptJob,
	readHistory,
	readJobRecord,
	readJobStatus,
	readQueue,
} from '../../transport/cloud-api';
import { usablePromptId } from '../ownership/own-jobs';
import { jobFailureMessages } from './errors';

/** The prompt_ids of the running and pending jobs of a queue answer (entries `[number, prompt_id, prompt, extra_data, output node ids]`). */
export function queuedIds(queue: unknown): { running: string[]; pending: string[] } {
	const ids = (list: unknown): string[] =>
		(Array.isArray(list) ? list : []).flatMap((entry: unknown) => (Array.isArray(entry) && usablePromptId(entry[1]) ? [entry[1]] : []));
	return isRecord(queue) ? { running: ids(queue.queue_running), pending: ids(queue.queue_pending) } : { running: [], pending: [] };
}

/** The data of the first message of `type` in a history entry's status messages (`[type, data]` pairs). */
function statusMessage(messages: unknown[], type: string): IDataObject | undefined {
	const found = messages.find((message) => Array.isArray(message) && message[0] === type) as unknown[] | undefined;
	return found && isRecord(found[1]) ? (found[1] as IDataObject) : undefined;
}

/** A history entry as a job record: status, outputs, and what went wrong. */
export function recordFromHistory(entry: IDataObject): IDataObject {
	const status = isRecord(entry.status) ? entry.status : {};
	const messages = Array.isArray(status.messages) ? (status.messages as unknown[]) : [];
	const outputs = isRecord(entry.outputs) ? entry.outputs : {};
	if (status.status_str === 'success') return { status: 'completed', outputs };
	// No status, or a word the server does not write: no success and no failure. Read again (a
	// status the node does not know is "still running"), never taken as done.
	if (status.status_str !== 'error') return { status: 'unknown' };
	if (statusMessage(messages, 'execution_interrupted')) return { status: 'cancelled', outputs };
	const error = statusMessage(messages, 'execution_error');
	return { status: 'failed', outputs, ...(error ? { execution_error: error } : {}) };
}

/** The job's history entry as a record, or undefined while it is not over. */
async function fromHistory(context: RunContext, promptId: string, options: CallFor): Promise<IDataObject | undefined> {
	const entry = historyEntryOf(context, await readHistory(context, promptId, options), promptId, options.itemIndex);
	return entry ? { ...recordFromHistory(entry), prompt_id: promptId } : undefined;
}

/**
 * The ids a job record gives (the cloud's `id` and `prompt_id`; a self-hosted record is made with
 * its `prompt_id`). A record is the job's only when it gives one and every one it gives is the job's.
 */
const idsGiven = (record: IDataObject): unknown[] =>
	[ownValue(record, 'id'), ownValue(record, 'prompt_id')].filter((id) => id !== undefined && id !== null);

/** Whether a job record is about `promptId`: it names it, and names no other job. */
export function recordIsFor(record: IDataObject, promptId: string): boolean {
	const given = idsGiven(record);
	return given.length > 0 && given.every((id) => id === promptId);
}

/** Another job's ids, as a message may show them: a usable prompt_id as it is, anything else only said to be no prompt_id. */
const shownIds = (ids: unknown[]): string =>
	[...new Set(ids.map((id) => (usablePromptId(id) ? id : 'a value that is no prompt_id')))].join(', ');

/** An answer to reading one job that is about another (or names none): nothing is taken from it, and the error names both. */
export class AnswerAboutAnotherJobError extends NodeOperationError {
	constructor(context: RunContext, promptId: string, others: unknown[], itemIndex?: number) {
		const about = others.length > 0 ? `is about another job (${shownIds(others)})` : 'names no job';
		super(context.getNode(), `The answer to reading job ${promptId} ${about}, so nothing was taken from it`, {
			itemIndex,
			description: 'A caching proxy or a fault of the server can answer so. Try again; if it keeps answering so, the server is at fault.',
		});
		// Named as n8n's own errors are: n8n shows an error's name, and the class is only for the callers' instanceof.
		this.name = 'NodeOperationError';
		this.context.prompt_id = promptId;
	}
}

/** A cloud job record that is `promptId`'s; an error naming both ids when it is about another job. */
function ownRecord(context: RunContext, record: IDataObject, promptId: string, itemIndex?: number): IDataObject {
	if (recordIsFor(record, promptId)) return record;
	const others = idsGiven(record).filter((id) => id !== promptId);
	throw new AnswerAboutAnotherJobError(context, promptId, others, itemIndex);
}

/**
 * The entry of `promptId` in a self-hosted history answer (`{[prompt_id]: entry}`); undefined when
 * the answer is empty (upstream ComfyUI's answer while a job is not over, or for an unknown id). An
 * answer that names only other jobs claims nothing about this one: an error naming both.
 */
export function historyEntryOf(context: RunContext, answer: unknown, promptId: string, itemIndex?: number): IDataObject | undefined {
	if (!isRecord(answer)) return undefined;
	const entry = ownValue(answer, promptId);
	if (isRecord(entry)) return entry as IDataObject;
	const others = Object.keys(answer).filter((key) => key !== promptId);
	if (entry === undefined && others.length > 0) throw new AnswerAboutAnotherJobError(context, promptId, others.slice(0, 3), itemIndex);
	return undefined;
}

/**
 * A self-hosted job: from the history once over, else from the queue. One that is in neither was
 * deleted from the queue or its history was cleared; the history is read again first, since the
 * server moves a job from the queue to the history at once, and it may have done so between reads.
 */
async function selfHostedJob(context: RunContext, promptId: string, options: CallFor): Promise<IDataObject> {
	const record = await fromHistory(context, promptId, options);
	if (record) return record;
	const queue = queuedIds(await readQueue(context, { retry: true, ...options }));
	if (queue.running.includes(promptId)) return { status: 'in_progress' };
	if (queue.pending.includes(promptId)) return { status: 'pending' };
	const late = await fromHistory(context, promptId, options);
	if (late) return late;
	throw new JobNotOnServerError(context, promptId, options.itemIndex);
}

/** A job a self-hosted server does not know (neither queued, running nor in its history). */
export class JobNotOnServerError extends NodeOperationError {
	constructor(context: RunContext, promptId: string, itemIndex?: number) {
		const failure = jobFailureMessages('selfHosted').notFound(promptId);
		super(context.getNode(), failure.message, { itemIndex, description: failure.description });
		this.name = 'NodeOperationError';
		this.context.prompt_id = promptId;
	}
}

/** `{status}` of a job (a self-hosted server's answer also carries the record's fields once it is over). */
export async function lookUpJobStatus(context: RunContext, promptId: string, options: CallFor = {}): Promise<IDataObject> {
	const server = await hostCloudServer(context, options.itemIndex);
	if (server.kind === 'selfHosted') return await selfHostedJob(context, promptId, options);
	const answer = await readJobStatus(context, promptId, options);
	// A word the node does not know means "still running"; no word at all is no status, never a guess.
	if (typeof answer.status !== 'string' || answer.status.trim() === '') {
		const held = Object.keys(answer)
			.slice(0, 5)
			.map((key) => clipText(key, 40))
			.join(', ');
		throw new NodeOperationError(
			context.getNode(),
			`The service's answer to reading the status of job ${promptId} has no status (${held ? `it held: ${held}` : 'it was an empty object'})`,
			{
				itemIndex: options.itemIndex,
				description: 'Nothing was read from this answer. Try again; if it keeps answering so, the service is at fault.',
			},
		);
	}
	return answer;
}

/** A job's record: `status`, and `outputs` once it is over (`execution_error` when it failed); never another job's. */
export async function lookUpJobRecord(context: RunContext, promptId: string, options: CallFor = {}): Promise<IDataObject> {
	const server = await hostCloudServer(context, options.itemIndex);
	if (server.kind === 'selfHosted') return await selfHostedJob(context, promptId, options);
	return ownRecord(context, await readJobRecord(context, promptId, options), promptId, options.itemIndex);
}

/** The most interrupts one cancel sends (see cancelJobs). */
const MAX_INTERRUPTS = 5;

/**
 * The ids asked about that a cancel answer's `deleted` names, in the order asked; undefined when it
 * holds no list. The answer may be about another request (a proxy, a cache) or list every job ever
 * deleted: it never adds an id that was not asked about, nor passes on what is no id.
 */
function cancelledOf(answer: unknown, promptIds: string[]): string[] | undefined {
	const deleted = isRecord(answer) ? ownValue(answer, 'deleted') : undefined;
	if (!Array.isArray(deleted)) return undefined;
	const named = new Set(deleted.filter((id): id is string => typeof id === 'string'));
	return promptIds.filter((id) => named.has(id));
}

/**
 * Cancels jobs, queued or running, and nothing else. The cloud's queue delete does both. On a
 * self-hosted server the delete takes the pending ones off the queue, then the one running (if it
 * is one of them) is interrupted by its prompt_id: never a global interrupt, which would stop
 * someone else's job. `cancelled` lists those of `promptIds` that were queued or running, when known.
 */
export async function cancelJobs(
	context: IExecuteFunctions,
	promptIds: string[],
	options: CallFor = {},
): Promise<{ cancelled?: string[] }> {
	const server = await hostCloudServer(context, options.itemIndex);
	if (server.kind !== 'selfHosted') {
		const cancelled = cancelledOf(await deleteFromQueue(context, promptIds, options), promptIds);
		return cancelled ? { cancelled } : {};
	}
	// A clean-up call does not need to report, so it skips the first look.
	const before = options.cleanup ? undefined : queuedIds(await readQueue(context, { retry: true, ...options }));
	await deleteFromQueue(context, promptIds, options);
	// Read after the delete: a job that started meanwhile is running now, and is interrupted too.
	const running = queuedIds(await readQueue(context, { retry: true, ...options })).running.filter((id) => promptIds.includes(id));
	// Such a server runs one job at a time: a queue that claims more running is believed for a few
	// interrupts, never for as many as it lists (each is a bounded request, their sum would not be).
	for (const id of running.slice(0, MAX_INTERRUPTS)) await interruptJob(context, id, options);
	if (!before) return {};
	const wasQueued = new Set([...before.running, ...before.pending, ...running]);
	return { cancelled: promptIds.filter((id) => wasQueued.has(id)) };
}
