/**
 * The graph server's API, one function per endpoint: every HTTP call Host Cloud makes is here, and
 * goes through the package's one transport (`hostRequest`), which applies the credential (the
 * cloud's API key, or a self-hosted server's proxy headers), maps errors and redacts secrets.
 * The cloud and a self-hosted ComfyUI-compatible server share these routes; where one lacks a
 * route (the cloud's job status and record, the server's history), `helpers/job-reports/lookup.ts` picks.
 *
 * Not here: fetching a cloud file's signed storage URL (the Location of GET /api/view). That goes
 * through `shared/binary/binary.ts` `downloadToBinary`, a plain request with no credential, because the
 * storage host must never see the API key. The progress WebSocket is opened by `helpers/progress-socket/progress-socket.ts`.
 */
import type { IDataObject, IExecuteFunctions, ILoadOptionsFunctions } from 'n8n-workflow';

import type { CloudServer } from '../../../credentials/cloud-server';
import { pathSegment } from '../../shared/items/path-segment';
import { hostRequest, hostRequestFull, type HostResponse, type RunContext } from '../../shared/transport/transport';
import { HOST_CLOUD_API, hostCloudServer } from './cloud-service';

type CloudContext = IExecuteFunctions | ILoadOptionsFunctions;

/** Where a call is made from: its item (messages carry it) and, when the caller can say better, what it does. */
export interface CallFor {
	itemIndex?: number;
	/** What the call does, for error messages ("reading the status of job …"). */
	action?: string;
	/** Repeat on 5xx and network errors: reads are safe to repeat. */
	retry?: boolean;
	/**
	 * A clean-up call made because the execution was cancelled (cancelling the node's own jobs):
	 * sent even so, with a short timeout.
	 */
	cleanup?: boolean;
	/** Ends the call when this aborts: a trigger that is closed leaves no request waiting on a silent service. */
	stop?: AbortSignal;
	/** When a wait the service asks for must be over: the job's Max Wait. */
	deadline?: number;
}

const CLEANUP_TIMEOUT_MS = 10_000;

/** A request as the transport takes it, from what the endpoint asks and what its caller says (v1's and v2's endpoints alike). */
export function call(request: { method: 'GET' | 'HEAD' | 'POST'; path: string; action: string; answer?: 'object' }, options: CallFor) {
	return {
		...request,
		itemIndex: options.itemIndex,
		action: options.action ?? request.action,
		retry: options.retry,
		stop: options.stop,
		deadline: options.deadline,
		...(options.cleanup ? { ignoreCancel: true, timeout: CLEANUP_TIMEOUT_MS } : {}),
	};
}

export interface SubmitBody extends IDataObject {
	prompt: IDataObject;
	extra_data: IDataObject;
	client_id?: string;
}

/** POST /api/prompt. Never retried: a second POST could run the workflow twice. */
export async function submitPrompt(context: IExecuteFunctions, body: SubmitBody, itemIndex: number): Promise<IDataObject> {
	return await hostRequest<IDataObject>(context, HOST_CLOUD_API, {
		method: 'POST',
		path: '/api/prompt',
		body,
		itemIndex,
		action: 'submitting the workflow',
		answer: 'object',
	});
}

/** GET /api/job/{prompt_id}/status: `{status}`. */
export async function readJobStatus(context: RunContext, promptId: string, options: CallFor = {}): Promise<IDataObject> {
	const path = `/api/job/${pathSegment(promptId)}/status`;
	return await hostRequest<IDataObject>(
		context,
		HOST_CLOUD_API,
		call({ method: 'GET', path, action: `reading the status of job ${promptId}`, answer: 'object' }, options),
	);
}

/** GET /api/jobs/{prompt_id}: the job record (the real service lists `outputs` there once the job is over). */
export async function readJobRecord(context: RunContext, promptId: string, options: CallFor = {}): Promise<IDataObject> {
	const path = `/api/jobs/${pathSegment(promptId)}`;
	const action = `reading the outputs of job ${promptId}`;
	return await hostRequest<IDataObject>(
		context,
		HOST_CLOUD_API,
		call({ method: 'GET', path, action, answer: 'object' }, { retry: true, ...options }),
	);
}

/** GET /api/queue: `{queue_running, queue_pending}`. */
export async function readQueue(context: RunContext, options: CallFor = {}): Promise<IDataObject> {
	return await hostRequest<IDataObject>(
		context,
		HOST_CLOUD_API,
		call({ method: 'GET', path: '/api/queue', action: 'reading the queue' }, options),
	);
}

