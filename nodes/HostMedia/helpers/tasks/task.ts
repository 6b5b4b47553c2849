/**
 * tasks/: image and video tasks from submit to output item (polling, Wait for Notification, the
 * wait parameters). It may call transport/ and nodes/shared; nothing in music/ or inputs/.
 *
 * Submitting an image or video task and waiting for it, the same way for every operation:
 *  - Poll: ask the task's status path until it is final (shared poller), then return the result
 *    URLs and, if asked, the files as binary data;
 *  - Wait for Notification: send the execution's resume URL as the task's notification URL and put
 *    the execution to wait, so no worker is held; `webhook-wait.ts` resumes it;
 *  - Don't Wait: return the task ID at once (a Host Task Trigger can receive the notifications).
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { pathSegmentProblem } from '../../../shared/items/path-segment';
import { resumeUrlSecrets } from '../../../shared/transport/redaction';
import { clipText } from '../../../shared/transport/service-values';
import { normaliseTask, type NormalisedTask } from '../../../shared/tasks/task-status';
import { notForTools, runsAsTool } from '../../../shared/tools/tool-use';
import { ownValue } from '../../../shared/items/validation';
import { getTask, NOTIFY_FIELD, startTask, taskRef, taskStatusPath, type TaskRef } from '../../transport/media-api';
import { MEDIA_TASKS, type StartableTaskType } from '../../transport/media-tasks';
import { assertSucceeded, pollTask, statusFailure } from './poller';
import { statusAnswerOf } from './status-answer';
import { finishedItem, taskForTool, taskJson } from './task-item';
import { readPollSettings, waitModeOf, type PollSettings, type WaitFields } from './wait-settings';
import { startWebhookWait } from './webhook-wait';

/** A task an operation starts: its row of the catalogue (kind, words, paths) and its body. */
export interface TaskSpec<Body extends IDataObject> {
	taskType: StartableTaskType;
	body: Body;
	/** The wait fields of the operation's form. */
	wait: WaitFields;
}

/** A task to report on: which one, how it is named in outputs (`task_type`) and in messages. */
export interface StatusTarget {
	task: TaskRef;
	taskType: string;
	label: string;
}

/** Fields of a video submit answer worth passing on (the rest echoes the request, images included). */
const VIDEO_SUBMIT_FIELDS = ['credits', 'created_at', 'model', 'duration', 'resolution', 'seed', 'aspect_ratio'];

/** An answer that is no task's status: the error quotes it. */
function unreadableAnswer(context: IExecuteFunctions, itemIndex: number, answer: unknown, problem: string): NodeOperationError {
	return new NodeOperationError(context.getNode(), problem, {
		itemIndex,
		description: `Answer received: ${JSON.stringify(answer)?.slice(0, 300) ?? String(answer)}`,
	});
}

/** The task read from an answer, or an error quoting the answer. */
function taskOf(context: IExecuteFunctions, itemIndex: number, answer: unknown, problem: string): NormalisedTask {
	const task = normaliseTask(answer);
	if (task) return task;
	throw unreadableAnswer(context, itemIndex, answer, problem);
}

/** The task a status answer reports, when it is the task asked; an error naming both when it is another's. */
function askedTaskOf(context: IExecuteFunctions, itemIndex: number, answer: unknown, target: StatusTarget): NormalisedTask {
	const read = statusAnswerOf(answer, target.task);
	if ('task' in read) return read.task;
	const { label, task } = target;
	if (read.otherTaskId === undefined)
		throw unreadableAnswer(context, itemIndex, answer, `The status answer for ${label} ${task.taskId} could not be read`);
	throw new NodeOperationError(
		context.getNode(),
		`The service answered the status of ${label} ${task.taskId} with that of another task, ${read.otherTaskId}`,
		{
			itemIndex,
			description:
				"An answer about another task is never taken as this task's status, and nothing of it (status, files) is passed on. This is a fault of the service, or of a gateway before it: check the task again later.",
		},
	);
}

/**
 * Waits for a task by polling and builds its output item. A tool call (its settings bounded by
 * Tool Wait) answers the task as it stands at the bound: it goes on on the service; nothing is
 * downloaded.
 */
