/**
 * What the user sets about waiting for a task, and how the node reads it: the wait mode, the
 * result files, how long and how often to wait.
 *
 * Node version 2 puts how long and how often in the "Wait Options" collection that Host Cloud
 * shares. Version 1 keeps the layout its workflows were saved with ("Polling Options", and a
 * top-level "Max Wait (Minutes)" for Wait for Notification), read the way it always was, so those
 * workflows run unchanged.
 */
import type { IDataObject, IDisplayOptions, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { collectionOptions, fieldProperty, type FieldDefinition } from '../../../shared/fields';
import { readResultFiles, resultFilesProperties, type ResultFiles } from '../../../shared/result-files';
import { NOT_AS_TOOL, readToolWaitMs, runsAsTool, toolWaitProperty } from '../../../shared/tool-use';
import { invalidField, quoted } from '../../../shared/validation';
import {
	BEFORE_WAIT_OPTIONS,
	hasWaitOptions,
	maxWaitMinutesField,
	pollIntervalSecondsField,
	readWaitOptions,
	waitOptionsProperty,
} from '../../../shared/wait-options';
import type { TaskKind } from '../../transport/media-api';

type Show = NonNullable<IDisplayOptions['show']>;

export const WAIT_MODES = ['poll', 'webhook', 'none'] as const;
export type WaitMode = (typeof WAIT_MODES)[number];

/** Default pause between polls: images finish in seconds, videos in minutes. */
const DEFAULT_POLL_SECONDS: Record<TaskKind, number> = { image: 5, video: 10 };

const POLL_MAX_WAIT_MINUTES = 30;
const WEBHOOK_MAX_WAIT_MINUTES = 120;

const POLL_MAX_WAIT = maxWaitMinutesField(
	POLL_MAX_WAIT_MINUTES,
	'How long to wait for the task before the node fails. The task itself keeps running on the service.',
);

const WEBHOOK_MAX_WAIT = maxWaitMinutesField(
	WEBHOOK_MAX_WAIT_MINUTES,
	'How long to wait for the notification. If none arrives, the execution resumes with an item whose status is "timeout" (the task may still finish: check it with Get Task Status).',
);

const pollInterval = (kind: TaskKind): FieldDefinition =>
	pollIntervalSecondsField(DEFAULT_POLL_SECONDS[kind], 'Pause before the first status check; later pauses grow up to four times as long');

const pollFields = (kind: TaskKind): FieldDefinition[] => [POLL_MAX_WAIT, pollInterval(kind)];

/** Version 1's "Polling Options", as workflows saved with it hold them. */
function pollingOptionsV1(kind: TaskKind, show: Show): INodeProperties {
	return {
		displayName: 'Polling Options',
		name: 'pollingOptions',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show: { ...show, ...BEFORE_WAIT_OPTIONS } },
		options: collectionOptions([POLL_MAX_WAIT, pollInterval(kind)]),
	};
}

/** How long and how often to poll, in either version's layout. */
function pollWaitProperties(kind: TaskKind, show: Show): INodeProperties[] {
	return [pollingOptionsV1(kind, show), waitOptionsProperty(pollFields(kind), show)];
}

/** What Wait for Notification asks: a notice of what it needs, and how long to wait. */
function webhookWaitProperties(show: Show): INodeProperties[] {
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
			...fieldProperty({ ...WEBHOOK_MAX_WAIT, name: 'webhookMaxWaitMinutes' }),
			displayOptions: { show: { ...show, ...BEFORE_WAIT_OPTIONS } },
		},
		waitOptionsProperty([WEBHOOK_MAX_WAIT], show),
	];
}

/** Wait mode, result files and waiting options of a submit operation. */
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
						"Pause the execution until the service notifies that the task is finished (no worker is held while it runs), then read the result from the task's status. One item per execution.",
					// A tool call cannot pause the execution it answers.
					displayOptions: NOT_AS_TOOL,
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
		toolWaitProperty(),
		...resultFilesProperties({ waitMode: ['poll', 'webhook'] }),
		...pollWaitProperties(kind, { waitMode: ['poll'] }),
		...webhookWaitProperties({ waitMode: ['webhook'] }),
	];
}

