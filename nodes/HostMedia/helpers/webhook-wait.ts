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
import type {
	IDataObject,
	IDisplayOptions,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { normaliseTask, type NormalisedTask } from '../../shared/task-status';
import { invalidField, quoted } from '../../shared/validation';
import { downloadResults, taskJson, type TaskSpec } from './task';

const DEFAULT_MAX_WAIT_MINUTES = 120;

/** Execution custom data keys: what the resumed node must know about the task it waits for. */
const KEYS = { taskId: 'hostTaskId', taskType: 'hostTaskType', label: 'hostTaskLabel' } as const;

/**
 * A webhook context reads execution custom data through an expression: this fallback is evaluated
 * against the waiting execution's data when n8n resumes it.
 */
const customDataExpression = (key: string) => `={{ $execution.customData.get("${key}") }}`;

export function webhookWaitProperties(show: NonNullable<IDisplayOptions['show']>): INodeProperties[] {
	return [
		{
			displayName:
				"The execution pauses and resumes when the service calls its resume URL, so this n8n must be reachable from the service (set WEBHOOK_URL). Only one item per execution can wait; for several, use Poll Until Finished, or Don't Wait with a Host Task Trigger.",
			name: 'webhookWaitNotice',
			type: 'notice',
			default: '',
			displayOptions: { show },
		},
		{
			displayName: 'Max Wait (Minutes)',
			name: 'webhookMaxWaitMinutes',
			type: 'number',
			default: DEFAULT_MAX_WAIT_MINUTES,
			typeOptions: { minValue: 0.01, numberPrecision: 2 },
			description:
				'How long to wait for the notification. If none arrives, the execution resumes with an item whose status is "timeout" (the task may still finish: check it with Get Task Status).',
			displayOptions: { show },
		},
	];
}

export interface WebhookWait {
	/** The submit body, with the resume URL as the notification URL. */
	body: IDataObject;
	/** After the submit: puts the execution to wait (or answers at once if the task is already final). */
	wait(submitted: NormalisedTask, extra: IDataObject): Promise<INodeExecutionData>;
}

/** Checks the webhook mode's inputs before anything is sent, and prepares the submit body. */
export function startWebhookWait(context: IExecuteFunctions, itemIndex: number, spec: TaskSpec): WebhookWait {
	const notifyName = spec.notifyField === 'webhook_url' ? 'Webhook URL (webhook_url)' : 'Callback URL (callback_url)';
	if (context.getInputData().length > 1) {
		throw invalidField(
			context,
			itemIndex,
			'Wait Mode',
			'"Wait for Notification" handles one item per execution, because n8n can put an execution to wait only once',
			"For several items use Poll Until Finished, or Don't Wait with a Host Task Trigger, or run one execution per item (e.g. call a sub-workflow per item).",
		);
	}
	if (spec.body[spec.notifyField]) {
		throw invalidField(
			context,
			itemIndex,
			notifyName,
			'must be empty with "Wait for Notification": the node sends the execution\'s resume URL there',
			"Remove the field, or choose Don't Wait to send notifications to your own URL.",
		);
	}
	const minutes = context.getNodeParameter('webhookMaxWaitMinutes', itemIndex, DEFAULT_MAX_WAIT_MINUTES) as unknown;
	if (typeof minutes !== 'number' || !Number.isFinite(minutes) || minutes <= 0) {
		throw invalidField(context, itemIndex, 'Max Wait (Minutes)', `must be a number greater than 0 (got ${quoted(minutes)})`);
	}
	const resumeUrl = String(context.evaluateExpression('{{ $execution.resumeUrl }}', itemIndex) ?? '');
	if (!/^https?:\/\//.test(resumeUrl)) {
		throw invalidField(context, itemIndex, 'Wait Mode', `cannot be used here: this execution has no resume URL (got ${quoted(resumeUrl)})`);
	}
	return {
		body: { ...spec.body, [spec.notifyField]: resumeUrl },
		async wait(submitted, extra) {
			if (submitted.final) return await finishedItem(context, itemIndex, submitted, spec.taskType, extra);
			context.customData.set(KEYS.taskId, submitted.task_id);
			context.customData.set(KEYS.taskType, spec.taskType);
			context.customData.set(KEYS.label, spec.label);
			// What n8n passes on if the wait runs out (it resumes the node with its input unchanged).
			const input = context.getInputData()[itemIndex]!;
			input.json = {
				...taskJson(submitted, spec.taskType, extra),
				status: 'timeout',
				final: false,
				timed_out: true,
				error: `No notification for ${spec.label} ${submitted.task_id} arrived within ${minutes} minutes. The task may still finish: check it with Get Task Status.`,
			};
			delete input.binary;
			await context.putExecutionToWait(new Date(Date.now() + minutes * 60_000));
			return { json: { ...taskJson(submitted, spec.taskType, extra), waiting_for_notification: true } };
		},
	};
}

/** The output item of a finished task, files downloaded if asked: the same as Poll mode's. */
async function finishedItem(
	context: IExecuteFunctions | IWebhookFunctions,
	itemIndex: number,
	task: NormalisedTask,
	taskType: string,
	extra: IDataObject,
): Promise<INodeExecutionData> {
	const item: INodeExecutionData = { json: taskJson(task, taskType, extra), pairedItem: { item: itemIndex } };
	const download = readParameter(context, 'downloadFiles', true, itemIndex) as boolean;
	const hasFiles = task.kind === 'image' ? task.generated.length > 0 : task.creations.length > 0;
	if (task.status === 'succeeded' && download && hasFiles) {
		const name = String(readParameter(context, 'binaryPropertyName', 'data', itemIndex) || 'data');
		item.binary = await downloadResults(context, itemIndex, task, taskType, name);
	}
	return item;
}

function readParameter(context: IExecuteFunctions | IWebhookFunctions, name: string, fallback: unknown, itemIndex: number): unknown {
	return 'getInputData' in context
		? context.getNodeParameter(name, itemIndex, fallback)
		: (context as IWebhookFunctions).getNodeParameter(name, fallback);
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
		item = await finishedItem(this, 0, task, taskType, {});
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
