import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { clipText } from '../../../shared/transport/service-values';
import { booleanValue, isRecord, maxCharacters, optionalText, requiredText } from '../../../shared/items/validation';
import { cancelJobs } from '../../helpers/job-reports/lookup';
import { thisInstanceId } from '../../helpers/ownership/job-tag';
import { ENDED_BEFORE_CANCEL, isAwaitedOnly, isQueueAnswer, jobsOfExecution, type ExecutionJob } from '../../helpers/ownership/own-jobs';
import { readQueue } from '../../transport/cloud-api';
import type { GenerationRefusal } from '../../transport/v2-service';

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
		displayName: 'Also Cancel Jobs Left Running on Purpose',
		name: 'includeKept',
		type: 'boolean',
		default: false,
		description:
			"Whether to cancel jobs meant to outlive their wait too: those started with Submit (Don't Wait), and those Execute leaves running at Max Wait (On Timeout: Leave It Running). Their prompt_id was handed on and they may be awaited elsewhere, so they are left running unless this is on.",
	},
];

export const description = updateDisplayOptions({ show: { resource: ['queue'], operation: ['cancelExecutionJobs'] } }, properties);

/** Without a list of jobs or a tag on them, an execution's jobs cannot be found on v2 (`router.ts` refuses it there). */
export const notOnV2: GenerationRefusal = {
	why: 'the v2 API lists no jobs, and a v2 job carries no tag of the n8n execution that started it, so the jobs of an execution cannot be found',
	instead:
		'On v2, Execute cancels its own jobs when the execution is stopped or reaches Max Wait. To cancel other jobs, pass their job_id values to Queue → Cancel Jobs.',
};

/** Why a tool call cannot use this operation (it is hidden on the tool type, and refused). */
export const notAsTool =
	'Cancel Jobs of an Execution acts on an execution the agent does not run; an agent cancels the jobs it started with Cancel Jobs.';

/** At most this many jobs are named in each list of the answer; the counts say how many there were. */
const MAX_LISTED = 100;
/** Ids per cancel request: a long list goes in several requests, each a body of bounded size. */
const IDS_PER_CANCEL = 100;

/** The job as the answer reports it: its prompt_id first, what the tag says after. */
function reported(job: ExecutionJob): IDataObject {
	return Object.fromEntries(Object.entries(job).filter(([, value]) => value !== undefined)) as IDataObject;
}

function readOwner(context: IExecuteFunctions, itemIndex: number) {
	const field = (name: string) => context.getNodeParameter(name, itemIndex, '');
	const executionId = maxCharacters(
		context,
		itemIndex,
		EXECUTION_FIELD,
		requiredText(context, itemIndex, EXECUTION_FIELD, field('executionId')),
		MAX_ID_CHARS,
	);
	const workflowText = optionalText(context, itemIndex, WORKFLOW_FIELD, field('workflowId'));
	const workflowId = workflowText === '' ? undefined : maxCharacters(context, itemIndex, WORKFLOW_FIELD, workflowText, MAX_ID_CHARS);
	return { executionId, workflowId, instanceId: thisInstanceId(context) };
}

/** The queue, or an error that says the answer was no queue: "no job" must never be a guess. */
async function readQueueAnswer(context: IExecuteFunctions, itemIndex: number, executionId: string): Promise<unknown> {
	const queue = await readQueue(context, { itemIndex, retry: true });
	if (isQueueAnswer(queue)) return queue;
	const held = isRecord(queue)
		? Object.keys(queue)
				.slice(0, 5)
				.map((key) => clipText(key, 40))
				.join(', ')
		: typeof queue;
	throw new NodeOperationError(
		context.getNode(),
		`The service's queue answer holds no lists of running and pending jobs, so the jobs of execution ${executionId} could not be looked for`,
		{
			itemIndex,
			description: `It held: ${held || 'nothing'}. Nothing was cancelled. Try again; if it keeps answering so, cancel the jobs by their prompt_id (Queue → Cancel Jobs).`,
		},
	);
}

