/**
 * "Wait for Notification": the task is told to notify the execution's resume URL, the execution
 * is put to wait (no worker is held while a long video renders), and n8n calls the node's
 * `webhook()` for each notification. A final one resumes the execution with the same output as
 * Poll mode; other statuses keep it waiting; a notification about another task is refused.
 *
 * Anyone holding the resume URL can send a notification, so it is a wake-up call, not the truth:
 * the task's status (its result URLs, finished or failed) is then read from the service's status
 * path with the credential, and a status answer about another task than the one waited for is no
 * status of it. Only where the service has none (a 404 on a path the spec does not promise) is the
 * notification taken as it is; its URLs are then fetched only if they are http(s).
 *
 * n8n's rules shape this: an execution waits once, so one item per execution; when the wait
 * runs out n8n resumes the node by passing its input through, so the input item is replaced by a
 * timeout report before waiting (the timeout then reads as a timeout, not as a result); and a
 * node resumed from a wait does not run again, so a failed task, or one whose status cannot be
 * read, resumes with an item that says so rather than an error.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { credentialSecrets, redactDeep } from '../../../shared/transport/redaction';
import { HOST_API } from '../../../shared/transport/host-api';
import { readResultFiles, type ResultFiles } from '../../../shared/binary/result-files';
import { normaliseTask, refuseOverBoundNotification, type NormalisedTask } from '../../../shared/tasks/task-status';
import { invalidField, quoted } from '../../../shared/items/validation';
import { getTask, NOTIFY_FIELD, specShowsStatusPath, taskRef, type TaskKind, type TaskRef } from '../../transport/media-api';
import { isMediaTaskType } from '../../transport/media-tasks';
import { statusFailure } from './poller';
import { statusAnswerOf } from './status-answer';
import { finishedItem, taskJson } from './task-item';
import { readWebhookMaxWaitMinutes, type WaitFields } from './wait-settings';

/** Execution custom data keys: the task of a waiting execution, shown in n8n's execution list. */
const KEYS = { taskId: 'hostTaskId', taskType: 'hostTaskType', label: 'hostTaskLabel' } as const;

/**
 * A webhook context reads the waiting execution's data through an expression: this fallback is
 * evaluated against it when a notification arrives. `$json` is the waiting node's input item.
 */
const waitingExpression = (expression: string) => `={{ ${expression} }}`;

/** The task the execution waits for, as the execution knows it (never as a notification says it). */
interface WaitingTask {
	taskId: string;
	taskType: string;
	/** In words for messages ("upscale task"); empty when unknown. */
	label: string;
}

/**
 * Before waiting, the node replaced its input item with the timeout report (`task_id`,
 * `task_type`), and n8n hands that item to the resume webhook as `$json`. Execution custom data is
 * not loaded there by a real n8n, so it only supplies the words for messages, where it can.
 */
function waitingTaskOf(context: IWebhookFunctions): WaitingTask {
	const read = (name: string, expression: string) => String(context.getNodeParameter(name, waitingExpression(expression)) ?? '');
	return {
		taskId: read(KEYS.taskId, '$json.task_id'),
		taskType: read(KEYS.taskType, '$json.task_type'),
		label: read(KEYS.label, `$execution.customData.get("${KEYS.label}")`),
	};
}

/** The task to submit with the resume URL as its notification URL. */
export interface NotifyingTask<Body extends IDataObject> {
	kind: TaskKind;
	/** Output `task_type`. */
	taskType: string;
	/** The task in words for messages: "upscale task". */
	label: string;
	body: Body;
	wait: WaitFields;
}

export interface WebhookWait<Body extends IDataObject> {
	/** The submit body, with the resume URL as the notification URL. */
	body: Body;
	/** Its signature lets anyone resume the execution: never echoed into a message or output. */
	resumeUrl: string;
	/** After the submit: puts the execution to wait (or answers at once if the task is already final). */
	wait(submitted: NormalisedTask, extra: IDataObject): Promise<INodeExecutionData>;
}

