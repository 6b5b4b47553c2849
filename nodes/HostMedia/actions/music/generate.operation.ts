import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { DOWNLOAD_FILES, PUT_FILES_IN_FIELD } from '../../../shared/binary/result-files';
import { binaryFieldName } from '../../../shared/items/validation';
import {
	additionalFields,
	checkedField,
	checkedOrDefault,
	additionalFieldsProperty,
	fieldProperty,
	type FieldDefinition,
} from '../../../shared/items/fields';
import { BEFORE_WAIT_OPTIONS, hasWaitOptions, readWaitOptions, SINCE_WAIT_OPTIONS } from '../../../shared/waits/wait-settings';
import { readMusicStream } from '../../helpers/music/stream';
import { streamMusic } from '../../transport/media-api';
import { maxWaitMinutesField, waitOptionsProperty } from '../../../shared/descriptions/wait-settings';

const DURATION: FieldDefinition = {
	name: 'duration',
	api: 'duration',
	displayName: 'Duration',
	kind: 'integer',
	// The spec gives no unit or bounds for it: only a whole number is checked.
	min: Number.MIN_SAFE_INTEGER,
	max: Number.MAX_SAFE_INTEGER,
	default: 30,
	description: 'Length of the music (a whole number, usually seconds). The service chooses one when this is not set.',
};

/** A take with a hole fails by default: a next node would upload a file with a gap in it, as if whole. */
const ACCEPT_INCOMPLETE: FieldDefinition = {
	name: 'acceptIncompleteTakes',
	displayName: 'Accept Incomplete Takes',
	kind: 'boolean',
	default: false,
	description:
		'Whether to pass on a take whose audio may have a hole (a line of the stream could not be read, or less audio arrived than its header announces), marked audio_may_be_incomplete. Off: such a take fails the item.',
};

/**
 * The service sends audio as it makes it, so a long silence means the stream has stalled; without
 * this limit a stream held open with nothing in it would keep the item running until stopped by hand.
 */
const IDLE_TIMEOUT: FieldDefinition = {
	name: 'idleTimeoutSeconds',
	displayName: 'Idle Timeout (Seconds)',
	kind: 'number',
	min: 0.1,
	max: 3600,
	default: 60,
	description:
		'How long the music service may stay silent (before its answer starts, or between two lines) until the node gives up. The item then fails, no take is passed on, and the connection is closed.',
};

/** The whole stream's bound: a service that keeps sending and never completes is not read for ever. */
const MAX_WAIT = maxWaitMinutesField(
	30,
	'How long the whole stream may take, from the request to the service’s "complete" event. The item then fails, no take is passed on, and the connection is closed.',
);

const PROMPT: FieldDefinition = {
	name: 'prompt',
	api: 'prompt',
	displayName: 'Prompt',
	kind: 'string',
	required: true,
	rows: 3,
	placeholder: 'e.g. calm lofi piano with soft rain',
	description: 'Describes the music to generate',
};

const properties: INodeProperties[] = [
	fieldProperty(PROMPT),
	// Labelled as the other file results (shared/binary/result-files.ts); the name stays what saved workflows hold.
	{
		displayName: DOWNLOAD_FILES,
		name: 'downloadAudio',
		type: 'boolean',
		default: true,
		description:
			'Whether to return each generated take as an audio file in binary data (otherwise only titles, duration and the stream’s events, kept up to a bounded size)',
	},
	{
		displayName: PUT_FILES_IN_FIELD,
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		description: 'Binary field of each output item that receives the audio file',
		displayOptions: { show: { downloadAudio: [true] } },
	},
	{ ...additionalFieldsProperty([DURATION, ACCEPT_INCOMPLETE]), displayOptions: { show: SINCE_WAIT_OPTIONS } },
	// Version 1 has no "Wait Options": the setting is among its Additional Fields.
	{ ...additionalFieldsProperty([DURATION, ACCEPT_INCOMPLETE, IDLE_TIMEOUT, MAX_WAIT]), displayOptions: { show: BEFORE_WAIT_OPTIONS } },
	waitOptionsProperty([IDLE_TIMEOUT, MAX_WAIT]),
];

export const description = updateDisplayOptions({ show: { resource: ['music'], operation: ['generate'] } }, properties);

/** Why a tool call cannot use this operation (it is hidden on the tool type, and refused). */
export const notAsTool =
	'Generate Music streams the audio into n8n as binary data, with no link to it, and an AI agent or MCP client cannot receive binary data. To give an agent music, run a Host Cloud workflow that makes audio: its tool answers links.';

/** Idle Timeout and Max Wait of the item, in milliseconds, from either version's layout. */
function streamLimits(context: IExecuteFunctions, itemIndex: number): { idleMs: number; maxWaitMs: number } {
	const values = hasWaitOptions(context)
		? readWaitOptions(context, itemIndex, [IDLE_TIMEOUT, MAX_WAIT])
		: {
				idleTimeoutSeconds: checkedOrDefault(context, itemIndex, IDLE_TIMEOUT, additionalFields(context, itemIndex).idleTimeoutSeconds),
				maxWaitMinutes: checkedOrDefault(context, itemIndex, MAX_WAIT, additionalFields(context, itemIndex).maxWaitMinutes),
			};
	return {
		idleMs: Math.round((values.idleTimeoutSeconds as number) * 1000),
		maxWaitMs: Math.round((values.maxWaitMinutes as number) * 60000),
	};
}

/** POST /proxy/music/t2m/generate: one output item per generated take, with its audio file. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const prompt = checkedField(this, itemIndex, PROMPT, this.getNodeParameter('prompt', itemIndex, '')) as string;
	const duration = checkedField(this, itemIndex, DURATION, additionalFields(this, itemIndex).duration) as number | undefined;
	const acceptIncomplete = checkedOrDefault(
		this,
		itemIndex,
		ACCEPT_INCOMPLETE,
		additionalFields(this, itemIndex).acceptIncompleteTakes,
	) as boolean;
	const keepAudio = this.getNodeParameter('downloadAudio', itemIndex, true) as boolean;
	const binaryPropertyName = keepAudio
		? binaryFieldName(this, itemIndex, PUT_FILES_IN_FIELD, this.getNodeParameter('binaryPropertyName', itemIndex, 'data'))
		: 'data';
	const { idleMs, maxWaitMs } = streamLimits(this, itemIndex);
	// Max Wait bounds the whole stream, the wait for its first byte included.
	const openMs = Math.min(idleMs, maxWaitMs);
	const takes = await readMusicStream(this, async () => await streamMusic(this, { prompt, duration }, { itemIndex, idleMs: openMs }), {
		itemIndex,
		keepAudio,
		idleMs,
		maxWaitMs,
		acceptIncomplete,
	});
	return takes.map((take) => ({
		json: { prompt, ...take.json },
		...(take.binary ? { binary: { [binaryPropertyName]: take.binary } } : {}),
	}));
}
