/**
 * Host Media's parameters that several operations show: the wait mode and waiting options (read by
 * `helpers/tasks/wait-settings.ts`), image inputs (read by `helpers/inputs/image-input.ts`), and the
 * body fields the three video endpoints share (the pass-through payload, the callback URL, a prompt
 * of at most 2000 characters). Only this node's operation files import it.
 */
import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';

import { collectionOptions, fieldProperty, type FieldDefinition } from '../../shared/items/fields';
import { resultFilesProperties } from '../../shared/descriptions/result-files';
import { NOT_AS_TOOL, toolWaitProperty } from '../../shared/descriptions/tool-options';
import { maxWaitMinutesField, pollIntervalSecondsField, waitOptionsProperty } from '../../shared/descriptions/wait-settings';
import { BEFORE_WAIT_OPTIONS } from '../../shared/waits/wait-settings';
import type { ImageInputDefinition } from '../helpers/inputs/image-input';
import type { WaitFields } from '../helpers/tasks/wait-settings';
import type { TaskKind } from '../transport/media-api';
import { optionsOf, PAYLOAD_MAX_CHARS, VIDEO_PROMPT_MAX_CHARS } from '../transport/spec';

type Show = NonNullable<IDisplayOptions['show']>;

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

/** The wait fields of each kind of task, which the operations hand to the task helpers. */
export const WAIT_FIELDS: Record<TaskKind, WaitFields> = {
	image: { pollMaxWait: POLL_MAX_WAIT, pollInterval: pollInterval('image'), webhookMaxWait: WEBHOOK_MAX_WAIT },
	video: { pollMaxWait: POLL_MAX_WAIT, pollInterval: pollInterval('video'), webhookMaxWait: WEBHOOK_MAX_WAIT },
};

const pollFields = (kind: TaskKind): FieldDefinition[] => [WAIT_FIELDS[kind].pollMaxWait, WAIT_FIELDS[kind].pollInterval];

/** Version 1's "Polling Options", as workflows saved with it hold them. */
function pollingOptionsV1(kind: TaskKind, show: Show): INodeProperties {
	return {
		displayName: 'Polling Options',
		name: 'pollingOptions',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show: { ...show, ...BEFORE_WAIT_OPTIONS } },
		options: collectionOptions(pollFields(kind)),
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

const SOURCE_OPTIONS = [
	{ name: 'URL', value: 'url', description: 'A link the service downloads the image from' },
	{ name: 'Base64 Text', value: 'base64', description: 'The image bytes encoded as Base64 text' },
	{
		name: 'Binary Field',
		value: 'binary',
		description: 'A file in a binary field of the input item, e.g. from an HTTP Request or Read Files node',
		// A tool call's item holds the model's arguments only, never a file.
		displayOptions: NOT_AS_TOOL,
	},
];

/** The parameters of one image input: where it comes from, then the URL, Base64 text or binary field. */
export function imageInputProperties(image: ImageInputDefinition): INodeProperties[] {
	const sourceName = `${image.prefix}Source`;
	const sourceDescription = `${image.description} Choose where the ${image.label.toLowerCase()} comes from.`;
	return [
		{
			displayName: `${image.label} Source`,
			name: sourceName,
			type: 'options',
			options: SOURCE_OPTIONS,
			default: 'url',
			description: sourceDescription,
		},
		{
			displayName: `${image.label} URL`,
			name: `${image.prefix}Url`,
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://example.com/photo.jpg',
			description: image.httpsOnly
				? 'Public HTTPS address of the image; the service must be able to download it'
				: 'Public address of the image; the service must be able to download it',
			displayOptions: { show: { [sourceName]: ['url'] } },
		},
		{
			displayName: `${image.label} (Base64)`,
			name: `${image.prefix}Base64`,
			type: 'string',
			default: '',
			required: true,
			typeOptions: { rows: 2 },
			description: 'The image encoded as Base64 text (a data: URL prefix is removed)',
			displayOptions: { show: { [sourceName]: ['base64'] } },
		},
		{
			displayName: `${image.label} Binary Field`,
			name: `${image.prefix}BinaryProperty`,
			type: 'string',
			default: 'data',
			required: true,
			description: 'Name of the binary field of the input item that holds the image',
			displayOptions: { show: { [sourceName]: ['binary'] } },
		},
	];
}

/**
 * An optional image inside Additional Fields: `{prefix}` holds a URL or Base64 text and
 * `{prefix}BinaryProperty` names a binary field; at most one of the two may be set.
 */
export function optionalImageProperties(image: ImageInputDefinition): INodeProperties[] {
	const textDescription = `${image.description} Give a public URL or Base64 text here, or name a binary field in "${image.label} Binary Field".`;
	return [
		{
			displayName: `${image.label} (URL or Base64)`,
			name: image.prefix,
			type: 'string',
			default: '',
			placeholder: 'https://example.com/image.jpg',
			description: textDescription,
		},
		{
			displayName: `${image.label} Binary Field`,
			name: `${image.prefix}BinaryProperty`,
			type: 'string',
			default: 'data',
			description: `Name of the binary field of the input item that holds the ${image.label.toLowerCase()}, instead of a URL or Base64 text`,
		},
	];
}

export const PAYLOAD_FIELD: FieldDefinition = {
	name: 'payload',
	api: 'payload',
	displayName: 'Payload',
	kind: 'string',
	maxChars: PAYLOAD_MAX_CHARS,
	rows: 2,
	description:
		'Your own text (e.g. an order ID) passed through unchanged and sent back with the task notifications; at most 1,048,576 characters',
};

export const CALLBACK_URL_FIELD: FieldDefinition = {
	name: 'callbackUrl',
	api: 'callback_url',
	displayName: 'Callback URL',
	kind: 'url',
	description: 'Address notified on each status change of the task, e.g. a Host Task Trigger URL',
};

export const VIDEO_PROMPT_FIELD: FieldDefinition = {
	name: 'prompt',
	api: 'prompt',
	displayName: 'Prompt',
	kind: 'string',
	maxChars: VIDEO_PROMPT_MAX_CHARS,
	rows: 3,
	description: 'Describes the video; at most 2000 characters',
};

export function resolutionField(values: readonly string[], description: string): FieldDefinition {
	return {
		name: 'resolution',
		api: 'resolution',
		displayName: 'Resolution',
		kind: 'options',
		options: optionsOf(values),
		default: values.includes('720p') ? '720p' : values[0]!,
		description,
	};
}