/** Checks the webhook mode's inputs before anything is sent, and prepares the submit body. */
export function startWebhookWait<Body extends IDataObject>(
	context: IExecuteFunctions,
	itemIndex: number,
	task: NotifyingTask<Body>,
): WebhookWait<Body> {
	const notifyField = NOTIFY_FIELD[task.kind];
	const notifyName = task.kind === 'image' ? 'Webhook URL (webhook_url)' : 'Callback URL (callback_url)';
	if (context.getInputData().length > 1) {
		throw invalidField(
			context,
			itemIndex,
			'Wait Mode',
			'"Wait for Notification" handles one item per execution, because n8n can put an execution to wait only once',
			"For several items use Poll Until Finished, or Don't Wait with a Host Task Trigger, or run one execution per item (e.g. call a sub-workflow per item).",
		);
	}
	if (task.body[notifyField]) {
		throw invalidField(
			context,
			itemIndex,
			notifyName,
			'must be empty with "Wait for Notification": the node sends the execution\'s resume URL there',
			"Remove the field, or choose Don't Wait to send notifications to your own URL.",
		);
	}
	const minutes = readWebhookMaxWaitMinutes(context, itemIndex, task.wait);
	// Checked before the submit, as in Poll mode: a bad field must not cost a task or lose its file.
	const files = readResultFiles(context, itemIndex);
	const resumeUrl = String(context.evaluateExpression('{{ $execution.resumeUrl }}', itemIndex) ?? '');
	if (!/^https?:\/\//.test(resumeUrl)) {
		throw invalidField(context, itemIndex, 'Wait Mode', `cannot be used here: this execution has no resume URL (got ${quoted(resumeUrl)})`);
	}
	return {
		body: { ...task.body, [notifyField]: resumeUrl },
		resumeUrl,
		async wait(submitted, extra) {
			if (submitted.final) return await finishedItem(context, itemIndex, submitted, task.taskType, extra, files);
			context.customData.set(KEYS.taskId, submitted.task_id);
			context.customData.set(KEYS.taskType, task.taskType);
			context.customData.set(KEYS.label, task.label);
			// What n8n passes on if the wait runs out (it resumes the node with its input unchanged).
			const input = context.getInputData()[itemIndex]!;
			input.json = {
				...taskJson(submitted, task.taskType, extra),
				status: 'timeout',
				final: false,
				timed_out: true,
				// The resume webhook reads them here: its parameters would be evaluated against this item.
				[FILES_KEYS.download]: files.download,
				[FILES_KEYS.field]: files.binaryPropertyName,
				error: `No notification for ${task.label} ${submitted.task_id} arrived within ${minutes} minutes. The task may still finish: check it with Get Task Status.`,
			};
			delete input.binary;
			await context.putExecutionToWait(new Date(Date.now() + minutes * 60_000));
			return { json: { ...taskJson(submitted, task.taskType, extra), waiting_for_notification: true } };
		},
	};
}

/** Where the timeout report keeps the item's checked "Download Files" and "Put Files in Field". */
const FILES_KEYS = { download: 'download_files', field: 'files_field' } as const;

/**
 * "Download Files" and "Put Files in Field" as they were checked before the submit, from the
 * timeout report the resume webhook gets as `$json` (never its parameters again: an expression
 * there would be evaluated against that report).
 */
function checkedResultFilesOf(context: IWebhookFunctions): ResultFiles {
	const read = (key: string): unknown => context.getNodeParameter(`host_${key}`, waitingExpression(`$json.${key}`));
	// An execution put to wait by an earlier version has no such keys: its parameters, as it read them then.
	const download = read(FILES_KEYS.download) ?? context.getNodeParameter('downloadFiles', true);
	const field = read(FILES_KEYS.field) ?? context.getNodeParameter('binaryPropertyName', 'data');
	return {
		download: download !== false,
		binaryPropertyName: typeof field === 'string' && field !== '' && field !== '__proto__' ? field : 'data',
	};
}

/** The status path of the task the execution waits for. */
function statusTargetOf(taskType: string, taskId: string): TaskRef | undefined {
	return isMediaTaskType(taskType) ? taskRef(taskType, taskId) : undefined;
}

