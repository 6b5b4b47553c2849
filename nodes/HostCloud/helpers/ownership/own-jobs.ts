/**
 * What a tool may see of the account's queue and cancel in it: only jobs whose tag names its own
 * workflow. An agent or MCP client must not read or stop work that other workflows (or people in
 * the editor) started; a job without a tag is nobody's it can prove, so it is left out too.
 */
import { isRecord, ownValue } from '../../../shared/validation';
import { jobTagOf, taggedWorkflowId } from './job-tag';

/** Why a tool does not cancel an id, as the answer names it. */
export const NOT_THIS_WORKFLOWS = 'not started by this workflow';
export const NOT_QUEUED = 'not queued or running (it may have finished already)';

/** Said when the workflow has no id (never saved), so none of the account's jobs can be shown to be its own. */
export const NO_WORKFLOW_ID =
	'This workflow has no id (it was never saved), so no job can be shown to be its own: save the workflow and run it again.';

/** The raw entries of a queue list (`queue_running` or `queue_pending`). */
export function entriesOf(queue: unknown, list: 'queue_running' | 'queue_pending'): unknown[] {
	const entries = isRecord(queue) ? queue[list] : undefined;
	return Array.isArray(entries) ? entries : [];
}

/** A queue entry `[number, prompt_id, prompt, extra_data, output node ids]` started by `workflowId`. */
function startedBy(entry: unknown, workflowId: string | undefined): boolean {
	return workflowId !== undefined && Array.isArray(entry) && taggedWorkflowId(entry[3]) === workflowId;
}

/** The queue's entries started by this workflow, and how many others were left out. */
export function ownQueue(queue: unknown, workflowId: string | undefined): { running: unknown[]; pending: unknown[]; leftOut: number } {
	const running = entriesOf(queue, 'queue_running');
	const pending = entriesOf(queue, 'queue_pending');
	const own = (entries: unknown[]) => entries.filter((entry) => startedBy(entry, workflowId));
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
	workflowId: string | undefined,
): { allowed: string[]; refused: Array<{ prompt_id: string; reason: string }> } {
	const queued = new Map<string, unknown>();
	for (const entry of [...entriesOf(queue, 'queue_running'), ...entriesOf(queue, 'queue_pending')]) {
		if (Array.isArray(entry) && typeof entry[1] === 'string') queued.set(entry[1], entry);
	}
	const allowed: string[] = [];
	const refused: Array<{ prompt_id: string; reason: string }> = [];
	for (const id of promptIds) {
		if (!queued.has(id)) refused.push({ prompt_id: id, reason: NOT_QUEUED });
		else if (!startedBy(queued.get(id), workflowId)) refused.push({ prompt_id: id, reason: NOT_THIS_WORKFLOWS });
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
	request_id?: string;
}

/** A tag's text field, when it is one (the service hands the tag back as it was sent, or not at all). */
function tagText(tag: Record<string, unknown>, key: string): string | undefined {
	const value = ownValue(tag, key);
	return typeof value === 'string' && value !== '' ? value.slice(0, 256) : undefined;
}

/**
 * The queue's jobs tagged with this execution id (and this workflow id, when given: two n8n
 * instances on one account both number their executions from 1). A job without a tag, or with
 * another execution's, is never among them.
 */
export function jobsOfExecution(queue: unknown, executionId: string, workflowId?: string): ExecutionJob[] {
	const jobs: ExecutionJob[] = [];
	const add = (entries: unknown[], state: ExecutionJob['state']) => {
		for (const entry of entries) {
			if (!Array.isArray(entry) || typeof entry[1] !== 'string') continue;
			const tag = jobTagOf(entry[3]);
			if (!tag || tagText(tag, 'execution_id') !== executionId) continue;
			if (workflowId !== undefined && tagText(tag, 'workflow_id') !== workflowId) continue;
			const itemIndex = ownValue(tag, 'item_index');
			jobs.push({
				prompt_id: entry[1].slice(0, 256),
				state,
				node_name: tagText(tag, 'node_name'),
				item_index: typeof itemIndex === 'number' ? itemIndex : undefined,
				operation: tagText(tag, 'operation'),
				request_id: tagText(tag, 'request_id'),
			});
		}
	};
	add(entriesOf(queue, 'queue_running'), 'running');
	add(entriesOf(queue, 'queue_pending'), 'queued');
	return jobs;
}
