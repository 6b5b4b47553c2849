/**
 * Submitting an image or video task and waiting for it, the same way for every operation:
 *  - Poll: ask the task's status path until it is final (shared poller), then return the result
 *    URLs and, if asked, the files as binary data;
 *  - Wait for Notification: send the execution's resume URL as the task's notification URL and put
 *    the execution to wait, so no worker is held; `webhook-wait.ts` resumes it;
 *  - Don't Wait: return the task ID at once (a Host Task Trigger can receive the notifications).
 */
import type {
	IBinaryData,
	IDataObject,
	IDisplayOptions,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { downloadToBinary } from '../../shared/binary';
import { startWebhookWait, webhookWaitProperties } from './webhook-wait';
import { assertSucceeded, pollTask, statusFailure } from './task-poller';
import { normaliseTask, type NormalisedTask } from '../../shared/task-status';
import { hostRequest } from '../../shared/transport';
import { invalidField, quoted, requiredText } from '../../shared/validation';

export type TaskKind = 'image' | 'video';

export const WAIT_MODES = ['poll', 'webhook', 'none'] as const;
export type WaitMode = (typeof WAIT_MODES)[number];

export interface TaskSpec {
	kind: TaskKind;
	/** Status path name of an image task, or the video endpoint. */
	taskType: string;
	/** The task in words for messages: "upscale task". */
	label: string;
	submitPath: string;
	/** Body field that takes a notification URL. */
	notifyField: 'webhook_url' | 'callback_url';
	statusPath(taskId: string): string;
	body: IDataObject;
}

/** Default pause between polls: images finish in seconds, videos in minutes. */
const DEFAULT_POLL_SECONDS: Record<TaskKind, number> = { image: 5, video: 10 };
const DEFAULT_MAX_WAIT_MINUTES = 30;

/** Fields of a video submit answer worth passing on (the rest echoes the request, images included). */
const VIDEO_SUBMIT_FIELDS = ['credits', 'created_at', 'model', 'duration', 'resolution', 'seed', 'aspect_ratio'];

/** Whether and where to put the result files, for every mode that waits for the result. */
function downloadProperties(show: NonNullable<IDisplayOptions['show']>): INodeProperties[] {
	return [
		{
			displayName: 'Download Result Files',
			name: 'downloadFiles',
			type: 'boolean',
			default: true,
			description: 'Whether to download the generated files into binary data, in addition to returning their URLs',
			displayOptions: { show },
		},
		{
			displayName: 'Put Files in Field',
			name: 'binaryPropertyName',
			type: 'string',
			default: 'data',
			description: 'Binary field for the first file; further files go to data_1, data_2 and so on (with this name instead of "data")',
			displayOptions: { show: { ...show, downloadFiles: [true] } },
		},
	];
}

/** How often and how long to poll. */
function pollingOptionsProperty(kind: TaskKind, show: NonNullable<IDisplayOptions['show']>): INodeProperties {
	const pollSeconds = DEFAULT_POLL_SECONDS[kind];
	return {
		displayName: 'Polling Options',
		name: 'pollingOptions',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show },
		options: [
			{
				displayName: 'Max Wait (Minutes)',
				name: 'maxWaitMinutes',
				type: 'number',
				default: DEFAULT_MAX_WAIT_MINUTES,
				typeOptions: { minValue: 0.01, numberPrecision: 2 },
				description: 'How long to wait for the task before the node fails. The task itself keeps running on the service.',
			},
			{
				displayName: 'Poll Interval (Seconds)',
				name: 'pollIntervalSeconds',
				type: 'number',
				default: pollSeconds,
				typeOptions: { minValue: 0.01, numberPrecision: 2 },
				description: 'Pause before the first status check; later pauses grow up to four times as long',
			},
		],
	};
}

/** "Wait for Completion" style options shared by status operations. */
function pollingProperties(kind: TaskKind, show: NonNullable<IDisplayOptions['show']>): INodeProperties[] {
	return [...downloadProperties(show), pollingOptionsProperty(kind, show)];
}

/** Wait mode and polling options of a submit operation. */
export function waitProperties(kind: TaskKind): INodeProperties[] {
	const notify = kind === 'image' ? 'Webhook URL' : 'Callback URL';
	return [
		{
			displayName: 'Wait Mode',
			name: 'waitMode',
			type: 'options',
			options: [
				{
					name: 'Poll Until Finished',
					value: 'poll',
					description: 'Check the task status until it is finished, then return the results',
				},
				{
					name: 'Wait for Notification',
					value: 'webhook',
					description:
						'Pause the execution until the service notifies that the task is finished (no worker is held while it runs). One item per execution.',
				},
				{
					name: "Don't Wait",
					value: 'none',
					description: `Return the task ID at once. To be told when it finishes, set ${notify} to a Host Task Trigger's URL.`,
				},
			],
			default: 'poll',
			description: 'Whether and how the node waits for the task to finish',
		},
		...downloadProperties({ waitMode: ['poll', 'webhook'] }),
		pollingOptionsProperty(kind, { waitMode: ['poll'] }),
		...webhookWaitProperties({ waitMode: ['webhook'] }),
	];
}

