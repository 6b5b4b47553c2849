/**
 * One vocabulary for media task statuses. The service answers image tasks with upper-case words
 * (CREATED, IN_PROGRESS, COMPLETED, FAILED), video tasks with lower-case states (created,
 * queueing, processing, success, failed), wraps some bodies in `data{...}` and not others, and
 * sometimes names the field `task_status`. Host Media (polling and webhook waiting) and the Host
 * Task Trigger read every body through `normaliseTask`.
 */
import type { IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { JSON_LIMITS, jsonValueProblem } from './json-reader';
import { isRecord } from './validation';

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
	/** The service's failure code or message, when it failed. */
	error?: string;
}

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
	return STATES[raw.trim().toLowerCase()] ?? 'unknown';
}

function stringList(value: unknown): string[] {
	return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string' && entry.length > 0) : [];
}

function creationList(value: unknown): VideoCreation[] {
	if (!Array.isArray(value)) return [];
	return value.filter(isRecord).flatMap((entry) =>
		typeof entry.url === 'string'
			? [
					{
						url: entry.url,
						...(typeof entry.id === 'string' ? { id: entry.id } : {}),
						...(typeof entry.cover_url === 'string' ? { cover_url: entry.cover_url } : {}),
					},
				]
			: [],
	);
}

/**
 * Reads a task status or notification body, wrapped or not. Answers undefined when the body has
 * no task id or no status word at all (not a task body).
 */
export function normaliseTask(body: unknown): NormalisedTask | undefined {
	if (!isRecord(body)) return undefined;
	const inner = isRecord(body.data) ? { ...body, ...body.data } : body;
	const taskId = inner.task_id ?? inner.taskId ?? inner.id;
	if (typeof taskId !== 'string' || taskId === '') return undefined;
	const isVideo = inner.state !== undefined || inner.creations !== undefined;
	const raw = inner.status ?? inner.task_status ?? inner.state;
	if (typeof raw !== 'string') return undefined;
	const status = taskStateOf(raw);
	const errorValue = inner.err_code ?? inner.error ?? inner.message;
	return {
		task_id: taskId,
		kind: isVideo ? 'video' : 'image',
		status,
		raw_status: raw,
		final: status === 'succeeded' || status === 'failed',
		generated: stringList(inner.generated),
		creations: creationList(inner.creations),
		...(status === 'failed' && typeof errorValue === 'string' && errorValue ? { error: errorValue } : {}),
	};
}

/**
 * Cloud jobs (area A) read the same words, with one difference: a cancelled job is told apart from
 * a failed one, and any word that is not final means "still running" (the real service's status
 * endpoints do not all use the spec's words).
 */
export type CloudJobState = 'completed' | 'failed' | 'cancelled' | 'running';

const CANCELLED_WORDS = new Set(['cancelled', 'canceled', 'interrupted']);

export function cloudJobStateOf(raw: unknown): CloudJobState {
	if (typeof raw === 'string' && CANCELLED_WORDS.has(raw.trim().toLowerCase())) return 'cancelled';
	const state = taskStateOf(raw);
	if (state === 'succeeded') return 'completed';
	if (state === 'failed') return 'failed';
	return 'running';
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
