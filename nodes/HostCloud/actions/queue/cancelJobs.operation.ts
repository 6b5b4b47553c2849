import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runsAsTool, toolDescriptionProperty } from '../../../shared/tool-use';
import { cancelJobs } from '../../helpers/jobs/lookup';
import { readPromptIdList } from '../../helpers/jobs/prompt-id';
import { thisWorkflowId } from '../../helpers/ownership/job-tag';
import { cancellableByThisWorkflow, ENDED_BEFORE_CANCEL } from '../../helpers/ownership/own-jobs';
import { readQueue } from '../../transport/cloud-api';

const FIELD = 'Prompt IDs';

const properties: INodeProperties[] = [
	toolDescriptionProperty(
		'Cancels Host Cloud jobs that this workflow started, queued or running, given their prompt_ids, so they use no more credits; other jobs are not touched. Answers {"requested": [...], "cancelled": [...], "not_cancelled": [{"prompt_id", "reason"}]}: a job started elsewhere (another workflow, the editor) is refused, and a job that already finished cannot be cancelled.',
	),
	{
		displayName: FIELD,
		name: 'promptIds',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 6f1c2a9e-0b7d-4c52-9a57-2f0c3d1e8b44, 0d3e…',
		description: 'The prompt_id of each job to cancel, separated by commas or spaces (or a list from an expression)',
	},
];

export const description = updateDisplayOptions({ show: { resource: ['queue'], operation: ['cancelJobs'] } }, properties);

function readPromptIds(context: IExecuteFunctions, itemIndex: number): string[] {
	return readPromptIdList(context, itemIndex, { name: 'promptIds', field: FIELD, whereToFind: 'Queue → Get lists the jobs in the queue.' });
}

/**
 * As a tool: the queue is read first, and only the ids queued or running and started by this
 * workflow are cancelled; every other id is refused by name, and no cancel request names it.
 */
async function cancelOwnJobs(context: IExecuteFunctions, ids: string[], itemIndex: number): Promise<IDataObject> {
	const queue = await readQueue(context, { itemIndex, retry: true });
	const { allowed, refused } = cancellableByThisWorkflow(queue, ids, thisWorkflowId(context));
	if (allowed.length === 0) return { requested: ids, cancelled: [], not_cancelled: refused };
	const deleted = (await cancelJobs(context, allowed, { itemIndex })).cancelled;
	// A server that does not say which it cancelled: the answer says the cancel was sent, not that it took.
	if (!deleted) return { requested: ids, cancel_sent_for: allowed, not_cancelled: refused };
	const cancelled = allowed.filter((id) => deleted.includes(id));
	const ended = allowed.filter((id) => !deleted.includes(id)).map((id) => ({ prompt_id: id, reason: ENDED_BEFORE_CANCEL }));
	return { requested: ids, cancelled, not_cancelled: [...refused, ...ended] };
}

/**
 * POST /api/queue {delete: [...]}: cancels those jobs, queued or running (on a self-hosted server,
 * the running one is interrupted by its prompt_id). Other jobs are untouched.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const ids = readPromptIds(this, itemIndex);
	if (runsAsTool(this)) return [{ json: await cancelOwnJobs(this, ids, itemIndex) }];
	const deleted = (await cancelJobs(this, ids, { itemIndex })).cancelled;
	const json: IDataObject = { requested: ids };
	if (deleted) {
		json.cancelled = deleted;
		json.not_cancelled = ids.filter((id) => !deleted.includes(id));
	}
	return [{ json }];
}
