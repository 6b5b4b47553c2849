/**
 * A finished job as the cloud tells of it when asked (the trigger's look after a gap, a test run):
 * how it ended, from its status, and its outputs and failure words, from its record. The listener
 * (cloud-listener.ts) decides when to ask; this file only reads the answers.
 */
import type { IDataObject, ITriggerFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { isRecord } from '../../../shared/items/validation';
import { errorInfoFrom } from '../job-reports/execution-errors';
import { cloudJobStateOf } from '../job-reports/job-state';
import { JobNotOnServerError, lookUpJobRecord, lookUpJobStatus } from '../job-reports/lookup';
import { endOf, type EndedJob, type JobEnd } from './ended-job';

/** The HTTP status a request failed with (0 when it got no answer). */
export const statusOf = (error: unknown): number => (error instanceof NodeApiError ? Number(error.httpCode) : 0);

/**
 * How a job ended, from its status; undefined while it runs, or when the read failed (asked again at
 * the next look); 'unknown' for a job the service does not know or will not tell of (no longer followed).
 */
export async function endFromStatus(
	context: ITriggerFunctions,
	promptId: string,
	stop: AbortSignal,
): Promise<JobEnd | 'unknown' | undefined> {
	const action = `reading the status of job ${promptId}`;
	const answer = await lookUpJobStatus(context, promptId, { retry: true, action, stop }).then(
		(body) => ({ body }),
		(error: Error) => ({ error }),
	);
	// Closed meanwhile: the read was ended on purpose, nothing to say of it.
	if (stop.aborted) return undefined;
	if ('body' in answer) return endOf(cloudJobStateOf(answer.body.status));
	const status = statusOf(answer.error);
	// Only a refused key is the account's problem; a job the service does not know, or will not
	// tell of, is forgotten; any other failure is asked again at the next look.
	if (status === 401) throw answer.error;
	if (status >= 400 && status < 500 && status !== 408 && status !== 429) {
		if (!(answer.error instanceof JobNotOnServerError) && status !== 404)
			context.logger.warn(`Host Cloud Trigger: job ${promptId} is no longer followed: ${answer.error.message}`);
		return 'unknown';
	}
	if (answer.error instanceof JobNotOnServerError) return 'unknown';
	context.logger.warn(`Host Cloud Trigger: ${answer.error.message}; asking again at the next look`);
	return undefined;
}

/** The job with its outputs (those heard, else its record's) and, for a failure, its record's words when none came. */
export async function withRecord(
	context: ITriggerFunctions,
	job: EndedJob,
	heardOutputs: Record<string, IDataObject> | false | undefined,
	stop: AbortSignal,
): Promise<EndedJob> {
	if (heardOutputs && (job.end !== 'failed' || job.error)) return { ...job, outputs: heardOutputs };
	let record: IDataObject | undefined;
	try {
		record = await lookUpJobRecord(context, job.promptId, { retry: true, action: `reading the record of job ${job.promptId}`, stop });
	} catch {
		// No record (the service may keep none, or answered about another job): the outputs are unknown, and said so.
	}
	// Only a record that says the job ended gives outputs (lookUpJobRecord answers none of another job's).
	const fromRecord = record && isRecord(record.outputs) && endOf(cloudJobStateOf(record.status));
	const outputs = heardOutputs || (fromRecord ? (record!.outputs as Record<string, unknown>) : undefined);
	const details = record?.execution_error ?? record?.error;
	const error = job.error ?? (job.end === 'failed' && isRecord(details) ? errorInfoFrom(details) : undefined);
	return { ...job, outputs, ...(error ? { error } : {}) };
}
