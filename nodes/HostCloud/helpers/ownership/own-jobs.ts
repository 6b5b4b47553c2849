/**
 * What a tool may see of the account's queue and cancel in it: only jobs whose tag names its own
 * workflow and this n8n install. An agent or MCP client must not read or stop work that other
 * workflows, other installs (or people in the editor) started; a job without a tag, or whose tag
 * names no install, is nobody's it can prove, so it is left out too.
 */
import { pathSegmentProblem } from '../../../shared/items/path-segment';
import { isRecord, ownValue } from '../../../shared/items/validation';
import { jobTagOf, madeByThisInstall, taggedWorkflowId, type ThisWorkflow } from './job-tag';

/** Why a tool does not cancel an id, as the answer names it. */
export const NOT_THIS_WORKFLOWS = 'not started by this workflow';
export const NOT_QUEUED = 'not queued or running (it may have finished already)';
/** Why a job that was queued or running when the queue was read was not cancelled after all. */
export const ENDED_BEFORE_CANCEL = 'it ended before it could be cancelled';

/** Said when the workflow has no id (never saved), so none of the account's jobs can be shown to be its own. */
export const NO_WORKFLOW_ID =
	'This workflow has no id (it was never saved), so no job can be shown to be its own: save the workflow and run it again.';

/** The raw entries of a queue list (`queue_running` or `queue_pending`). */
export function entriesOf(queue: unknown, list: 'queue_running' | 'queue_pending'): unknown[] {
	const entries = isRecord(queue) ? queue[list] : undefined;
	return Array.isArray(entries) ? entries : [];
}

/** A queue entry `[number, prompt_id, prompt, extra_data, output node ids]` started by this workflow of this install. */
function startedBy(entry: unknown, { workflowId, instanceId }: ThisWorkflow): boolean {
	if (workflowId === undefined || !Array.isArray(entry) || taggedWorkflowId(entry[3]) !== workflowId) return false;
	return madeByThisInstall(jobTagOf(entry[3])!, instanceId);
}

/** The queue's entries started by this workflow, and how many others were left out. */
export function ownQueue(queue: unknown, workflow: ThisWorkflow): { running: unknown[]; pending: unknown[]; leftOut: number } {
	const running = entriesOf(queue, 'queue_running');
	const pending = entriesOf(queue, 'queue_pending');
	const own = (entries: unknown[]) => entries.filter((entry) => startedBy(entry, workflow));
	const kept = { running: own(running), pending: own(pending) };
	return { ...kept, leftOut: running.length + pending.length - kept.running.length - kept.pending.length };
}

/**
 * Splits the ids a tool asked to cancel: those queued or running and started by this workflow may
 * be cancelled; every other one is refused, with the reason.
 */
export function cancellableByThisWorkflow(
	queue: unknown,
	promptIds: string[],
	workflow: ThisWorkflow,
): { allowed: string[]; refused: Array<{ prompt_id: string; reason: string }> } {
	const queued = new Map<string, unknown>();
	for (const entry of [...entriesOf(queue, 'queue_running'), ...entriesOf(queue, 'queue_pending')]) {
		if (Array.isArray(entry) && typeof entry[1] === 'string') queued.set(entry[1], entry);
	}
	const allowed: string[] = [];
	const refused: Array<{ prompt_id: string; reason: string }> = [];
	for (const id of promptIds) {
		if (!queued.has(id)) refused.push({ prompt_id: id, reason: NOT_QUEUED });
		else if (!startedBy(queued.get(id), workflow)) refused.push({ prompt_id: id, reason: NOT_THIS_WORKFLOWS });
		else allowed.push(id);
	}
	return { allowed, refused };
}

/** A queued or running job whose tag names an execution, as Cancel Jobs of an Execution reports it. */
export interface ExecutionJob {
	prompt_id: string;
	state: 'running' | 'queued';
	node_name?: string;
	item_index?: number;
	operation?: string;
	/** Meant to outlive its wait (Submit, or left running at Max Wait): no orphan. */
	keep?: boolean;
	request_id?: string;
}

/** The longest prompt_id taken from a queue: a longer one is no id, and cutting it would cancel another. */
const MAX_PROMPT_ID_CHARS = 256;

/** Names an object already has: a service's answer may not pass one off as a prompt_id. */
const RESERVED_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

/** Whether a prompt_id read from a queue or history can name a job the node may follow or cancel. */
export const usablePromptId = (id: unknown): id is string =>
	typeof id === 'string' && id.length <= MAX_PROMPT_ID_CHARS && !RESERVED_NAMES.has(id) && !pathSegmentProblem(id);

/** A tag's text field, when it is one; control characters go, so the service cannot forge report lines. */
function tagText(tag: Record<string, unknown>, key: string): string | undefined {
	const value = ownValue(tag, key);
	if (typeof value !== 'string') return undefined;
	const text = value.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, MAX_PROMPT_ID_CHARS);
	return text === '' ? undefined : text;
}

/** Whether an answer is a queue: both lists, as lists (anything else cannot show that no job is there). */
export function isQueueAnswer(queue: unknown): boolean {
	return isRecord(queue) && Array.isArray(queue.queue_running) && Array.isArray(queue.queue_pending);
}

/** Which jobs belong to one execution: its id, and the workflow and n8n install when known. */
export interface ExecutionOwner {
	executionId: string;
	workflowId?: string;
	/** This n8n's instance id: a tag naming another install, or none, is not this install's execution. */
	instanceId?: string;
}

/**
 * The queue's jobs tagged with this execution id and this install's id (and this workflow id, when
 * given): two n8n installs on one account both number their executions from 1. A job without a
 * tag, whose tag names no install or another one, with another execution's, or whose prompt_id is
 * no id is never among them;
 * one listed twice counts once (running first). `unreadable` counts entries that could not be read.
 */
export function jobsOfExecution(queue: unknown, owner: ExecutionOwner): { jobs: ExecutionJob[]; unreadable: number } {
	const jobs = new Map<string, ExecutionJob>();
	let unreadable = 0;
	const add = (entries: unknown[], state: ExecutionJob['state']) => {
		for (const entry of entries) {
			const promptId = Array.isArray(entry) ? entry[1] : undefined;
			if (!usablePromptId(promptId)) {
				unreadable++;
				continue;
			}
			const tag = jobTagOf((entry as unknown[])[3]);
			if (!tag || tagText(tag, 'execution_id') !== owner.executionId || jobs.has(promptId)) continue;
			if (owner.workflowId !== undefined && tagText(tag, 'workflow_id') !== owner.workflowId) continue;
			if (!madeByThisInstall(tag, owner.instanceId)) continue;
			const itemIndex = ownValue(tag, 'item_index');
			jobs.set(promptId, {
				prompt_id: promptId,
				state,
				node_name: tagText(tag, 'node_name'),
				item_index: typeof itemIndex === 'number' && Number.isSafeInteger(itemIndex) ? itemIndex : undefined,
				operation: tagText(tag, 'operation'),
				keep: ownValue(tag, 'keep') === true ? true : undefined,
				request_id: tagText(tag, 'request_id'),
			});
		}
	};
	add(entriesOf(queue, 'queue_running'), 'running');
	add(entriesOf(queue, 'queue_pending'), 'queued');
	return { jobs: [...jobs.values()], unreadable };
}

/** An orphan to cancel: a job Execute waited for, not meant to outlive the wait (any other tag is left). */
export const isAwaitedOnly = (job: ExecutionJob): boolean => job.operation === 'execute' && job.keep !== true;
