/**
 * What the watcher reads or asks of the service when the progress socket cannot tell it: outputs
 * and failure details from the job record, cancelling the node's own jobs when it stops early, and
 * whether a job it follows was submitted by this execution.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { cloudJobStateOf, type CloudJobState } from '../job-reports/job-state';
import { isRecord } from '../../../shared/items/validation';
import { readQueue } from '../../transport/cloud-api';
import { errorInfoFrom, type ExecutionErrorInfo } from '../job-reports/execution-errors';
import { pause } from '../../../shared/waits/pause';
import { queuedByRequestId, queuedJobOf, type SubmitToFind } from '../ownership/find-by-request';
import { forgetSubmit } from '../ownership/item-submits';
import { SECOND_LOOK_MS } from '../ownership/lost-submit';
import { thisExecutionId, thisWorkflow } from '../ownership/job-tag';
import { jobsOfExecution } from '../ownership/own-jobs';
import { AnswerAboutAnotherJobError, cancelJobs, JobNotOnServerError, lookUpJobRecord, lookUpJobStatus } from '../job-reports/lookup';
import type { WatchSettings } from './tracked-job';

/**
 * A job's state from the status endpoint or a self-hosted server's history and queue (its raw word
 * kept as `lastStatus`). An answer that is unknown for now (network, 5xx) is `{}`: ask again
 * later. A job the server does not know, or any other refusal (a key, account or request problem),
 * is a `problem` that ends the wait.
 */
export async function readJobState(
	context: IExecuteFunctions,
	job: { promptId: string; itemIndex: number; lastStatus?: string; lastProblem?: string; deadline?: number },
): Promise<{ state: CloudJobState } | { problem: 'notFound' | NodeApiError } | Record<string, never>> {
	try {
		// A wait the service asks for ends within the job's Max Wait.
		const body = await lookUpJobStatus(context, job.promptId, { itemIndex: job.itemIndex, deadline: job.deadline });
		job.lastStatus = typeof body?.status === 'string' ? body.status : undefined;
		job.lastProblem = undefined;
		return { state: cloudJobStateOf(body?.status) };
	} catch (error) {
		// An answer about another job tells nothing of this one: asked again, and named at Max Wait.
		if (error instanceof AnswerAboutAnotherJobError) job.lastProblem = error.message;
		const status = error instanceof NodeApiError ? Number(error.httpCode) : 0;
		if (status === 404 || error instanceof JobNotOnServerError) return { problem: 'notFound' };
		// Any other refusal (a 4xx but 408, the service's own time-out) will not change by asking again.
		if (status >= 400 && status < 500 && status !== 408) return { problem: error as NodeApiError };
		return {};
	}
}

/**
 * A finished job's outputs from its record (the real service lists them once the job is over; a
 * self-hosted server, in its history), or no outputs when the record does not list them (or the
 * service has no job records). The record may lag behind the socket for a moment, and an answer
 * about another job says nothing of this one: it is asked again a few times, with `pause`
 * between, until `over` says the wait ended meanwhile. Any other error is answered as `failure`,
 * as is an answer that stayed about another job.
 */
export async function outputsFromRecord(
	context: IExecuteFunctions,
	promptId: string,
	itemIndex: number,
	wait: { over: () => boolean; pause: () => Promise<void> },
): Promise<{ outputs?: Record<string, IDataObject> } | { failure: unknown }> {
	let aboutAnother: AnswerAboutAnotherJobError | undefined;
	for (let attempt = 0; attempt < 4 && !wait.over(); attempt++) {
		let record: IDataObject | undefined;
		try {
			record = await lookUpJobRecord(context, promptId, { itemIndex });
			aboutAnother = undefined;
		} catch (error) {
			const status = error instanceof NodeApiError ? Number(error.httpCode) : 0;
			if (error instanceof AnswerAboutAnotherJobError) aboutAnother = error;
			else return status === 404 || status === 405 || error instanceof JobNotOnServerError ? {} : { failure: error };
		}
		// Only a record that says the job completed gives outputs; one that cannot say so yet is read again.
		const state = cloudJobStateOf(record?.status);
		if (isRecord(record?.outputs) && state === 'completed') return { outputs: record.outputs as Record<string, IDataObject> };
		if (record && state !== 'running') return {};
		await wait.pause();
	}
	return aboutAnother ? { failure: aboutAnother } : {};
}

/** Why a job failed, from its record, when the socket did not say; undefined when the record cannot tell. */
export async function failureFromRecord(
	context: IExecuteFunctions,
	promptId: string,
	itemIndex: number,
): Promise<ExecutionErrorInfo | undefined> {
	try {
		const record = await lookUpJobRecord(context, promptId, { itemIndex, action: `reading why job ${promptId} failed` });
		const details = record?.execution_error ?? record?.error;
		return isRecord(details) ? errorInfoFrom(details) : undefined;
	} catch {
		// The failure itself is reported without the service's details.
		return undefined;
	}
}

