import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runsAsTool } from '../../../shared/tools/tool-use';
import { cancelJobs } from '../../helpers/job-reports/lookup';
import { type PromptIdList, readPromptIdList } from '../../helpers/job-reports/prompt-id';
import { thisWorkflow } from '../../helpers/ownership/job-tag';
import { cancellableByThisWorkflow, ENDED_BEFORE_CANCEL } from '../../helpers/ownership/own-jobs';
import { readQueue } from '../../transport/cloud-api';
import { toolDescriptionProperty } from '../../../shared/descriptions/tool-options';
import { promptIdListProperty } from '../common.descriptions';
import { cancelJob } from '../../transport/v2-api';
import { apiGenerationOf, V2_TOOL_SCOPE_LOST } from '../../transport/v2-service';
import { checkedJob } from '../../helpers/v2-jobs/job-record';

const PROMPT_IDS: PromptIdList = { name: 'promptIds', field: 'Prompt IDs', whereToFind: 'Queue → Get lists the jobs in the queue.' };

const properties: INodeProperties[] = [
	toolDescriptionProperty(
		'Cancels Host Cloud jobs that this workflow started, queued or running, given their prompt_ids, so they use no more credits; other jobs are not touched. Answers {"requested": [...], "cancelled": [...], "not_cancelled": [{"prompt_id", "reason"}]}: a job started elsewhere (another workflow, the editor) is refused, and a job that already finished cannot be cancelled.',
	),
	promptIdListProperty(PROMPT_IDS, 'to cancel'),
];

export const description = updateDisplayOptions({ show: { resource: ['queue'], operation: ['cancelJobs'] } }, properties);

/** As a tool on v2: a v2 job names no workflow that started it, so the tool's scope cannot be kept (`router.ts` refuses it there). */
export const notAsToolOnV2 = V2_TOOL_SCOPE_LOST;

/**
 * As a tool: the queue is read first, and only the ids queued or running and started by this
 * workflow are cancelled; every other id is refused by name, and no cancel request names it.
 */
async function cancelOwnJobs(context: IExecuteFunctions, ids: string[], itemIndex: number): Promise<IDataObject> {
	const queue = await readQueue(context, { itemIndex, retry: true });
	const { allowed, refused } = cancellableByThisWorkflow(queue, ids, thisWorkflow(context));
	if (allowed.length === 0) return { requested: ids, cancelled: [], not_cancelled: refused };
	const deleted = (await cancelJobs(context, allowed, { itemIndex })).cancelled;
	// A server that does not say which it cancelled: the answer says the cancel was sent, not that it took.
	if (!deleted) return { requested: ids, cancel_sent_for: allowed, not_cancelled: refused };
	const ended = allowed.filter((id) => !deleted.includes(id)).map((id) => ({ prompt_id: id, reason: ENDED_BEFORE_CANCEL }));
	return { requested: ids, cancelled: deleted, not_cancelled: [...refused, ...ended] };
}

/**
 * POST /api/queue {delete: [...]}: cancels those jobs, queued or running (on a self-hosted server,
 * the running one is interrupted by its prompt_id). Other jobs are untouched.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	if (apiGenerationOf(this, itemIndex) === 'v2') return await cancelOnV2(this, itemIndex);
	const ids = readPromptIdList(this, itemIndex, PROMPT_IDS);
	if (runsAsTool(this)) return [{ json: await cancelOwnJobs(this, ids, itemIndex) }];
	const deleted = (await cancelJobs(this, ids, { itemIndex })).cancelled;
	const json: IDataObject = { requested: ids };
	if (deleted) {
		json.cancelled = deleted;
		json.not_cancelled = ids.filter((id) => !deleted.includes(id));
	}
	return [{ json }];
}

/**
 * On v2, POST /api/v2/jobs/{id}/cancel for each id (job ids), one at a time: each answers the job,
 * checked to be about it, whose status says what came of the cancel (`canceling` until the next
 * node boundary, or the state a finished job ended in).
 */
async function cancelOnV2(context: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const ids = readPromptIdList(context, itemIndex, { ...PROMPT_IDS, whereToFind: 'Submit answers each job id as job_id and prompt_id.' });
	const jobs: IDataObject[] = [];
	for (const id of ids) {
		const job = checkedJob(context, await cancelJob(context, id, { itemIndex }), id, itemIndex);
		jobs.push({ job_id: job.id, prompt_id: job.id, status: job.status });
	}
	return [{ json: { requested: ids, jobs } }];
}