/** Cancels the jobs, a bounded number of ids per request; which the server said it cancelled, when it says. */
async function cancelInParts(context: IExecuteFunctions, jobs: ExecutionJob[], itemIndex: number): Promise<Set<string> | undefined> {
	let confirmed: Set<string> | undefined = new Set();
	for (let start = 0; start < jobs.length; start += IDS_PER_CANCEL) {
		const ids = jobs.slice(start, start + IDS_PER_CANCEL).map((job) => job.prompt_id);
		const { cancelled } = await cancelJobs(context, ids, { itemIndex });
		if (!cancelled) confirmed = undefined;
		else for (const id of cancelled) confirmed?.add(id);
	}
	return confirmed;
}

/** A list of the answer: at most MAX_LISTED jobs named, and how many were left out. */
function listed(json: IDataObject, key: string, jobs: IDataObject[]): void {
	if (jobs.length === 0) return;
	json[key] = jobs.slice(0, MAX_LISTED);
	if (jobs.length > MAX_LISTED) json[`${key}_not_listed`] = jobs.length - MAX_LISTED;
}

/** The answer in one line, naming the first ten jobs cancelled. */
function summary(executionId: string, found: number, cancelled: ExecutionJob[], confirmed: boolean): string {
	if (found === 0) return `No queued or running job was started by execution ${executionId}.`;
	const named = cancelled.slice(0, 10).map((job) => job.prompt_id);
	const list = named.length === 0 ? '' : `: ${named.join(', ')}${cancelled.length > named.length ? ', …' : ''}`;
	return `${confirmed ? 'Cancelled' : 'Asked the service to cancel'} ${cancelled.length} job(s) of execution ${executionId}${list}.`;
}

/**
 * Reads the account's queue (GET /api/queue), and cancels the queued and running jobs Execute
 * waited for whose tag (`extra_data.n8n`, set by every submit of this package) names that
 * execution: never another job, never one without a tag, and never one meant to outlive its wait
 * unless asked. Answers with each job found, by prompt_id.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const owner = readOwner(this, itemIndex);
	const includeKept = booleanValue(
		this,
		itemIndex,
		'Also Cancel Jobs Left Running on Purpose',
		this.getNodeParameter('includeKept', itemIndex, false),
	);
	const { jobs: found, unreadable } = jobsOfExecution(await readQueueAnswer(this, itemIndex, owner.executionId), owner);
	const toCancel = found.filter((job) => includeKept || isAwaitedOnly(job));
	const chosen = new Set(toCancel);
	const leftRunning = found.filter((job) => !chosen.has(job));
	const confirmed = toCancel.length > 0 ? await cancelInParts(this, toCancel, itemIndex) : new Set<string>();
	// A server that does not say which it cancelled: each was asked to stop, which the answer says.
	const cancelled = confirmed ? toCancel.filter((job) => confirmed.has(job.prompt_id)) : toCancel;
	const ended = confirmed ? toCancel.filter((job) => !confirmed.has(job.prompt_id)) : [];

	const json: IDataObject = { execution_id: owner.executionId, ...(owner.workflowId ? { workflow_id: owner.workflowId } : {}) };
	listed(json, 'cancelled', cancelled.map(reported));
	json.cancelled = json.cancelled ?? [];
	json.cancelled_count = cancelled.length;
	if (!confirmed) json.cancel_confirmed = false;
	listed(
		json,
		'not_cancelled',
		ended.map((job) => ({ ...reported(job), reason: ENDED_BEFORE_CANCEL })),
	);
	listed(json, 'left_running', leftRunning.map(reported));
	if (unreadable > 0) json.unreadable_queue_entries = unreadable;
	json.message = summary(owner.executionId, found.length, cancelled, confirmed !== undefined);
	return [{ json }];
}