/** Cancels the node's own jobs (never the account's other work); a failure is logged, not thrown. */
export async function cancelOwnJobs(context: IExecuteFunctions, promptIds: string[]): Promise<void> {
	if (promptIds.length === 0) return;
	try {
		await cancelJobs(context, promptIds, { cleanup: true, action: 'cancelling the jobs this node started' });
	} catch (error) {
		context.logger?.warn?.(`Host Cloud: could not cancel jobs ${promptIds.join(', ')}: ${(error as Error).message}`);
	}
}

/**
 * Whether the queue lists `promptId` with a tag of this execution (and this workflow and n8n
 * install): a job given by its prompt_id that this execution did not submit is someone else's. A
 * queue that cannot be read proves nothing, so the answer is then no.
 */
async function submittedByThisExecution(context: IExecuteFunctions, promptId: string): Promise<boolean> {
	const executionId = thisExecutionId(context);
	if (executionId === undefined) return false;
	try {
		const queue = await readQueue(context, { cleanup: true, action: `looking up who submitted job ${promptId}` });
		const { jobs } = jobsOfExecution(queue, { executionId, ...thisWorkflow(context) });
		return jobs.some((job) => job.prompt_id === promptId);
	} catch (error) {
		context.logger?.warn?.(`Host Cloud: could not read the queue to learn who submitted job ${promptId}: ${(error as Error).message}`);
		return false;
	}
}

/**
 * What Max Wait does to a job: On Timeout decides for the jobs this run submitted (`ownsJobs`); a
 * job it only follows (Wait for Completion) is someone else's unless this execution submitted it,
 * and is cancelled then, or when the user allowed cancelling jobs started elsewhere.
 */
export async function fateAtMaxWait(
	context: IExecuteFunctions,
	settings: Pick<WatchSettings, 'cancelOnTimeout' | 'cancelStartedElsewhere'>,
	ownsJobs: boolean,
	promptId: string,
): Promise<'cancelled' | 'leftRunning' | 'startedElsewhere'> {
	if (!settings.cancelOnTimeout) return 'leftRunning';
	if (ownsJobs || settings.cancelStartedElsewhere) return 'cancelled';
	return (await submittedByThisExecution(context, promptId)) ? 'cancelled' : 'startedElsewhere';
}

/** The jobs the queue lists for `submits` of this run (found by their request ids), other than `known`; none when it cannot be read (logged). */
async function unansweredSubmissions(
	context: IExecuteFunctions,
	submits: SubmitToFind[],
	known: string[],
): Promise<Array<{ submit: SubmitToFind; promptId: string }>> {
	let queue: IDataObject | undefined;
	try {
		queue = await readQueue(context, { cleanup: true, action: 'looking for jobs this node started' });
	} catch (error) {
		context.logger?.warn?.(`Host Cloud: could not read the queue to cancel this node's jobs: ${(error as Error).message}`);
		return [];
	}
	const queued = queuedByRequestId(queue);
	return submits.flatMap((submit) => {
		const job = queuedJobOf(context, queued, submit);
		return job && !known.includes(job.promptId) ? [{ submit, promptId: job.promptId }] : [];
	});
}

/** Cancels the jobs the queue lists for `submits` (other than `known`) and forgets their items' submits; answers the submits found. */
async function cancelListed(context: IExecuteFunctions, submits: SubmitToFind[], known: string[]): Promise<SubmitToFind[]> {
	const found = await unansweredSubmissions(context, submits, known);
	await cancelOwnJobs(
		context,
		found.map((job) => job.promptId),
	);
	// Forgotten, so Execute's last look for a lost submit does not cancel the job twice.
	for (const { submit } of found) forgetSubmit(context, submit.itemIndex);
	return found.map((job) => job.submit);
}

/**
 * Cancels the jobs of `submits` whose answers had not come when the run was stopped or failed,
 * found in the queue by request id, other than `known`. After a Stop (which cut those submits
 * short), the ones not found are looked for once more SECOND_LOOK_MS later, as a lost submit is: a
 * queue may list a job a moment late. That pause is a clean-up's, which the stop does not end.
 */
export async function cancelUnansweredSubmissions(
	context: IExecuteFunctions,
	submits: SubmitToFind[],
	known: string[],
	stopped: boolean,
): Promise<void> {
	if (submits.length === 0) return;
	const found = await cancelListed(context, submits, known);
	const left = submits.filter((submit) => !found.includes(submit));
	if (!stopped || left.length === 0) return;
	await pause(SECOND_LOOK_MS);
	await cancelListed(context, left, known);
}
