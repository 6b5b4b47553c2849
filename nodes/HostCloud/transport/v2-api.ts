/**
 * The v2 jobs API, one function per endpoint the package uses: every HTTP call Host Cloud makes on a
 * Host Cloud V2 API credential is here, and goes through the one transport (`hostRequest`), which
 * applies the bearer key, waits out a 429 as its Retry-After asks, maps errors and redacts secrets.
 *
 * Paths are built under the credential's Base URL from ids (each checked as one path segment), never
 * taken from the links a server embeds (`job.urls`): a link could name another host, and the key goes
 * only to the address the user gave. A Base URL with a gateway's mount prefix already carries it, so
 * this reaches what the links name.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { pathSegment } from '../../shared/items/path-segment';
import { hostRequest, hostRequestFull, type HostResponse, type RunContext } from '../../shared/transport/transport';
import { call, type CallFor } from './cloud-api';
import { HOST_CLOUD_V2_API } from './v2-service';

const jobPath = (jobId: string) => `/api/v2/jobs/${pathSegment(jobId)}`;

/** What POST /api/v2/jobs sends: the API-format graph verbatim, and the closed extra_data (only the partner key). */
export interface V2JobBody extends IDataObject {
	workflow: IDataObject;
	extra_data?: { api_key_comfy_org: string };
}

/**
 * POST /api/v2/jobs with its single-use Idempotency-Key. Never retried here: whether a lost answer
 * made a job is the caller's to find out, sending the same key again (the server refuses a key it
 * has seen: never a second job).
 */
export async function postJob(context: IExecuteFunctions, body: V2JobBody, idempotencyKey: string, options: CallFor = {}): Promise<IDataObject> {
	return await hostRequest<IDataObject>(context, HOST_CLOUD_V2_API, {
		...call({ method: 'POST', path: '/api/v2/jobs', action: 'submitting the workflow', answer: 'object' }, { ...options, retry: false }),
		body,
		headers: { 'Idempotency-Key': idempotencyKey },
		// Stop during the submit: its answer still names the job, which the node then cancels.
		finishOnCancel: true,
	});
}

/** GET /api/v2/jobs/{id}: the job as it is now, the truth every wait rests on. */
export async function readJob(context: RunContext, jobId: string, options: CallFor = {}): Promise<IDataObject> {
	return await hostRequest<IDataObject>(
		context,
		HOST_CLOUD_V2_API,
		call({ method: 'GET', path: jobPath(jobId), action: `reading job ${jobId}`, answer: 'object' }, { retry: true, ...options }),
	);
}

/** POST /api/v2/jobs/{id}/cancel: idempotent (a finished job answers its terminal state), so safe to repeat. */
export async function cancelJob(context: RunContext, jobId: string, options: CallFor = {}): Promise<IDataObject> {
	return await hostRequest<IDataObject>(
		context,
		HOST_CLOUD_V2_API,
		call({ method: 'POST', path: `${jobPath(jobId)}/cancel`, action: `cancelling job ${jobId}`, answer: 'object' }, { retry: true, ...options }),
	);
}

/** GET /api/v2/jobs/{id}/workflow: `{workflow, format: 'save' | 'api'}`. */
export async function readJobWorkflow(context: RunContext, jobId: string, options: CallFor = {}): Promise<IDataObject> {
	return await hostRequest<IDataObject>(
		context,
		HOST_CLOUD_V2_API,
		call(
			{ method: 'GET', path: `${jobPath(jobId)}/workflow`, action: `reading the workflow of job ${jobId}`, answer: 'object' },
			{ retry: true, ...options },
		),
	);
}

/**
 * GET /api/v2/jobs/{id}/events: the job's Server-Sent Events, as a stream. A 501 not_implemented or
 * 429 too_many_streams is answered as it came (no body), not waited out: the caller's cue to poll at once.
 */
export async function openJobEvents(context: RunContext, jobId: string, options: CallFor = {}): Promise<HostResponse<unknown>> {
	return await hostRequestFull<unknown>(context, HOST_CLOUD_V2_API, {
		...call({ method: 'GET', path: `${jobPath(jobId)}/events`, action: `following job ${jobId}` }, { ...options, retry: false }),
		stream: true,
		headers: { Accept: 'text/event-stream' },
		answerStatuses: [429, 501],
	});
}

/** POST /api/v2/assets: one multipart upload (file, content_type, file_path, tags...), built by the caller, with its key. */
export async function postAsset(
	context: IExecuteFunctions,
	upload: { body: Buffer; contentType: string },
	idempotencyKey: string,
	options: CallFor & { action: string },
): Promise<IDataObject> {
	return await hostRequest<IDataObject>(context, HOST_CLOUD_V2_API, {
		...call({ method: 'POST', path: '/api/v2/assets', action: options.action, answer: 'object' }, { ...options, retry: false }),
		body: upload.body,
		headers: { 'Content-Type': upload.contentType, 'Idempotency-Key': idempotencyKey },
		json: false,
	});
}

/** GET /api/v2/assets/{id}: the asset record, with a fresh short-lived `url`. */
export async function readAsset(context: RunContext, assetId: string, options: CallFor = {}): Promise<IDataObject> {
	return await hostRequest<IDataObject>(
		context,
		HOST_CLOUD_V2_API,
		call(
			{ method: 'GET', path: `/api/v2/assets/${pathSegment(assetId)}`, action: `reading asset ${assetId}`, answer: 'object' },
			{ retry: true, ...options },
		),
	);
}

/**
 * GET /api/v2/assets/{id}/content: the bytes as a stream (self-hosted), or a 302 whose Location is a
 * signed URL (cloud, deployments), which is never followed with the key. `range`: `bytes=<from>-`.
 */
export async function readAssetContent(
	context: RunContext,
	assetId: string,
	options: CallFor & { action: string; range?: string },
): Promise<HostResponse<unknown>> {
	return await hostRequestFull<unknown>(context, HOST_CLOUD_V2_API, {
		...call({ method: 'GET', path: `/api/v2/assets/${pathSegment(assetId)}/content`, action: options.action }, { retry: true, ...options }),
		stream: true,
		manualRedirect: true,
		headers: { Accept: '*/*', ...(options.range ? { Range: options.range } : {}) },
	});
}
