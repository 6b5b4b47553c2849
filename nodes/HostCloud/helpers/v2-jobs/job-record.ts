/**
 * v2-jobs/: Host Cloud's jobs on the v2 API (`POST /api/v2/jobs`, `GET /api/v2/jobs/{id}`, its
 * event stream, cancel), from submit to output item, for Execute, Submit, Wait for Completion, Get
 * Status and Cancel Jobs on a Host Cloud V2 API credential. It may call ownership/ (each item's
 * submit and key, for Retry On Fail), assets/ (an output's bytes), submit/ (the prepared workflow's
 * type), transport/ and nodes/shared; never jobs/ (the v1 watcher): the operation reads the wait
 * settings and hands them in. No other helper folder calls it.
 *
 * A job as the v2 API answers it, checked before it is believed: about the job asked for, its
 * status one of the contract's, its outputs a list of Output objects. An answer of another shape
 * or about another job is an error that says so, never data.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isPlainObject } from '../../../shared/items/validation';
import { clipText } from '../../../shared/transport/service-values';

export const JOB_STATUSES = ['queued', 'running', 'canceling', 'succeeded', 'failed', 'canceled', 'expired'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** What each status means to a wait: still running, done, or ended without its outputs. */
export function jobPhase(status: JobStatus): 'running' | 'succeeded' | 'ended' {
	if (status === 'succeeded') return 'succeeded';
	return status === 'queued' || status === 'running' || status === 'canceling' ? 'running' : 'ended';
}

/** One output of a job (an asset): the fields the package reads, checked. */
export interface JobOutput {
	id: string;
	node_id: string;
	name: string;
	type: string;
	content_type: string;
	size_bytes: number;
	url: string;
	url_expires_at: string;
	hash: string | null;
}

export interface V2Job {
	id: string;
	status: JobStatus;
	outputs: JobOutput[];
	error: IDataObject | null;
	progress: IDataObject | null;
	queue_position: number | null;
	created_at?: string;
	completed_at?: string | null;
	expires_at?: string;
}

const OUTPUT_STRINGS = ['id', 'node_id', 'name', 'type', 'content_type', 'url', 'url_expires_at'] as const;

/** What is wrong with an output, or undefined when it is one. */
function outputProblem(value: unknown): string | undefined {
	if (!isPlainObject(value)) return 'an output is not an object';
	const output = value as IDataObject;
	const missing = OUTPUT_STRINGS.find((key) => typeof output[key] !== 'string' || output[key] === '');
	if (missing) return `an output has no ${missing}`;
	if (typeof output.size_bytes !== 'number' || !Number.isSafeInteger(output.size_bytes) || output.size_bytes < 0)
		return 'an output has no size_bytes';
	return undefined;
}

/** What is wrong with an answer said to be job `askedId`, or undefined when it is that job. */
export function jobAnswerProblem(answer: unknown, askedId: string): string | undefined {
	if (!isPlainObject(answer)) return 'it is not a job';
	const job = answer as IDataObject;
	if (typeof job.id !== 'string' || job.id === '') return 'it names no job id';
	if (job.id !== askedId) return `it is about another job (${clipText(job.id, 80)})`;
	if (!JOB_STATUSES.includes(job.status as JobStatus))
		return `its status ${clipText(JSON.stringify(job.status) ?? '', 60)} is not one a job can have`;
	if (!Array.isArray(job.outputs)) return 'its outputs are not a list';
	const bad = job.outputs.map(outputProblem).find((problem) => problem !== undefined);
	if (bad) return bad;
	if (job.error !== null && job.error !== undefined && !isPlainObject(job.error)) return 'its error is not an object';
	return undefined;
}

/** The answer as job `askedId`, or an error naming the job and what was wrong with the answer. */
export function checkedJob(context: IExecuteFunctions, answer: unknown, askedId: string, itemIndex: number): V2Job {
	const problem = jobAnswerProblem(answer, askedId);
	if (problem) {
		throw new NodeOperationError(context.getNode(), `The v2 API's answer about job ${askedId} cannot be used: ${problem}`, {
			itemIndex,
			description: "The server answered something other than this job. Check that the credential's Base URL points at a v2 API.",
		});
	}
	const job = answer as IDataObject;
	return {
		...(job as unknown as V2Job),
		error: (job.error as IDataObject | null | undefined) ?? null,
		progress: isPlainObject(job.progress) ? (job.progress as IDataObject) : null,
		queue_position: typeof job.queue_position === 'number' ? job.queue_position : null,
	};
}

const ENDED_WORDS: Record<string, string> = {
	failed: 'failed',
	canceled: 'was cancelled',
	expired: 'expired before it finished (past its retention)',
};

/** A string field of a job's error, clipped (a server's words, never a flood), or undefined. */
function said(error: IDataObject | null, key: string, max = 500): string | undefined {
	const value = error?.[key];
	return typeof value === 'string' && value !== '' ? clipText(value, max) : undefined;
}

/**
 * The error of a job that ended without its outputs, in words, as v1's execution errors: its
 * status, the node it failed at and that node's class, the error's code and message. Its context
 * names the job (`job_id`, `prompt_id`) and the error's parts, for the failed item.
 */
export function endedJobError(context: IExecuteFunctions, job: V2Job, itemIndex: number): NodeOperationError {
	const nodeId = said(job.error, 'node_id', 80);
	const classType = said(job.error, 'class_type', 120);
	const at = nodeId ? ` at node ${nodeId}${classType ? ` (${classType})` : ''}` : '';
	const code = said(job.error, 'code', 80);
	const message = said(job.error, 'message');
	const words = [code, message].filter(Boolean).join(': ');
	const error = new NodeOperationError(
		context.getNode(),
		`Job ${job.id} ${ENDED_WORDS[job.status] ?? job.status}${at}${words ? `: ${words}` : ''}`,
		{
			itemIndex,
			description:
				job.status === 'failed'
					? 'Open the workflow in the editor and check that node and its inputs, then run again.'
					: job.status === 'expired'
						? 'The job was kept past its retention. Run again.'
						: 'Someone or something cancelled it. Run again to start a new job.',
		},
	);
	Object.assign(error.context, {
		job_id: job.id,
		prompt_id: job.id,
		status: job.status,
		...(code ? { error_code: code } : {}),
		...(nodeId ? { node_id: nodeId } : {}),
		...(classType ? { class_type: classType } : {}),
	});
	return error;
}