/** Options of a status operation: optionally wait for the task to finish. */
export function statusWaitProperties(kind: TaskKind): INodeProperties[] {
	return [
		{
			displayName: 'Wait for Completion',
			name: 'waitForCompletion',
			type: 'boolean',
			default: false,
			description: 'Whether to keep checking until the task is finished, instead of returning its current status',
		},
		...pollingProperties(kind, { waitForCompletion: [true] }),
	];
}

interface PollSettings {
	intervalMs: number;
	maxWaitMs: number;
	download: boolean;
	binaryPropertyName: string;
}

/** Reads and checks the polling options before anything is sent. */
function pollSettings(context: IExecuteFunctions, itemIndex: number, kind: TaskKind): PollSettings {
	const options = context.getNodeParameter('pollingOptions', itemIndex, {}) as IDataObject;
	const positive = (field: string, value: unknown, fallback: number): number => {
		if (value === undefined || value === null || value === '') return fallback;
		const number = typeof value === 'string' ? Number(value) : value;
		if (typeof number !== 'number' || !Number.isFinite(number) || number <= 0) {
			throw invalidField(context, itemIndex, field, `must be a number greater than 0 (got ${quoted(value)})`);
		}
		return number;
	};
	const intervalSeconds = positive('Poll Interval (Seconds)', options.pollIntervalSeconds, DEFAULT_POLL_SECONDS[kind]);
	const maxWaitMinutes = positive('Max Wait (Minutes)', options.maxWaitMinutes, DEFAULT_MAX_WAIT_MINUTES);
	const download = context.getNodeParameter('downloadFiles', itemIndex, true) as boolean;
	const binaryPropertyName = download
		? requiredText(context, itemIndex, 'Put Files in Field', context.getNodeParameter('binaryPropertyName', itemIndex, 'data'))
		: 'data';
	return { intervalMs: intervalSeconds * 1000, maxWaitMs: maxWaitMinutes * 60_000, download, binaryPropertyName };
}

/** The wait mode of a submit operation, checked. */
function waitModeOf(context: IExecuteFunctions, itemIndex: number): WaitMode {
	const mode = context.getNodeParameter('waitMode', itemIndex, 'poll') as string;
	if ((WAIT_MODES as readonly string[]).includes(mode)) return mode as WaitMode;
	throw invalidField(
		context,
		itemIndex,
		'Wait Mode',
		`must be one of Poll Until Finished (poll), Wait for Notification (webhook) or Don't Wait (none) (got ${quoted(mode)})`,
	);
}

/** The JSON of an output item: the task in the shared status vocabulary plus its results. */
export function taskJson(task: NormalisedTask, taskType: string, extra: IDataObject = {}): IDataObject {
	const json: IDataObject = {
		task_id: task.task_id,
		task_type: taskType,
		status: task.status,
		raw_status: task.raw_status,
		final: task.final,
		...extra,
	};
	if (task.kind === 'image') {
		json.generated = task.generated;
		if (task.generated[0]) json.url = task.generated[0];
	} else {
		json.creations = task.creations as unknown as IDataObject[];
		if (task.creations[0]) {
			json.video_url = task.creations[0].url;
			if (task.creations[0].cover_url) json.cover_url = task.creations[0].cover_url;
		}
	}
	if (task.error) json.error = task.error;
	return json;
}

/** Result URLs of a finished task: the images, or the videos. */
const resultUrls = (task: NormalisedTask): string[] =>
	task.kind === 'image' ? task.generated : task.creations.map((creation) => creation.url);

/** Downloads every result file into binary fields `name`, `name_1`, `name_2`… */
export async function downloadResults(
	context: IExecuteFunctions | IWebhookFunctions,
	itemIndex: number,
	task: NormalisedTask,
	taskType: string,
	name: string,
): Promise<Record<string, IBinaryData>> {
	const binary: Record<string, IBinaryData> = {};
	const urls = resultUrls(task);
	for (const [index, url] of urls.entries()) {
		binary[index === 0 ? name : `${name}_${index}`] = await downloadToBinary(context, url, {
			itemIndex,
			fallbackName: `${taskType}-${task.task_id}${urls.length > 1 ? `-${index + 1}` : ''}`,
			what: `result file ${index + 1} of task ${task.task_id}`,
		});
	}
	return binary;
}

