/**
 * One vocabulary for media task statuses. The service answers image tasks with upper-case words
 * (CREATED, IN_PROGRESS, COMPLETED, FAILED), video tasks with lower-case states (created,
 * queueing, processing, success, failed), wraps some bodies in `data{...}` and not others, and
 * sometimes names the field `task_status`. Host Media (polling and webhook waiting) and the Host
 * Task Trigger read every body through `normaliseTask`.
 */
import type { IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { JSON_LIMITS, jsonValueProblem } from '../transport/json-reader';
import { clipText, webAddress } from '../transport/service-values';
import { isRecord, ownValue } from '../items/validation';

export type TaskState = 'pending' | 'running' | 'succeeded' | 'failed' | 'unknown';

export interface VideoCreation {
	id?: string;
	url: string;
	cover_url?: string;
}

export interface NormalisedTask {
	task_id: string;
	kind: 'image' | 'video';
	status: TaskState;
	/** The word the service used, unchanged. */
	raw_status: string;
	/** True once the task has succeeded or failed: nothing will change any more. */
	final: boolean;
	/** Image results. */
	generated: string[];
	/** Video results. */
	creations: VideoCreation[];
	/** The service's failure code or message, when it failed (clipped). */
	error?: string;
	/** Result addresses the service gave that are not http(s) web addresses: left out of the lists above. */
	refused_addresses?: number;
}

/** The most of a status word kept (a word, never a text). */
const STATUS_MAX_CHARS = 100;
/** A task id longer than this is no id of the service's (it would go into a status path and every item). */
const TASK_ID_MAX_CHARS = 256;

const STATES: Record<string, TaskState> = {
	created: 'pending',
	queueing: 'pending',
	queued: 'pending',
	pending: 'pending',
	in_progress: 'running',
	processing: 'running',
	running: 'running',
	completed: 'succeeded',
	success: 'succeeded',
	succeeded: 'succeeded',
	failed: 'failed',
	failure: 'failed',
	error: 'failed',
	cancelled: 'failed',
	canceled: 'failed',
	lost: 'failed',
};

/** Maps any status word of the service to the shared vocabulary (case-insensitive). */
export function taskStateOf(raw: unknown): TaskState {
	if (typeof raw !== 'string') return 'unknown';
	// An own entry only: `constructor` or `__proto__` is a word the table does not have.
	return ownValue(STATES, raw.trim().toLowerCase()) ?? 'unknown';
}

/** The web addresses of a result list, written anew, and how many entries were not one. */
function addressList(value: unknown): { urls: string[]; refused: number } {
	const entries = Array.isArray(value) ? value.filter((entry) => entry !== '' && entry !== null && entry !== undefined) : [];
	const urls = entries.flatMap((entry) => webAddress(entry) ?? []);
	return { urls, refused: entries.length - urls.length };
}

function creationList(value: unknown): { creations: VideoCreation[]; refused: number } {
	let refused = 0;
	const creations = (Array.isArray(value) ? value.filter(isRecord) : []).flatMap((entry): VideoCreation[] => {
		const url = webAddress(ownValue(entry, 'url'));
		const cover = ownValue(entry, 'cover_url');
		const coverUrl = webAddress(cover);
		if (!url || (cover !== undefined && cover !== null && cover !== '' && !coverUrl)) refused++;
		if (!url) return [];
		const id = ownValue(entry, 'id');
		return [
			{ url, ...(typeof id === 'string' ? { id: clipText(id, TASK_ID_MAX_CHARS) } : {}), ...(coverUrl ? { cover_url: coverUrl } : {}) },
		];
	});
	return { creations, refused };
}

/**
 * Reads a task status or notification body, wrapped or not. Answers undefined when the body has
 * no task id or no status word at all (not a task body).
 */
export function normaliseTask(body: unknown): NormalisedTask | undefined {
	if (!isRecord(body)) return undefined;
	const inner = isRecord(body.data) ? { ...body, ...body.data } : body;
	const read = (key: string): unknown => ownValue(inner, key);
	const taskId = read('task_id') ?? read('taskId') ?? read('id');
	if (typeof taskId !== 'string' || taskId === '' || taskId.length > TASK_ID_MAX_CHARS) return undefined;
	const isVideo = read('state') !== undefined || read('creations') !== undefined;
	const raw = read('status') ?? read('task_status') ?? read('state');
	if (typeof raw !== 'string') return undefined;
	const status = taskStateOf(raw);
	// A video answer's err_code is a code or nothing: another kind of value is no answer the service gives.
	const errCode = read('err_code');
	if (errCode !== undefined && errCode !== null && typeof errCode !== 'string') return undefined;
	const errorValue = errCode ?? read('error') ?? read('message');
	const generated = addressList(read('generated'));
	const { creations, refused } = creationList(read('creations'));
	const refusedAddresses = generated.refused + refused;
	return {
		task_id: taskId,
		kind: isVideo ? 'video' : 'image',
		status,
		raw_status: clipText(raw, STATUS_MAX_CHARS),
		final: status === 'succeeded' || status === 'failed',
		generated: generated.urls,
		creations,
		...(status === 'failed' && typeof errorValue === 'string' && errorValue ? { error: clipText(errorValue) } : {}),
		...(refusedAddresses > 0 ? { refused_addresses: refusedAddresses } : {}),
	};
}

/**
 * Refuses a notification whose body is over the bounds of a message (n8n has parsed it already, at
 * any depth): answered 400 before anything reads it, since redaction and saving the item would run
 * out of stack. Undefined when the body is within bounds.
 */
export function refuseOverBoundNotification(context: IWebhookFunctions): IWebhookResponseData | undefined {
	const problem = jsonValueProblem(context.getBodyData(), JSON_LIMITS.message);
	if (!problem) return undefined;
	context
		.getResponseObject()
		.status(400)
		.json({ error: 'invalid_notification', message: `The notification ${problem}` });
	return { noWebhookResponse: true };
}
