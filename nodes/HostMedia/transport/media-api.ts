/**
 * The media proxy's endpoints (area C of the API), all through the package's one transport: one
 * submit and one status read for every task, at the paths its row of `media-tasks.ts` gives, and
 * the music stream. Operations and helpers call these, never `hostRequest`, so a path, a body
 * field or a message wording of an endpoint is written in one place.
 *
 * Answers are typed as the spec describes them, every field optional: the real service varies
 * (wrapped or not in `data{}`, `task_status` for `status`), so they are read through
 * `normaliseTask`, never trusted as they are. Result files come from signed or public URLs and are
 * downloaded without the credential (`shared/binary/binary.ts`), not from here.
 */
import type { IDataObject, IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';

import { errorForItem } from '../../shared/items/items';
import { multipartBody } from '../../shared/transport/multipart';
import { pathSegment } from '../../shared/items/path-segment';
import { pause } from '../../shared/waits/pause';
import { discardBody, IdleTimeoutError } from '../../shared/binary/streams';
import { hostRequest, hostRequestFull } from '../../shared/transport/transport';
import { HOST_API } from '../../shared/transport/host-api';
import {
	imageTask,
	isImageTaskType,
	MEDIA_TASKS,
	VIDEO_STATUS_PATH,
	type ImageTaskType,
	type MediaTaskType,
	type StartableTaskType,
} from './media-tasks';

/** A value of one of the spec's enums. */
export type OneOf<T extends readonly string[]> = T[number];

/** An image given as Base64 or as a URL the service fetches. */
export type ImageText = string;

/** Body fields the requests may carry beyond those named (the field definitions fill them by API name). */
export type BodyFields = IDataObject;

/** What every video task's body may carry. */
export interface VideoBody extends BodyFields {
	prompt?: string;
	resolution?: string;
	payload?: string;
	callback_url?: string;
}

export interface MusicRequest {
	prompt: string;
	duration?: number;
}

/** An image task as the spec shows it. */
interface ImageTaskFields {
	task_id?: string;
	status?: string;
	generated?: string[];
}

/** Image answers: in `data{}`, except the style-transfer submit, which answers at the top level. */
export type ImageTaskAnswer = ImageTaskFields & { data?: ImageTaskFields };

/** A video submit answer: the task and its credits, plus echoes of the request. */
export interface VideoTaskAnswer extends IDataObject {
	task_id?: string;
	state?: string;
	credits?: number;
	created_at?: string;
}

/** GET /proxy/video/tasks/{task_id}/creations on the real service. */
export interface VideoCreationsAnswer extends IDataObject {
	task_id?: string;
	state?: string;
	err_code?: string;
	creations?: Array<{ id?: string; url?: string; cover_url?: string }>;
}

export type TaskKind = 'image' | 'video';

/** A task the proxy reports on: image status paths are per task type, video tasks share one. */
export type TaskRef = { kind: 'image'; taskType: ImageTaskType; taskId: string } | { kind: 'video'; taskId: string };

/** The task of this type and ID, as its status is read. */
export function taskRef(taskType: MediaTaskType, taskId: string): TaskRef {
	return isImageTaskType(taskType) ? { kind: 'image', taskType, taskId } : { kind: 'video', taskId };
}

/** The body field that takes a notification URL, per kind of task. */
export const NOTIFY_FIELD = { image: 'webhook_url', video: 'callback_url' } as const satisfies Record<TaskKind, string>;

export interface TaskCall {
	itemIndex: number;
	/** The task in words, for messages ("upscale task"). */
	label: string;
}

export interface SubmitCall extends TaskCall {
	/** Values of the body never to show in a message (the resume URL's signature). */
	secrets?: string[];
}

export interface StatusCall extends TaskCall {
	timeout?: number;
	/** Retry a 5xx or a network error (a single status read; the poller has its own back-off). */
	retry?: boolean;
	/** When a wait the service asks for must be over: the poll's Max Wait. */
	deadline?: number;
}

/** A status read runs in an execution, or in the resume webhook of one waiting for a notification. */
export type StatusContext = IExecuteFunctions | IWebhookFunctions;

/** The GET path of a task's status, also shown in outputs and messages. */
export function taskStatusPath(task: TaskRef): string {
	const template = task.kind === 'image' ? imageTask(task.taskType).statusPath : VIDEO_STATUS_PATH;
	// A replacer function: the ID is taken as it is, never read for `$&`-style patterns.
	return template.replace('{task_id}', () => pathSegment(task.taskId));
}

/** Whether the spec promises this task's status path, so that a 404 there means "no such task", not "no such path". */
export const specShowsStatusPath = (task: TaskRef): boolean => task.kind === 'image' && imageTask(task.taskType).statusInSpec;

/** POST the task's submit path: starts it. Image answers come in `data{}` but for style transfer's. */
export async function startTask(
	context: IExecuteFunctions,
	taskType: StartableTaskType,
	body: IDataObject,
	call: SubmitCall,
): Promise<ImageTaskAnswer | VideoTaskAnswer> {
	return await hostRequest<ImageTaskAnswer | VideoTaskAnswer>(context, HOST_API, {
		method: 'POST',
		path: MEDIA_TASKS[taskType].submitPath,
		body,
		itemIndex: call.itemIndex,
		action: `starting the ${call.label}`,
		secrets: call.secrets,
		answer: 'object',
	});
}

async function readStatus<A>(context: StatusContext, task: TaskRef, call: StatusCall): Promise<A> {
	return await hostRequest<A>(context, HOST_API, {
		method: 'GET',
		path: taskStatusPath(task),
		itemIndex: call.itemIndex,
		timeout: call.timeout,
		retry: call.retry,
		deadline: call.deadline,
		action: `checking ${call.label} ${task.taskId}`,
		answer: 'object',
	});
}

/** GET /proxy/imaging/v1/ai/{task type}/{task_id}. */
export const getImageTask = async (context: StatusContext, taskType: ImageTaskType, taskId: string, call: StatusCall) =>
	await readStatus<ImageTaskAnswer>(context, { kind: 'image', taskType, taskId }, call);

/** GET /proxy/video/tasks/{task_id}/creations. */
export const getVideoTask = async (context: StatusContext, taskId: string, call: StatusCall) =>
	await readStatus<VideoCreationsAnswer>(context, { kind: 'video', taskId }, call);

/** The status of any task, from the endpoint of its kind. */
export async function getTask(context: StatusContext, task: TaskRef, call: StatusCall): Promise<ImageTaskAnswer | VideoCreationsAnswer> {
	return task.kind === 'image'
		? await getImageTask(context, task.taskType, task.taskId, call)
		: await getVideoTask(context, task.taskId, call);
}

/** A streamed answer, unread, and a way to close its connection. */
export interface OpenStream {
	body: unknown;
	/**
	 * Closes the connection now, also while a read is waiting on a silent service. Destroying the
	 * body cannot then: n8n's HTTP client hands it over wrapped, and the wrapper closes the
	 * connection only after the read it waits for. Aborting the request (`stop`) closes it at once.
	 */
	close(): void;
}

/**
 * POST /proxy/music/t2m/generate: the NDJSON stream, unread. A service that has not begun to answer
 * after `idleMs` is given up (IdleTimeoutError): it may fall silent before its first byte too.
 */
export async function streamMusic(
	context: IExecuteFunctions,
	request: MusicRequest,
	call: { itemIndex: number; idleMs: number },
): Promise<OpenStream> {
	// This endpoint takes multipart/form-data, not JSON.
	const form = multipartBody({ prompt: request.prompt, ...(request.duration !== undefined ? { duration: String(request.duration) } : {}) });
	const stop = new AbortController();
	const answered = new AbortController();
	void pause(call.idleMs, answered.signal).then(
		() => stop.abort(new IdleTimeoutError(call.idleMs)),
		() => undefined,
	);
	try {
		const response = await hostRequestFull<unknown>(context, HOST_API, {
			method: 'POST',
			path: '/proxy/music/t2m/generate',
			body: form.body,
			headers: { 'Content-Type': form.contentType },
			json: false,
			stream: true,
			timeout: call.idleMs,
			stop: stop.signal,
			itemIndex: call.itemIndex,
			action: 'generating music',
		});
		return {
			body: response.body,
			close: () => {
				// The abort makes n8n's client emit an error on the body, which may have no reader any more.
				(response.body as { once?: (event: 'error', listener: () => void) => void }).once?.('error', () => undefined);
				stop.abort();
				discardBody(response.body);
			},
		};
	} catch (error) {
		// Given up by the timer above: the caller words it (hostRequestFull saw an abort).
		if (stop.signal.reason instanceof IdleTimeoutError) throw stop.signal.reason;
		throw errorForItem(context, error, call.itemIndex);
	} finally {
		answered.abort();
	}
}