/** Waits for a task by polling and builds its output item. */
async function pollToItem(
	context: IExecuteFunctions,
	itemIndex: number,
	settings: PollSettings,
	target: {
		kind: TaskKind;
		taskType: string;
		label: string;
		taskId: string;
		statusPath: string;
		initial?: NormalisedTask;
		pollFirst?: boolean;
	},
	extra: IDataObject,
): Promise<INodeExecutionData> {
	const final = await pollTask(context, {
		credentialType: 'hostApi',
		statusPath: target.statusPath,
		taskId: target.taskId,
		itemIndex,
		intervalMs: settings.intervalMs,
		maxWaitMs: settings.maxWaitMs,
		label: target.label,
		initial: target.initial,
		pollFirst: target.pollFirst,
	});
	const task = assertSucceeded(context, final, target.label, itemIndex);
	const item: INodeExecutionData = { json: taskJson(task, target.taskType, extra) };
	if (settings.download && resultUrls(task).length > 0)
		item.binary = await downloadResults(context, itemIndex, task, target.taskType, settings.binaryPropertyName);
	return item;
}

/** Submits the task, then waits as the user chose. */
export async function runTask(context: IExecuteFunctions, itemIndex: number, spec: TaskSpec): Promise<INodeExecutionData[]> {
	const mode = waitModeOf(context, itemIndex);
	// Checked before the submit: a bad option must not cost a task.
	const settings = mode === 'poll' ? pollSettings(context, itemIndex, spec.kind) : undefined;
	const webhookWait = mode === 'webhook' ? startWebhookWait(context, itemIndex, spec) : undefined;
	const answer = await hostRequest<unknown>(context, 'hostApi', {
		method: 'POST',
		path: spec.submitPath,
		body: webhookWait ? webhookWait.body : spec.body,
		itemIndex,
		action: `starting the ${spec.label}`,
		// The resume URL's signature lets anyone resume the execution: never echoed into a message or output.
		secrets: webhookWait ? [String(webhookWait.body[spec.notifyField])] : undefined,
	});
	const submitted = normaliseTask(answer);
	if (!submitted) {
		throw new NodeOperationError(context.getNode(), `The service accepted the ${spec.label} but its answer has no task ID and status`, {
			itemIndex,
			description: `Answer received: ${JSON.stringify(answer)?.slice(0, 300) ?? String(answer)}`,
		});
	}
	const extra: IDataObject = {};
	if (spec.kind === 'video' && typeof answer === 'object' && answer !== null) {
		for (const field of VIDEO_SUBMIT_FIELDS) {
			const value = (answer as IDataObject)[field];
			if (value !== undefined && value !== null) extra[field] = value;
		}
	}
	const statusPath = spec.statusPath(submitted.task_id);
	if (webhookWait) return [await webhookWait.wait(submitted, { ...extra, status_path: statusPath })];
	if (mode === 'none') {
		const notify = spec.body[spec.notifyField];
		return [
			{
				json: taskJson(submitted, spec.taskType, { ...extra, status_path: statusPath, ...(notify ? { [spec.notifyField]: notify } : {}) }),
			},
		];
	}
	return [
		await pollToItem(
			context,
			itemIndex,
			settings!,
			{ kind: spec.kind, taskType: spec.taskType, label: spec.label, taskId: submitted.task_id, statusPath, initial: submitted },
			extra,
		),
	];
}

/** A status operation: the current status, or (when asked) the final result after polling. */
export async function taskStatus(
	context: IExecuteFunctions,
	itemIndex: number,
	target: { kind: TaskKind; taskType: string; label: string; taskId: string; statusPath: string },
): Promise<INodeExecutionData[]> {
	const wait = context.getNodeParameter('waitForCompletion', itemIndex, false) as boolean;
	if (wait) {
		const settings = pollSettings(context, itemIndex, target.kind);
		return [await pollToItem(context, itemIndex, settings, { ...target, pollFirst: true }, {})];
	}
	let answer: unknown;
	try {
		answer = await hostRequest<unknown>(context, 'hostApi', {
			method: 'GET',
			path: target.statusPath,
			itemIndex,
			retry: true,
			action: `checking ${target.label} ${target.taskId}`,
		});
	} catch (error) {
		throw statusFailure(context, error, { ...target, itemIndex });
	}
	const task = normaliseTask(answer);
	if (!task) {
		throw new NodeOperationError(context.getNode(), `The status answer for ${target.label} ${target.taskId} could not be read`, {
			itemIndex,
			description: `Answer received: ${JSON.stringify(answer)?.slice(0, 300) ?? String(answer)}`,
		});
	}
	return [{ json: taskJson(task, target.taskType) }];
}
