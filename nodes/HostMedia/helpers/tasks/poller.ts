/**
 * Waiting for an asynchronous media task by polling its status path. One poller serves every
 * status path (image kinds, video creations): it backs off with jitter, stops at a maximum wait
 * and on the execution's cancel signal, treats a 5xx, a 429 or a timed-out poll as "unknown" (the
 * task is not failed because one status check was), and explains a 404 on a status path.
 */
import type { IExecuteFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { pause } from '../../../shared/waits/pause';
import { jittered } from '../../../shared/transport/retry';
import { isServiceWaitTooLong } from '../../../shared/transport/slow-down';
import type { NormalisedTask } from '../../../shared/tasks/task-status';
import { getTask, taskStatusPath, type StatusContext, type TaskRef } from '../../transport/media-api';
import { statusAnswerOf, type AnswerProblem } from './status-answer';
import { refusedAddressesError } from './task-item';

export interface PollTaskOptions {
	task: TaskRef;
	itemIndex: number;
	/** First pause between polls; later pauses grow from it. */
	intervalMs: number;
	/** Give up after this long. */
	maxWaitMs: number;
	/** The task in words, for messages ("upscale task"). */
	label: string;
	/** What the submit answered: when it is already final, no poll is made. */
	initial?: NormalisedTask;
	/** Poll at once instead of after the first pause (status operations). */
	pollFirst?: boolean;
	/** Longest a single status request may take (default 30 s, or what is left of the wait). */
	requestTimeoutMs?: number;
	/** At the maximum wait, answer the task as last seen (not final) instead of failing: a tool call's bounded wait. */
	untilDeadline?: boolean;
}

/** Pauses grow by half each time up to four times the interval (at most a minute), ±20 % jitter. */
export function pollDelayMs(attempt: number, intervalMs: number, random: () => number = Math.random): number {
	const cap = Math.max(intervalMs, Math.min(intervalMs * 4, 60_000));
	const base = Math.min(cap, intervalMs * 1.5 ** Math.max(0, attempt));
	return jittered(base, random);
}

/** "90 s", "2 min", "1 h 5 min". */
export function formatDuration(ms: number): string {
	if (ms < 1000) return `${Math.round(ms)} ms`;
	const seconds = Math.round(ms / 1000);
	if (seconds < 120) return `${seconds} s`;
	const minutes = Math.round(seconds / 60);
	if (minutes < 120) return `${minutes} min`;
	return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

function isTransient(error: unknown): boolean {
	// The service asked for a wait longer than Max Wait leaves: asking again cannot help.
	if (!(error instanceof NodeApiError) || isServiceWaitTooLong(error)) return false;
	const code = Number(error.httpCode);
	// No status at all: the request failed or timed out before an answer. A 2xx that could not be
	// read (an HTML page, a cut-off body) tells nothing of the task either.
	return !error.httpCode || Number.isNaN(code) || code < 300 || code >= 500 || code === 429 || code === 408;
}

/** Worded "canceled" as n8n spells it: the engine then records the execution as canceled, not failed. */
function cancelled(context: IExecuteFunctions, options: PollTaskOptions): NodeOperationError {
	return new NodeOperationError(context.getNode(), `The execution was canceled while waiting for ${options.label} ${options.task.taskId}`, {
		itemIndex: options.itemIndex,
		description: 'Only the waiting stopped: the task itself may still finish on the service.',
	});
}

/** What a user needs when a status check is refused: the task ID, and for a 404 what to do instead. */
export function statusFailure(
	context: StatusContext,
	error: unknown,
	target: Pick<PollTaskOptions, 'task' | 'label' | 'itemIndex'>,
): NodeApiError | NodeOperationError {
	const apiError = error as Partial<NodeApiError>;
	const { taskId } = target.task;
	if (apiError.httpCode === '404') {
		// Keep the service's own words ("No video task with id …"), which the transport put after the status.
		const said = /\(HTTP 404\): ([\s\S]+)$/.exec(String(apiError.message ?? ''))?.[1];
		return new NodeOperationError(
			context.getNode(),
			`The service has no status for ${target.label} ${taskId} (HTTP 404 on GET ${taskStatusPath(target.task)})${said ? `: ${said}` : ''}`,
			{
				itemIndex: target.itemIndex,
				description:
					'Either the task ID (or task type) is wrong, or this service offers no status path for this kind of task. Use the Webhook wait mode, or "Don\'t Wait" with a Host Task Trigger, to be told when the task finishes.',
			},
		);
	}
	const message = String(apiError.message ?? error);
	return new NodeApiError(context.getNode(), { message } as JsonObject, {
		message: message.includes(taskId) ? message : `${message} (task ${taskId})`,
		description: apiError.description ?? undefined,
		httpCode: apiError.httpCode ?? undefined,
		itemIndex: target.itemIndex,
	});
}

/**
 * Polls until the task is final (succeeded or failed) and answers it; throws when the wait runs
 * out (unless `untilDeadline`), the execution is cancelled, the status path does not exist, or a
 * poll is refused.
 */
export async function pollTask(context: IExecuteFunctions, options: PollTaskOptions): Promise<NormalisedTask> {
	if (options.initial?.final) return options.initial;
	const signal = context.getExecutionCancelSignal();
	const started = Date.now();
	const deadline = started + options.maxWaitMs;
	let lastSeen = options.initial;
	let lastProblem: AnswerProblem | undefined;
	for (let attempt = 0; ; attempt++) {
		if (!(attempt === 0 && options.pollFirst)) {
			const waitMs = Math.min(pollDelayMs(attempt, options.intervalMs), Math.max(0, deadline - Date.now()));
			try {
				await pause(waitMs, signal);
			} catch {
				throw cancelled(context, options);
			}
		}
		if (signal?.aborted) throw cancelled(context, options);
		let body: unknown;
		try {
			body = await getTask(context, options.task, {
				itemIndex: options.itemIndex,
				label: options.label,
				deadline,
				timeout: Math.max(1000, Math.min(options.requestTimeoutMs ?? 30_000, deadline - Date.now())),
			});
		} catch (error) {
			if (signal?.aborted) throw cancelled(context, options);
			if (!isTransient(error)) throw statusFailure(context, error, options);
			lastProblem = { problem: (error as Error).message };
			body = undefined;
		}
		// An unreadable answer, or one about another task, tells nothing of this task: polling goes on.
		const read = body === undefined ? undefined : statusAnswerOf(body, options.task);
		if (read && 'task' in read) {
			lastSeen = read.task;
			lastProblem = undefined;
			if (read.task.final) return read.task;
		} else if (read) {
			lastProblem = read;
		}
		if (Date.now() >= deadline) {
			if (options.untilDeadline && lastSeen) return lastSeen;
			throw waitRanOut(context, options, lastSeen, lastProblem);
		}
	}
}

/** The item's error at Max Wait: the task's last status, and why the last check told nothing, if it did not. */
function waitRanOut(
	context: IExecuteFunctions,
	options: PollTaskOptions,
	lastSeen: NormalisedTask | undefined,
	lastProblem: AnswerProblem | undefined,
): NodeOperationError {
	const { label, task, itemIndex } = options;
	const within = formatDuration(options.maxWaitMs);
	const next =
		'check it later with the Get Task Status operation and this task ID, raise "Max Wait", or use "Don\'t Wait" with a Host Task Trigger.';
	if (lastProblem?.otherTaskId !== undefined) {
		// Named in the message itself: the service answered, but about another task, never taken as this one.
		return new NodeOperationError(
			context.getNode(),
			`The status of the ${label} ${task.taskId} could not be read within ${within}: the service's last answer was about another task, ${lastProblem.otherTaskId}`,
			{
				itemIndex,
				description: `An answer about another task is never taken as this task's status, and nothing of it (status, files) is passed on. The task may still finish: ${next}`,
			},
		);
	}
	return new NodeOperationError(
		context.getNode(),
		`The ${label} ${task.taskId} did not finish within ${within} (last status: ${lastSeen?.raw_status ?? 'unknown'})`,
		{
			itemIndex,
			description: `It may still finish: ${next}${lastProblem ? ` The last status check failed: ${lastProblem.problem}` : ''}`,
		},
	);
}

/** Throws a message naming the task when it failed; answers it when it succeeded. */
export function assertSucceeded(context: IExecuteFunctions, task: NormalisedTask, label: string, itemIndex: number): NormalisedTask {
	if (task.status === 'succeeded') {
		const refused = refusedAddressesError(context, task, label, itemIndex);
		if (refused) throw refused;
		return task;
	}
	throw new NodeOperationError(
		context.getNode(),
		`The ${label} ${task.task_id} failed${task.error ? `: ${task.error}` : ` (status ${task.raw_status})`}`,
		{
			itemIndex,
			description: task.error
				? 'The service reported this reason. Check the inputs (images, prompt, model) and run again.'
				: 'The service gave no reason. Check the inputs (images, prompt, model) and run again.',
		},
	);
}
