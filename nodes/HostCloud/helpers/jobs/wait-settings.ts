/**
 * How the node waits for cloud jobs (Execute and Wait for Completion), each setting defined once
 * (editor parameter and check) with the shared field mechanism, and read once per node run.
 * Version 2 puts them in "Wait Options" with Max Wait in minutes, as Host Media does; version 1
 * keeps its saved layout: everything under "Additional Fields", Max Wait in seconds.
 */
import type { IDataObject, IDisplayOptions, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { checkedOrDefault, collectionOptions, type FieldDefinition } from '../../../shared/fields';
import {
	LONGEST_PAUSE_SECONDS,
	LONGEST_WAIT_MINUTES,
	BEFORE_WAIT_OPTIONS,
	hasWaitOptions,
	SINCE_WAIT_OPTIONS,
	readWaitOptions as readWaitOptionsCollection,
} from '../../../shared/wait-options';
import type { WatchSettings } from './tracked-job';
import { maxWaitMinutesField, pollIntervalSecondsField, waitOptionsProperty } from '../../../shared/descriptions/wait-settings';

const DEFAULT_MAX_WAIT_MINUTES = 30;
const MAX_WAIT_DESCRIPTION = 'Longest time to wait for one job. 0 waits without limit.';
const POLL_DESCRIPTION =
	'How often to ask for a job’s status when live progress is not available (no WebSocket, or it went quiet or closed)';

const INCLUDE_PREVIEW: FieldDefinition = {
	name: 'includePreview',
	displayName: 'Include Preview Image',
	kind: 'boolean',
	default: false,
	description: 'Whether to add the last in-progress preview the cloud sent for the job as binary data named "preview"',
};

export const MAX_CONCURRENT_JOBS: FieldDefinition = {
	name: 'maxConcurrentJobs',
	displayName: 'Max Concurrent Jobs',
	kind: 'integer',
	min: 1,
	max: 50,
	default: 3,
	description:
		'How many items run on the cloud at the same time. Match your plan’s parallel limit (1, 3 or 5); extra jobs wait in the cloud queue.',
};

export const INCLUDE_RAW_OUTPUTS: FieldDefinition = {
	name: 'includeRawOutputs',
	displayName: 'Include Raw Outputs',
	kind: 'boolean',
	default: false,
	description: 'Whether to add the outputs exactly as the cloud reported them, by node ID (under "outputs")',
};

const ON_TIMEOUT: FieldDefinition = {
	name: 'onTimeout',
	displayName: 'On Timeout',
	kind: 'options',
	options: [
		{ name: 'Cancel the Job', value: 'cancel', description: 'Stop the job on the cloud so it uses no more credits' },
		{ name: 'Leave It Running', value: 'keep', description: 'Collect it later with Wait for Completion and its prompt_id' },
	],
	default: 'cancel',
	description: 'What happens to a job that is still running when Max Wait is reached',
};

const SILENCE: FieldDefinition = {
	name: 'silenceSeconds',
	displayName: 'Silence Timeout (Seconds)',
	kind: 'number',
	min: 0.01,
	max: LONGEST_PAUSE_SECONDS,
	default: 15,
	description: 'When the live progress connection sends nothing for this long, the node checks on its jobs by asking for their status',
};

const USE_WEBSOCKET: FieldDefinition = {
	name: 'useWebSocket',
	displayName: 'Use Live Progress (WebSocket)',
	kind: 'boolean',
	default: true,
	description:
		'Whether to follow jobs over a WebSocket, which reports the end of a job at once. When off, or where n8n has no WebSocket client, the node polls the job status instead.',
};

const POLL_INTERVAL = pollIntervalSecondsField(2, POLL_DESCRIPTION);

/** Version 2: "Wait Options". */
const WAIT_OPTIONS: FieldDefinition[] = [
	maxWaitMinutesField(DEFAULT_MAX_WAIT_MINUTES, MAX_WAIT_DESCRIPTION, true),
	POLL_INTERVAL,
	ON_TIMEOUT,
	SILENCE,
	USE_WEBSOCKET,
];

/** Version 1: the same settings among "Additional Fields", Max Wait in seconds. */
const V1_MAX_WAIT_SECONDS: FieldDefinition = {
	name: 'maxWaitSeconds',
	displayName: 'Max Wait (Seconds)',
	kind: 'number',
	min: 0,
	max: LONGEST_WAIT_MINUTES * 60,
	default: DEFAULT_MAX_WAIT_MINUTES * 60,
	description: MAX_WAIT_DESCRIPTION,
};
const V1_WAIT_FIELDS: FieldDefinition[] = [INCLUDE_PREVIEW, V1_MAX_WAIT_SECONDS, POLL_INTERVAL, ON_TIMEOUT, SILENCE, USE_WEBSOCKET];

/**
 * The wait parameters of an operation for both versions: `additional` are the operation's other
 * "Additional Fields" (given as parameters), `concurrency` whether it offers Max Concurrent Jobs.
 */
export function waitProperties(additional: INodeProperties[], concurrency: boolean): INodeProperties[] {
	const own = concurrency ? [MAX_CONCURRENT_JOBS] : [];
	const additionalFields = (fields: FieldDefinition[], show: NonNullable<IDisplayOptions['show']>): INodeProperties => ({
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		displayOptions: { show },
		options: collectionOptions(fields, additional),
	});
	return [
		waitOptionsProperty(WAIT_OPTIONS),
		additionalFields([...own, INCLUDE_PREVIEW], SINCE_WAIT_OPTIONS),
		additionalFields([...own, ...V1_WAIT_FIELDS], BEFORE_WAIT_OPTIONS),
	];
}

export interface WaitOptions extends WatchSettings {
	maxConcurrentJobs: number;
	includePreview: boolean;
}

/** Reads the wait settings of the first item: they apply to the whole run. */
export function readWaitOptions(context: IExecuteFunctions): WaitOptions {
	const additional = context.getNodeParameter('additionalFields', 0, {}) as IDataObject;
	const field = (definition: FieldDefinition): unknown => checkedOrDefault(context, 0, definition, additional[definition.name]);
	const v2 = hasWaitOptions(context);
	const wait = v2
		? readWaitOptionsCollection(context, 0, WAIT_OPTIONS)
		: Object.fromEntries(V1_WAIT_FIELDS.map((definition) => [definition.name, field(definition)]));
	const includePreview = field(INCLUDE_PREVIEW) as boolean;
	return {
		maxConcurrentJobs: field(MAX_CONCURRENT_JOBS) as number,
		includePreview,
		keepPreview: includePreview,
		maxWaitMs: Math.round(v2 ? (wait.maxWaitMinutes as number) * 60_000 : (wait.maxWaitSeconds as number) * 1000),
		cancelOnTimeout: wait.onTimeout === 'cancel',
		pollIntervalMs: Math.round((wait.pollIntervalSeconds as number) * 1000),
		silenceMs: Math.round((wait.silenceSeconds as number) * 1000),
		useWebSocket: wait.useWebSocket as boolean,
	};
}

/**
 * The wait of a tool call: bounded by Tool Wait instead of Max Wait, and the job is left running at
 * the bound (an agent collects it with Get Status); no preview, which no model would see.
 */
export function toolWaitOptions(options: WaitOptions, toolWaitMs: number): WaitOptions {
	return { ...options, maxWaitMs: toolWaitMs, cancelOnTimeout: false, includePreview: false, keepPreview: false };
}
