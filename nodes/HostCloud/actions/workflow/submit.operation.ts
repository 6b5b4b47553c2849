import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runsAsTool } from '../../../shared/tools/tool-use';
import { toolDescriptionsBy } from '../../../shared/descriptions/tool-options';
import { prepareWorkflow, uploadInputImages } from '../../helpers/submit/prepare-workflow';
import { submitWorkflow } from '../../helpers/submit/submit-workflow';
import { runningJobForTool } from '../../helpers/jobs/job-item';
import { jobsToTakeOver } from '../../helpers/ownership/item-submits';
import { submitFields, workflowProperties, SUBMIT_FIELDS } from '../common.descriptions';
import { uploadInputAssets } from '../../helpers/assets/upload-asset';
import { earlierSubmitOf } from '../../helpers/ownership/item-submits';
import { prepareV2Workflow, submitV2Job } from '../../helpers/v2-jobs/submit-job';
import { runningV2JobForTool } from '../../helpers/v2-jobs/job-item';
import { apiGenerationOf } from '../../transport/v2-service';

const TOOL_DESCRIPTION =
	'Starts generating images, video or audio by running a workflow on the Host cloud, with the inputs this tool asks for (such as a text prompt), and answers at once {"status": "running", "prompt_id", "message"}; every call starts a new paid job. The Host Cloud "Get Status" tool with that prompt_id waits for the job and returns its output files.';
// On v2 no tool reads a job by id (Get Status is refused there): the description names none.
const V2_TOOL_DESCRIPTION =
	'Starts generating images, video or audio by running a workflow on the Host cloud, with the inputs this tool asks for (such as a text prompt), and answers at once {"status": "running", "job_id", "prompt_id", "message"}; every call starts a new paid job. No tool can wait for the job or return its output files: they are collected outside this conversation by its job_id.';

const properties: INodeProperties[] = [
	...toolDescriptionsBy('apiGeneration', { v1: TOOL_DESCRIPTION, v2: V2_TOOL_DESCRIPTION }),
	...workflowProperties,
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: submitFields,
	},
];

export const description = updateDisplayOptions({ show: { resource: ['workflow'], operation: ['submit'] } }, properties);

/**
 * POST /api/prompt and return the prompt_id at once, without waiting for the job. On a Retry On
 * Fail, an item whose earlier try's submit answered (its job may have ended since: it was paid
 * for), or whose job is still queued or running, answers that job's prompt_id.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	if (apiGenerationOf(this, itemIndex) === 'v2') return await submitOnV2(this, itemIndex);
	const workflow = await prepareWorkflow(this, itemIndex, SUBMIT_FIELDS);
	// A tool may be called again in one run for a new job, so only a node's retry answers an earlier prompt_id.
	const earlier = (await jobsToTakeOver(this, [itemIndex], { answered: !runsAsTool(this) })).get(itemIndex);
	if (earlier && 'error' in earlier) throw earlier.error;
	if (!earlier) await uploadInputImages(this, workflow, itemIndex);
	const answer = earlier ? { prompt_id: earlier.promptId } : await submitWorkflow(this, workflow, itemIndex);
	if (runsAsTool(this)) return [runningJobForTool(answer.prompt_id, itemIndex)];
	const json: IDataObject = { prompt_id: answer.prompt_id, status: 'submitted' };
	if (answer.number !== undefined) json.number = answer.number;
	return [{ json }];
}

/**
 * On v2: POST /api/v2/jobs with the item try's Idempotency-Key; answers the job's id as job_id and
 * prompt_id. A node's Retry On Fail whose earlier try was answered answers that job again.
 */
async function submitOnV2(context: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const workflow = await prepareV2Workflow(context, itemIndex, SUBMIT_FIELDS);
	const earlier = runsAsTool(context) ? undefined : earlierSubmitOf(context, itemIndex)?.promptId;
	if (!earlier) await uploadInputAssets(context, workflow, itemIndex);
	const jobId = earlier ?? (await submitV2Job(context, workflow, itemIndex)).id;
	if (runsAsTool(context)) return [{ json: runningV2JobForTool(jobId), pairedItem: { item: itemIndex } }];
	return [{ json: { job_id: jobId, prompt_id: jobId, status: 'submitted' } }];
}