/** POST /api/queue {delete}: cancels those jobs, queued or running; the account's other jobs are untouched. */
export async function deleteFromQueue(context: IExecuteFunctions, promptIds: string[], options: CallFor = {}): Promise<IDataObject> {
	return await hostRequest<IDataObject>(context, HOST_CLOUD_API, {
		...call({ method: 'POST', path: '/api/queue', action: 'cancelling jobs' }, options),
		body: { delete: promptIds },
	});
}

/** POST /api/interrupt: stops every running job of the account, so only the explicit operation calls it. */
export async function interruptRunning(context: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	return await hostRequest<IDataObject>(
		context,
		HOST_CLOUD_API,
		call({ method: 'POST', path: '/api/interrupt', action: 'interrupting the running jobs' }, { itemIndex }),
	);
}

/** POST /api/interrupt {prompt_id} (self-hosted): stops that job if it is the one running, and nothing else. */
export async function interruptJob(context: IExecuteFunctions, promptId: string, options: CallFor = {}): Promise<unknown> {
	return await hostRequest<unknown>(context, HOST_CLOUD_API, {
		...call({ method: 'POST', path: '/api/interrupt', action: `interrupting job ${promptId}` }, options),
		body: { prompt_id: promptId },
	});
}

/** GET /api/history/{prompt_id} (self-hosted): `{[prompt_id]: entry}` once the job is over, `{}` before. */
export async function readHistory(context: RunContext, promptId: string, options: CallFor = {}): Promise<IDataObject> {
	const path = `/api/history/${pathSegment(promptId)}`;
	const action = `reading the history of job ${promptId}`;
	return await hostRequest<IDataObject>(
		context,
		HOST_CLOUD_API,
		call({ method: 'GET', path, action, answer: 'object' }, { retry: true, ...options }),
	);
}

/** GET /api/history?max_items (self-hosted): the `maxItems` jobs that ended last, `{[prompt_id]: entry}`. */
export async function readRecentHistory(context: RunContext, maxItems: number, options: CallFor = {}): Promise<IDataObject> {
	return await hostRequest<IDataObject>(context, HOST_CLOUD_API, {
		...call({ method: 'GET', path: '/api/history', action: 'reading the history', answer: 'object' }, { retry: true, ...options }),
		qs: { max_items: maxItems },
	});
}

/** POST /api/history {clear} or {delete} (self-hosted): removes entries; answers 200 with no body. Jobs in the queue are untouched. */
export async function deleteHistory(
	context: IExecuteFunctions,
	which: { clear: true } | { delete: string[] },
	itemIndex: number,
): Promise<unknown> {
	return await hostRequest<unknown>(context, HOST_CLOUD_API, {
		...call({ method: 'POST', path: '/api/history', action: 'deleting from the history' }, { itemIndex }),
		body: which,
	});
}

/** GET /api/system_stats (self-hosted): `{system, devices}`, the server's versions, memory and GPUs. */
export async function readSystemStats(context: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	return await hostRequest<IDataObject>(
		context,
		HOST_CLOUD_API,
		call({ method: 'GET', path: '/api/system_stats', action: 'reading the system stats', answer: 'object' }, { itemIndex, retry: true }),
	);
}

/**
 * POST /api/free (self-hosted): asks the server to unload its models and/or free its memory; the
 * server does it when no job is running. Answers 200 with no body. Sent once: it is not a read.
 */
export async function freeMemory(
	context: IExecuteFunctions,
	asked: { unload_models: boolean; free_memory: boolean },
	itemIndex: number,
): Promise<unknown> {
	return await hostRequest<unknown>(context, HOST_CLOUD_API, {
		...call({ method: 'POST', path: '/api/free', action: 'asking the server to free memory' }, { itemIndex }),
		body: asked,
	});
}

/** GET /api/models (self-hosted): the names of the server's model folders. */
export async function readModelFolders(context: CloudContext, itemIndex = 0): Promise<unknown> {
	return await hostRequest<unknown>(
		context,
		HOST_CLOUD_API,
		call({ method: 'GET', path: '/api/models', action: 'listing the model folders' }, { itemIndex, retry: true }),
	);
}

