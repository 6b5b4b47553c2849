import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { booleanValue, maxCharacters, optionalText, requiredText } from '../../../shared/validation';
import { cancelJobs } from '../../helpers/jobs/lookup';
import { jobsOfExecution, type ExecutionJob } from '../../helpers/ownership/own-jobs';
import { readQueue } from '../../transport/cloud-api';

const EXECUTION_FIELD = 'Execution ID';
const WORKFLOW_FIELD = 'Workflow ID';
/** Longer than any id n8n makes; the value is only compared, never sent. */
const MAX_ID_CHARS = 256;

const properties: INodeProperties[] = [
	{
		displayName:
			'For an Error Workflow: when an execution fails or crashes while it waits for a job (a worker or n8n was killed), this cancels the jobs it left queued or running, so they use no more credits. See the "cancel-orphaned-jobs" recipe.',
		name: 'orphanNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: EXECUTION_FIELD,
		name: 'executionId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 1234',
		description:
			'The n8n execution whose jobs to cancel: after an Error Trigger, map its execution ID (as the cancel-orphaned-jobs recipe does); by hand, an ID from the Executions list',
	},
	{
		displayName: WORKFLOW_FIELD,
		name: 'workflowId',
		type: 'string',
		default: '',
		placeholder: 'e.g. Ab12Cd34Ef56Gh78',
		description:
			'Cancel only jobs of this workflow too (after an Error Trigger, map its workflow ID). Leave empty to match the execution ID alone; give it when several n8n instances share one account, since each numbers its executions from 1.',
	},
	{
		displayName: 'Also Cancel Submitted Jobs',
		name: 'includeSubmitted',
		type: 'boolean',
		default: false,
		description:
			"Whether to cancel jobs started with Submit (Don't Wait) too. They hand their prompt_id on and may be awaited elsewhere (Get Status, Wait for Completion, another workflow), so they are left running unless this is on.",
	},
];

export const description = updateDisplayOptions({ show: { resource: ['queue'], operation: ['cancelExecutionJobs'] } }, properties);

/** Why a tool call cannot use this operation (it is hidden on the tool type, and refused). */
export const notAsTool =
	'Cancel Jobs of an Execution acts on an execution the agent does not run; an agent cancels the jobs it started with Cancel Jobs.';

/** The job as the answer reports it: its prompt_id first, what the tag says after. */
function reported(job: ExecutionJob): IDataObject {
	return Object.fromEntries(Object.entries(job).filter(([, value]) => value !== undefined)) as IDataObject;
}

/**
 * Reads the account's queue (GET /api/queue), and cancels the queued and running jobs whose tag
 * (`extra_data.n8n`, set by every submit of this package) names that execution: never another
 * job, and never one without a tag. Answers with each job found, by prompt_id.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const executionId = maxCharacters(
		this,
		itemIndex,
		EXECUTION_FIELD,
		requiredText(this, itemIndex, EXECUTION_FIELD, this.getNodeParameter('executionId', itemIndex, '')),
		MAX_ID_CHARS,
	);
	const workflowText = optionalText(this, itemIndex, WORKFLOW_FIELD, this.getNodeParameter('workflowId', itemIndex, ''));
	const workflowId = workflowText === '' ? undefined : maxCharacters(this, itemIndex, WORKFLOW_FIELD, workflowText, MAX_ID_CHARS);
	const includeSubmitted = booleanValue(
		this,
		itemIndex,
		'Also Cancel Submitted Jobs',
		this.getNodeParameter('includeSubmitted', itemIndex, false),
	);

	const found = jobsOfExecution(await readQueue(this, { itemIndex, retry: true }), executionId, workflowId);
	const toCancel = found.filter((job) => includeSubmitted || job.operation !== 'submit');
	const leftRunning = found.filter((job) => !toCancel.includes(job));
	const json: IDataObject = { execution_id: executionId, ...(workflowId ? { workflow_id: workflowId } : {}) };
	let cancelled = toCancel;
	let notCancelled: IDataObject[] = [];
	if (toCancel.length > 0) {
		const ids = toCancel.map((job) => job.prompt_id);
		const deleted = (await cancelJobs(this, ids, { itemIndex })).cancelled;
		// A server that does not say which it cancelled: every one named was asked to stop.
		if (deleted) {
			cancelled = toCancel.filter((job) => deleted.includes(job.prompt_id));
			notCancelled = toCancel
				.filter((job) => !deleted.includes(job.prompt_id))
				.map((job) => ({ ...reported(job), reason: 'it ended before it could be cancelled' }));
		}
	}
	json.cancelled = cancelled.map(reported);
	json.cancelled_count = cancelled.length;
	if (notCancelled.length > 0) json.not_cancelled = notCancelled;
	if (leftRunning.length > 0) json.left_running = leftRunning.map(reported);
	json.message =
		found.length === 0
			? `No queued or running job was started by execution ${executionId}.`
			: `Cancelled ${cancelled.length} job(s) of execution ${executionId}${cancelled.length > 0 ? `: ${cancelled.map((job) => job.prompt_id).join(', ')}` : ''}.`;
	return [{ json }];
}