/**
 * The task as the service reports it, read with the credential; or why it could not be read. A
 * service that answers 404 on a status path the spec does not promise has no status to read: the
 * notification is then all there is (the resume URL's signature is what protects it).
 */
async function serviceStatusOf(
	context: IWebhookFunctions,
	notified: NormalisedTask,
	target: TaskRef | undefined,
	label: string,
): Promise<NormalisedTask | { problem: string }> {
	if (!target) return { problem: 'the execution does not know which task it waits for' };
	try {
		// An answer about another task is a problem like an unreadable one: nothing of it is passed on.
		const read = statusAnswerOf(await getTask(context, target, { itemIndex: 0, label, retry: true }), target);
		return 'task' in read ? read.task : read;
	} catch (error) {
		if ((error as { httpCode?: string }).httpCode === '404' && !specShowsStatusPath(target)) return notified;
		return { problem: statusFailure(context, error, { task: target, label, itemIndex: 0 }).message };
	}
}

/** The resumed item when the status could not be read: nothing the notification claims is passed on. */
function unconfirmedItem(notified: NormalisedTask, taskType: string, label: string, problem: string): INodeExecutionData {
	const { task_id, kind } = notified;
	const unknown: NormalisedTask = { task_id, kind, status: 'unknown', raw_status: '', final: false, generated: [], creations: [] };
	const error = `The notification says the ${label} ${notified.task_id} finished (${notified.raw_status}), but its status could not be read from the service, so nothing was downloaded: ${problem.replace(/\.$/, '')}. Check the task with Get Task Status.`;
	return { json: { ...taskJson(unknown, taskType), error }, pairedItem: { item: 0 } };
}

/** The node's webhook(): called by n8n for each notification sent to the waiting execution. */
export async function resumeOnNotification(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const res = this.getResponseObject();
	const overBound = refuseOverBoundNotification(this);
	if (overBound) return overBound;
	// Redacted as every answer of the service is: the credential's secrets and the resume URL's signature.
	const notified = normaliseTask(redactDeep(this.getBodyData(), await credentialSecrets(this, HOST_API)));
	if (!notified) {
		res.status(400).json({ error: 'invalid_notification', message: 'Expected a task notification with task_id and a status' });
		return { noWebhookResponse: true };
	}
	const waiting = waitingTaskOf(this);
	if (waiting.taskId && notified.task_id !== waiting.taskId) {
		res.status(400).json({ error: 'other_task', message: `This execution waits for task ${waiting.taskId}, not ${notified.task_id}` });
		return { noWebhookResponse: true };
	}
	if (!notified.final) return { webhookResponse: { received: true, waiting: true, status: notified.raw_status } };
	const target = waiting.taskId ? statusTargetOf(waiting.taskType, waiting.taskId) : undefined;
	const taskType = waiting.taskType || notified.kind;
	const label = waiting.label || `${target?.kind ?? notified.kind} task`;
	const task = await serviceStatusOf(this, notified, target, label);
	if ('problem' in task)
		return { webhookResponse: { received: true }, workflowData: [[unconfirmedItem(notified, taskType, label, task.problem)]] };
	if (!task.final) {
		// Answered as n8n answers a call that comes too early: a service that sent it retries later.
		res.status(409).json({
			error: 'not_finished',
			message: `The service reports the ${label} ${notified.task_id} as ${task.raw_status}, not finished: the execution keeps waiting`,
		});
		return { noWebhookResponse: true };
	}
	let item: INodeExecutionData;
	try {
		item = await finishedItem(this, 0, task, taskType, {}, checkedResultFilesOf(this));
	} catch (error) {
		// Thrown here, n8n would answer the service 500 and keep waiting until Max Wait, losing the reason.
		const reason = (error as Error).message;
		item = {
			json: {
				...taskJson(task, taskType, {}),
				error: `The ${label} ${task.task_id} finished, but its files could not be downloaded: ${reason}`,
			},
			pairedItem: { item: 0 },
		};
	}
	if (task.status === 'failed') item.json.error = `The ${label} ${task.task_id} failed${task.error ? `: ${task.error}` : ''}`;
	return { webhookResponse: { received: true }, workflowData: [[item]] };
}
