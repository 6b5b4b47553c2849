import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runPerItem } from '../../../shared/items/items';
import { clipText } from '../../../shared/transport/service-values';
import { cloudJobStateOf } from '../../helpers/job-reports/job-state';
import { describeToolAnswer } from '../../../shared/tools/tool-result';
import { runsAsTool } from '../../../shared/tools/tool-use';
import { filesItem } from '../../helpers/job-reports/files-item';
import { lookUpJobRecord, lookUpJobStatus } from '../../helpers/job-reports/lookup';
import { readPromptId } from '../../helpers/job-reports/prompt-id';
import { followJobs } from '../../helpers/jobs/run-jobs';
import { NOT_AS_TOOL, toolDescriptionProperty, toolWaitProperty } from '../../../shared/descriptions/tool-options';
import { onGeneration, promptIdProperty, WAIT_FIELDS } from '../common.descriptions';
import { readJob } from '../../transport/v2-api';
import { apiGenerationOf, V2_TOOL_SCOPE_LOST } from '../../transport/v2-service';
import { checkedJob } from '../../helpers/v2-jobs/job-record';
import { jobFields, outputGroups } from '../../helpers/v2-jobs/job-item';

const TOOL_DESCRIPTION = `Checks a Host Cloud job started earlier (by the tool that generates images, video or audio), given its prompt_id: waits for it to finish, then returns its output files. ${describeToolAnswer(['prompt_id'], 'calling this tool again')}`;

const properties: INodeProperties[] = [
	toolDescriptionProperty(TOOL_DESCRIPTION),
	promptIdProperty,
	toolWaitProperty(),
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		// A tool call always gets the outputs of a completed job, and so does v2 (its job record carries them): nothing to add there.
		displayOptions: { ...NOT_AS_TOOL, ...onGeneration('v1') },
		options: [
			{
				displayName: 'Include Output Files',
				name: 'includeOutputs',
				type: 'boolean',
				default: false,
				description: 'Whether to list the output files with download URLs once the job has completed (read from the job record)',
			},
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['workflow'], operation: ['getStatus'] } }, properties);

/** As a tool on v2: a v2 job names no workflow that started it, so the tool's scope cannot be kept (`router.ts` refuses it there). */
export const notAsToolOnV2 = V2_TOOL_SCOPE_LOST;

/**
 * Called as a tool, the status of a job is what an agent needs to go on: it waits (up to Tool Wait)
 * for the job to finish and answers its outputs, as Wait for Completion does, since a model cannot
 * pause between two checks.
 */
export async function executeAll(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	if (runsAsTool(this)) return await followJobs(this, items, WAIT_FIELDS);
	return await runPerItem(this, execute);
}

/** GET /api/job/{prompt_id}/status, with the status word as the service sent it and what it means. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	if (apiGenerationOf(this, itemIndex) === 'v2') return await statusOnV2(this, itemIndex);
	const promptId = readPromptId(this, itemIndex);
	const answer = await lookUpJobStatus(this, promptId, { itemIndex, retry: true });
	const state = cloudJobStateOf(answer?.status);
	// The word as sent, clipped: a word, never a text.
	const status = typeof answer?.status === 'string' ? clipText(answer.status, 100) : (answer?.status ?? null);
	const json: IDataObject = { prompt_id: promptId, status, state, finished: state !== 'running' };
	const includeOutputs = (this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject).includeOutputs === true;
	if (includeOutputs && state === 'completed') {
		// A self-hosted server's answer is already the record (read from its history).
		const record = 'outputs' in answer ? answer : await lookUpJobRecord(this, promptId, { itemIndex });
		const outputs = record?.outputs;
		if (typeof outputs === 'object' && outputs !== null && !Array.isArray(outputs)) {
			Object.assign(json, (await filesItem(this, outputs as Record<string, unknown>, itemIndex, promptId, undefined)).json);
		} else {
			json.outputs_available = false;
		}
	}
	return [{ json }];
}

/**
 * On v2, GET /api/v2/jobs/{id}, checked to be about that job: its status and what it means, its
 * progress, its outputs so far (they populate while it runs) and its error.
 */
async function statusOnV2(context: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const jobId = readPromptId(context, itemIndex);
	const job = checkedJob(context, await readJob(context, jobId, { itemIndex }), jobId, itemIndex);
	const state = job.status === 'succeeded' ? 'completed' : ['queued', 'running', 'canceling'].includes(job.status) ? 'running' : job.status;
	const json: IDataObject = {
		...jobFields(job),
		state,
		finished: state !== 'running',
		progress: job.progress,
		queue_position: job.queue_position,
	};
	// Not `error`: on an item n8n reads that key as the node's own failure (Continue On Fail, the error output).
	json.job_error = job.error;
	Object.assign(json, outputGroups(job));
	return [{ json }];
}
