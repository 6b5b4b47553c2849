/**
 * "Wait for Notification": the task is told to notify the execution's resume URL, the execution
 * is put to wait (no worker is held while a long video renders), and n8n calls the node's
 * `webhook()` for each notification. A final one resumes the execution with the same output as
 * Poll mode; other statuses keep it waiting; a notification about another task is refused.
 *
 * n8n's rules shape this: an execution waits once, so one item per execution; when the wait
 * runs out n8n resumes the node by passing its input through, so the input item is replaced by a
 * timeout report before waiting (the timeout then reads as a timeout, not as a result); and a
 * node resumed from a wait does not run again, so a failed task resumes with an item whose status
 * is "failed" rather than an error.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { normaliseTask, type NormalisedTask } from '../../shared/task-status';
import { invalidField, quoted } from '../../shared/validation';
import { NOTIFY_FIELD, type TaskKind } from '../transport/media-api';
import { finishedItem, taskJson, type ResultFiles } from './task-result';
import { readWebhookMaxWaitMinutes } from './wait-parameters';

/** Execution custom data keys: what the resumed node must know about the task it waits for. */
const KEYS = { taskId: 'hostTaskId', taskType: 'hostTaskType', label: 'hostTaskLabel' } as const;

/**
 * A webhook context reads execution custom data through an expression: this fallback is evaluated
 * against the waiting execution's data when n8n resumes it.
 */
const customDataExpression = (key: string) => `={{ $execution.customData.get("${key}") }}`;

/** The task to submit with the resume URL as its notification URL. */
export interface NotifyingTask<Body extends IDataObject> {
	kind: TaskKind;
	/** Output `task_type`. */
	taskType: string;
	/** The task in words for messages: "upscale task". */
	label: string;
	body: Body;
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
	const minutes = readWebhookMaxWaitMinutes(context, itemIndex);
	const resumeUrl = String(context.evaluateExpression('{{ $execution.resumeUrl }}', itemIndex) ?? '');
	if (!/^https?:\/\//.test(resumeUrl)) {
		throw invalidField(context, itemIndex, 'Wait Mode', `cannot be used here: this execution has no resume URL (got ${quoted(resumeUrl)})`);
	}
	return {
		body: { ...task.body, [notifyField]: resumeUrl },
		resumeUrl,
		async wait(submitted, extra) {
			if (submitted.final)
				return await finishedItem(context, itemIndex, submitted, task.taskType, extra, resultFilesOf(context, itemIndex));
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
				error: `No notification for ${task.label} ${submitted.task_id} arrived within ${minutes} minutes. The task may still finish: check it with Get Task Status.`,
			};
			delete input.binary;
			await context.putExecutionToWait(new Date(Date.now() + minutes * 60_000));
			return { json: { ...taskJson(submitted, task.taskType, extra), waiting_for_notification: true } };
		},
	};
}

/** "Download Result Files" and "Put Files in Field", from the execution or from the resume request. */
function resultFilesOf(context: IExecuteFunctions | IWebhookFunctions, itemIndex: number): ResultFiles {
	const read = (name: string, fallback: unknown): unknown =>
		'getInputData' in context ? context.getNodeParameter(name, itemIndex, fallback) : context.getNodeParameter(name, fallback);
	return { download: read('downloadFiles', true) as boolean, binaryPropertyName: String(read('binaryPropertyName', 'data') || 'data') };
}

/** The node's webhook(): called by n8n for each notification sent to the waiting execution. */
export async function resumeOnNotification(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const res = this.getResponseObject();
	const task = normaliseTask(this.getBodyData());
	if (!task) {
		res.status(400).json({ error: 'invalid_notification', message: 'Expected a task notification with task_id and a status' });
		return { noWebhookResponse: true };
	}
	const expected = String(this.getNodeParameter(KEYS.taskId, customDataExpression(KEYS.taskId)) ?? '');
	if (expected && task.task_id !== expected) {
		res.status(400).json({ error: 'other_task', message: `This execution waits for task ${expected}, not ${task.task_id}` });
		return { noWebhookResponse: true };
	}
	if (!task.final) return { webhookResponse: { received: true, waiting: true, status: task.raw_status } };
	const taskType = String(this.getNodeParameter(KEYS.taskType, customDataExpression(KEYS.taskType)) || task.kind);
	const label = String(this.getNodeParameter(KEYS.label, customDataExpression(KEYS.label)) || `${task.kind} task`);
	let item: INodeExecutionData;
	try {
		item = await finishedItem(this, 0, task, taskType, {}, resultFilesOf(this, 0));
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