async function pollToItem(
	context: IExecuteFunctions,
	itemIndex: number,
	settings: PollSettings,
	target: StatusTarget & { initial?: NormalisedTask; pollFirst?: boolean },
	extra: IDataObject,
): Promise<INodeExecutionData> {
	const asTool = runsAsTool(context);
	const last = await pollTask(context, {
		task: target.task,
		itemIndex,
		intervalMs: settings.intervalMs,
		maxWaitMs: settings.maxWaitMs,
		label: target.label,
		initial: target.initial,
		pollFirst: target.pollFirst,
		untilDeadline: asTool,
	});
	if (asTool && !last.final) return taskForTool(last, target.taskType, itemIndex, settings.maxWaitMs);
	const task = assertSucceeded(context, last, target.label, itemIndex);
	if (asTool) return taskForTool(task, target.taskType, itemIndex);
	return await finishedItem(context, itemIndex, task, target.taskType, extra, settings);
}

/** Submits the task, then waits as the user chose. */
export async function runTask<Body extends IDataObject>(
	context: IExecuteFunctions,
	itemIndex: number,
	{ taskType, body, wait }: TaskSpec<Body>,
): Promise<INodeExecutionData[]> {
	const spec = { taskType, body, wait, ...MEDIA_TASKS[taskType] };
	const mode = waitModeOf(context, itemIndex);
	if (mode === 'webhook' && runsAsTool(context)) {
		throw notForTools(
			context,
			itemIndex,
			'Wait Mode "Wait for Notification" pauses the execution until the service calls back, and a tool call must answer while its caller waits. Choose Poll Until Finished (the tool then waits up to Tool Wait) or Don\'t Wait.',
		);
	}
	// Checked before the submit: a bad option must not cost a task.
	const settings = mode === 'poll' ? readPollSettings(context, itemIndex, wait) : undefined;
	const webhookWait = mode === 'webhook' ? startWebhookWait(context, itemIndex, spec) : undefined;
	const answer = await startTask(context, spec.taskType, webhookWait ? webhookWait.body : spec.body, {
		itemIndex,
		label: spec.label,
		secrets: webhookWait ? resumeUrlSecrets(webhookWait.resumeUrl) : undefined,
	});
	const submitted = taskOf(context, itemIndex, answer, `The service accepted the ${spec.label} but its answer has no task ID and status`);
	// The id goes into the status path: one that cannot be a path segment is never sent.
	const unusableId = pathSegmentProblem(submitted.task_id);
	if (unusableId) {
		throw new NodeOperationError(
			context.getNode(),
			`The service accepted the ${spec.label} but its task ID ${unusableId}, so its status cannot be read`,
			{
				itemIndex,
				description: 'The task may run all the same: check it on the service. This answer is a fault of the service.',
			},
		);
	}
	const extra: IDataObject = {};
	if (spec.kind === 'video' && typeof answer === 'object' && answer !== null) {
		for (const field of VIDEO_SUBMIT_FIELDS) {
			const value = ownValue(answer as IDataObject, field);
			// Words and numbers only, a word's length: the service's text never floods the item.
			if (typeof value === 'string') extra[field] = clipText(value, 200);
			else if (typeof value === 'number' || typeof value === 'boolean') extra[field] = value;
		}
	}
	const task = taskRef(spec.taskType, submitted.task_id);
	const statusPath = taskStatusPath(task);
	if (webhookWait) return [await webhookWait.wait(submitted, { ...extra, status_path: statusPath })];
	if (mode === 'none') {
		if (runsAsTool(context)) return [taskForTool(submitted, spec.taskType, itemIndex)];
		const notifyField = NOTIFY_FIELD[spec.kind];
		const notify = spec.body[notifyField];
		return [
			{ json: taskJson(submitted, spec.taskType, { ...extra, status_path: statusPath, ...(notify ? { [notifyField]: notify } : {}) }) },
		];
	}
	return [await pollToItem(context, itemIndex, settings!, { task, taskType: spec.taskType, label: spec.label, initial: submitted }, extra)];
}

/** A status operation: the current status, or (when asked) the final result after polling. */
export async function taskStatus(
	context: IExecuteFunctions,
	itemIndex: number,
	target: StatusTarget,
	wait: WaitFields,
): Promise<INodeExecutionData[]> {
	// A tool call always waits (up to Tool Wait): a model cannot pause between two checks.
	const waits = runsAsTool(context) || (context.getNodeParameter('waitForCompletion', itemIndex, false) as boolean);
	if (waits) {
		const settings = readPollSettings(context, itemIndex, wait);
		return [await pollToItem(context, itemIndex, settings, { ...target, pollFirst: true }, {})];
	}
	let answer: unknown;
	try {
		answer = await getTask(context, target.task, { itemIndex, label: target.label, retry: true });
	} catch (error) {
		throw statusFailure(context, error, { task: target.task, label: target.label, itemIndex });
	}
	return [{ json: taskJson(askedTaskOf(context, itemIndex, answer, target), target.taskType) }];
}
