/**
 * What a tool may see of the account's queue and cancel in it: only jobs whose tag names its own
 * workflow. An agent or MCP client must not read or stop work that other workflows (or people in
 * the editor) started; a job without a tag is nobody's it can prove, so it is left out too.
 */
import { isRecord } from '../../../shared/validation';
import { taggedWorkflowId } from './job-tag';

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