/** Options of a status operation: optionally wait for the task to finish. */
export function statusWaitProperties(kind: TaskKind): INodeProperties[] {
	const show = { waitForCompletion: [true] };
	return [
		{
			displayName: 'Wait for Completion',
			name: 'waitForCompletion',
			type: 'boolean',
			default: false,
			description: 'Whether to keep checking until the task is finished, instead of returning its current status',
			// A tool call always waits, up to Tool Wait.
			displayOptions: NOT_AS_TOOL,
		},
		toolWaitProperty(),
		...resultFilesProperties(show),
		...pollWaitProperties(kind, show),
	];
}

/** The wait mode of a submit operation, checked. */
export function waitModeOf(context: IExecuteFunctions, itemIndex: number): WaitMode {
	const mode = context.getNodeParameter('waitMode', itemIndex, 'poll') as string;
	if ((WAIT_MODES as readonly string[]).includes(mode)) return mode as WaitMode;
	throw invalidField(
		context,
		itemIndex,
		'Wait Mode',
		`must be one of Poll Until Finished (poll), Wait for Notification (webhook) or Don't Wait (none) (got ${quoted(mode)})`,
	);
}

export interface PollSettings extends ResultFiles {
	intervalMs: number;
	maxWaitMs: number;
}

/** Version 1's check: any number above 0 (up to the field's bound), a numeric text included; left out, the default. */
function positiveV1(context: IExecuteFunctions, itemIndex: number, field: FieldDefinition, value: unknown, fallback: number): number {
	if (value === undefined || value === null || value === '') return fallback;
	const number = typeof value === 'string' ? Number(value) : value;
	if (typeof number !== 'number' || !Number.isFinite(number) || number <= 0) {
		throw invalidField(context, itemIndex, field.displayName, `must be a number greater than 0 (got ${quoted(value)})`);
	}
	return withinBound(context, itemIndex, field, number);
}

/** A version-1 value above the field's upper bound is refused, naming the bound. */
function withinBound(context: IExecuteFunctions, itemIndex: number, field: FieldDefinition, number: number): number {
	const max = field.kind === 'number' ? field.max : undefined;
	if (max !== undefined && number > max)
		throw invalidField(context, itemIndex, field.displayName, `must be at most ${max} (got ${quoted(number)})`);
	return number;
}

/** Reads and checks how to poll, before anything is sent. */
export function readPollSettings(context: IExecuteFunctions, itemIndex: number, kind: TaskKind): PollSettings {
	let intervalSeconds: number;
	let maxWaitMinutes: number;
	if (hasWaitOptions(context)) {
		const options = readWaitOptions(context, itemIndex, pollFields(kind));
		intervalSeconds = options.pollIntervalSeconds as number;
		maxWaitMinutes = options.maxWaitMinutes as number;
	} else {
		const options = context.getNodeParameter('pollingOptions', itemIndex, {}) as IDataObject;
		intervalSeconds = positiveV1(context, itemIndex, pollInterval(kind), options.pollIntervalSeconds, DEFAULT_POLL_SECONDS[kind]);
		maxWaitMinutes = positiveV1(context, itemIndex, POLL_MAX_WAIT, options.maxWaitMinutes, POLL_MAX_WAIT_MINUTES);
	}
	// A tool call waits at most Tool Wait and never downloads (read here, before anything is sent).
	if (runsAsTool(context)) {
		return {
			intervalMs: intervalSeconds * 1000,
			maxWaitMs: readToolWaitMs(context, itemIndex),
			download: false,
			binaryPropertyName: 'data',
		};
	}
	return { intervalMs: intervalSeconds * 1000, maxWaitMs: maxWaitMinutes * 60_000, ...readResultFiles(context, itemIndex) };
}

/** Reads and checks how long Wait for Notification waits, before anything is sent. */
export function readWebhookMaxWaitMinutes(context: IExecuteFunctions, itemIndex: number): number {
	if (hasWaitOptions(context)) return readWaitOptions(context, itemIndex, [WEBHOOK_MAX_WAIT]).maxWaitMinutes as number;
	const minutes = context.getNodeParameter('webhookMaxWaitMinutes', itemIndex, WEBHOOK_MAX_WAIT_MINUTES) as unknown;
	// Version 1 took a number only (no numeric text), and refused an empty field.
	if (typeof minutes !== 'number' || !Number.isFinite(minutes) || minutes <= 0) {
		throw invalidField(context, itemIndex, WEBHOOK_MAX_WAIT.displayName, `must be a number greater than 0 (got ${quoted(minutes)})`);
	}
	return withinBound(context, itemIndex, WEBHOOK_MAX_WAIT, minutes);
}