/** GET /api/models/{folder} (self-hosted): the model files of one folder (404 for a folder the server does not have). */
export async function readModelFiles(context: CloudContext, folder: string, itemIndex: number): Promise<unknown> {
	const path = `/api/models/${pathSegment(folder)}`;
	return await hostRequest<unknown>(context, HOST_CLOUD_API, {
		...call({ method: 'GET', path, action: `listing the models of folder "${folder}"` }, { itemIndex, retry: true }),
		// The server answers a bare 404 for a folder it does not have.
		statusAdvice: {
			404: {
				headline: `Your server has no model folder "${folder}"`,
				hint: 'Folder names are case-sensitive. List Models with "All Folders" lists the folders the server has.',
			},
		},
	});
}

/** GET /api/object_info: every node class the cloud runs, with its inputs and outputs. */
export async function readNodeDefinitions(context: CloudContext, itemIndex = 0): Promise<Record<string, IDataObject>> {
	return await hostRequest<Record<string, IDataObject>>(context, HOST_CLOUD_API, {
		...call(
			{ method: 'GET', path: '/api/object_info', action: 'reading the node definitions', answer: 'object' },
			{ itemIndex, retry: true },
		),
	});
}

type FileQuery = { filename: string; subfolder?: string; type?: string };

const viewQuery = (file: FileQuery) => ({ filename: file.filename, subfolder: file.subfolder ?? '', type: file.type || 'output' });

/** GET /api/view on the cloud: answers a redirect whose Location is the signed storage URL; it is not followed. */
export async function readViewLocation(
	context: RunContext,
	file: FileQuery,
	options: CallFor & { action: string },
): Promise<HostResponse<unknown>> {
	return await hostRequestFull<unknown>(context, HOST_CLOUD_API, {
		...call({ method: 'GET', path: '/api/view', action: options.action }, { retry: true, ...options }),
		qs: viewQuery(file),
		manualRedirect: true,
	});
}

/** GET /api/view on a self-hosted server: the file itself, as a stream (HEAD with `check`: only whether it is there). */
export async function readViewFile(
	context: RunContext,
	file: FileQuery,
	options: CallFor & { action: string; check?: boolean },
): Promise<HostResponse<unknown>> {
	return await hostRequestFull<unknown>(context, HOST_CLOUD_API, {
		...call({ method: options.check ? 'HEAD' : 'GET', path: '/api/view', action: options.action }, { retry: true, ...options }),
		qs: viewQuery(file),
		stream: !options.check,
		headers: { Accept: '*/*' },
	});
}

/** The address of a self-hosted server's file: its /api/view link (it holds no secret; a proxy may want its headers). */
export function viewAddress(server: CloudServer, file: FileQuery): string {
	return `${server.baseUrl}/api/view?${new URLSearchParams(viewQuery(file)).toString()}`;
}

/** POST /api/upload/image or /api/upload/mask, with a multipart body built by the caller. */
export async function uploadFile(
	context: IExecuteFunctions,
	upload: { mask: boolean; body: Buffer; contentType: string },
	options: CallFor & { action: string },
): Promise<unknown> {
	return await hostRequest<unknown>(context, HOST_CLOUD_API, {
		...call({ method: 'POST', path: upload.mask ? '/api/upload/mask' : '/api/upload/image', action: options.action }, options),
		body: upload.body,
		headers: { 'Content-Type': upload.contentType },
		json: false,
	});
}

/**
 * GET /ws?clientId: the progress WebSocket's address for a client id, and what goes with it. On
 * the cloud the token is the API key (the spec's only way to authenticate a socket), so the address
 * is itself a secret and never shown; a self-hosted server takes no token, and the reverse proxy's
 * headers go with the upgrade. `secrets` are redacted from every message.
 */
export async function progressSocketAddress(
	context: RunContext,
): Promise<{ urlFor: (clientId: string) => string; headers: Record<string, string>; secrets: string[]; kind: CloudServer['kind'] }> {
	const server = await hostCloudServer(context);
	const query = (clientId: string) => `clientId=${encodeURIComponent(clientId)}`;
	const { kind, secrets } = server;
	if (kind === 'selfHosted')
		return { urlFor: (clientId) => `${server.wsBaseUrl}/ws?${query(clientId)}`, headers: server.headers, secrets, kind };
	const token = encodeURIComponent(server.headers['X-API-Key'] ?? '');
	return { urlFor: (clientId) => `${server.wsBaseUrl}/ws?${query(clientId)}&token=${token}`, headers: {}, secrets, kind };
}
