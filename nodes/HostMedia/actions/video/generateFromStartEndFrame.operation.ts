import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { describeToolAnswer } from '../../../shared/tools/tool-result';
import { invalidField } from '../../../shared/items/validation';
import {
	addFields,
	addParameter,
	additionalFields,
	additionalFieldsProperty,
	fieldProperty,
	type FieldDefinition,
} from '../../../shared/items/fields';
import { resolveImageInput, type ImageInputDefinition } from '../../helpers/inputs/image-input';
import {
	AUDIO_TYPES,
	INT32_MAX,
	INT32_MIN,
	MOVEMENT_AMPLITUDES,
	optionsOf,
	START_END_DURATIONS,
	START_END_MODELS,
	START_END_RESOLUTIONS,
	VIDEO_STYLES,
} from '../../transport/spec';
import { runTask } from '../../helpers/tasks/task';
import type { ImageText, OneOf, VideoBody } from '../../transport/media-api';
import { toolDescriptionProperty } from '../../../shared/descriptions/tool-options';
import {
	waitProperties,
	imageInputProperties,
	CALLBACK_URL_FIELD,
	PAYLOAD_FIELD,
	resolutionField,
	VIDEO_PROMPT_FIELD,
	WAIT_FIELDS,
} from '../common.descriptions';

interface StartEndVideoBody extends VideoBody {
	model?: string;
	images?: ImageText[];
	duration?: number;
	aspect_ratio?: string;
	audio?: boolean;
	audio_type?: OneOf<typeof AUDIO_TYPES>;
	movement_amplitude?: OneOf<typeof MOVEMENT_AMPLITUDES>;
	style?: OneOf<typeof VIDEO_STYLES>;
	seed?: number;
}

const START_FRAME: ImageInputDefinition = {
	prefix: 'image',
	api: 'images',
	label: 'Start Frame',
	description: 'The image the video starts from.',
};

const MODEL_NAMES: Record<string, string> = {
	'videoq3-pro': 'Videoq3 Pro (1-16 s)',
	'videoq2-pro-fast': 'Videoq2 Pro Fast (1-10 s)',
	'videoq2-pro': 'Videoq2 Pro (1-8 s)',
	'videoq2-turbo': 'Videoq2 Turbo (1-8 s)',
	videoq1: 'Videoq1',
	'videoq1-classic': 'Videoq1 Classic',
	'video2.0': 'Video 2.0',
};

const MODEL: FieldDefinition = {
	name: 'model',
	api: 'model',
	displayName: 'Model',
	kind: 'options',
	options: optionsOf(START_END_MODELS, MODEL_NAMES),
	default: 'videoq2-pro',
	description: 'Video model; each allows its own range of durations',
};

const int32 = (name: string, api: string, displayName: string, description: string): FieldDefinition => ({
	name,
	api,
	displayName,
	kind: 'integer',
	min: INT32_MIN,
	max: INT32_MAX,
	default: 0,
	description,
});

const bool = (name: string, api: string, displayName: string, description: string, defaultValue = false): FieldDefinition => ({
	name,
	api,
	displayName,
	kind: 'boolean',
	default: defaultValue,
	description,
});

const FIELDS: FieldDefinition[] = [
	{
		name: 'aspectRatio',
		api: 'aspect_ratio',
		displayName: 'Aspect Ratio',
		kind: 'string',
		placeholder: '16:9',
		description: 'Aspect ratio of the video, e.g. 16:9',
	},
	bool('audio', 'audio', 'Audio', 'Whether to generate audio together with the video (the Videoq3 Pro model does so by default)'),
	{
		name: 'audioType',
		api: 'audio_type',
		displayName: 'Audio Type',
		kind: 'options',
		options: optionsOf(AUDIO_TYPES, {
			all: 'All (Effects and Vocals)',
			speech_only: 'Speech Only',
			sound_effect_only: 'Sound Effects Only',
		}),
		default: 'all',
		description: 'What the audio holds when Audio is on; no effect with Videoq3 Pro',
	},
	bool('bgm', 'bgm', 'Background Music', 'Whether to add background music; no effect with Videoq3 Pro'),
	CALLBACK_URL_FIELD,
	{
		name: 'duration',
		api: 'duration',
		displayName: 'Duration (Seconds)',
		kind: 'integer',
		// int32 as the spec types it; the per-model ranges are checked in execute().
		min: INT32_MIN,
		max: INT32_MAX,
		default: 5,
		description: 'Length of the video: Videoq3 Pro 1-16 s, Videoq2 Pro Fast 1-10 s, Videoq2 Pro and Turbo 1-8 s',
	},
	bool('enhance', 'enhance', 'Enhance', 'Whether to enhance the video'),
	bool('isRec', 'is_rec', 'Use Recommended Prompt', 'Whether to use the recommended prompt; costs 10 additional credits'),
	{
		name: 'metaData',
		api: 'meta_data',
		displayName: 'Metadata (JSON)',
		kind: 'json',
		description: 'Your own metadata as JSON, e.g. {"campaign": "spring"}',
	},
	{
		name: 'movementAmplitude',
		api: 'movement_amplitude',
		displayName: 'Movement Amplitude',
		kind: 'options',
		options: optionsOf(MOVEMENT_AMPLITUDES),
		default: 'auto',
		description: 'How much things move; no effect with the q2 and q3 models',
	},
	bool('offPeak', 'off_peak', 'Off Peak', 'Whether to generate at a lower cost within 48 hours instead of now'),
	PAYLOAD_FIELD,
	int32('priority', 'priority', 'Priority', 'Priority of the task (a whole number)'),
	resolutionField(START_END_RESOLUTIONS, 'Resolution of the video; what is available depends on the model and duration'),
	int32('seed', 'seed', 'Seed', 'Seed of the generation; a random one is used when this is not set'),
	{
		name: 'style',
		api: 'style',
		displayName: 'Style',
		kind: 'options',
		options: optionsOf(VIDEO_STYLES),
		default: 'general',
		description: 'General or anime look',
	},
	{
		name: 'voiceId',
		api: 'voice_id',
		displayName: 'Voice ID',
		kind: 'string',
		description: 'Voice for speech; no effect with Videoq3 Pro',
	},
	bool('watermark', 'watermark', 'Watermark', 'Whether to add a watermark'),
	{
		name: 'wmPosition',
		api: 'wm_position',
		displayName: 'Watermark Position',
		kind: 'options',
		options: [
			{ name: 'Bottom Left', value: 4 },
			{ name: 'Bottom Right', value: 3 },
			{ name: 'Top Left', value: 1 },
			{ name: 'Top Right', value: 2 },
		],
		default: 3,
		description: 'Corner of the watermark',
	},
	{
		name: 'wmUrl',
		api: 'wm_url',
		displayName: 'Watermark Image URL',
		kind: 'url',
		description: 'Image used as the watermark; a default watermark is used when this is not set',
	},
];

const TOOL_DESCRIPTION = `Makes a video from a start frame (an image URL) and a text prompt. Videos usually take several minutes, longer than one call waits, so the first answer is usually "running"; every call starts a new paid task. ${describeToolAnswer(['task_id'], 'the Host Media "Get Task Status" tool for videos')} Each video output also has "creation_id" (to extend the video) and "cover_url" (a still of it).`;

const properties: INodeProperties[] = [
	toolDescriptionProperty(TOOL_DESCRIPTION),
	fieldProperty(MODEL),
	...imageInputProperties(START_FRAME),
	fieldProperty(VIDEO_PROMPT_FIELD),
	...waitProperties('video'),
	additionalFieldsProperty(FIELDS),
];

export const description = updateDisplayOptions({ show: { resource: ['video'], operation: ['generateFromStartEndFrame'] } }, properties);

/** POST /proxy/video/start-end2video: a video from one start frame and a prompt. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const body: StartEndVideoBody = {};
	const model = addParameter(this, itemIndex, MODEL, body) as string | undefined;
	if (model === undefined)
		throw invalidField(this, itemIndex, 'Model (model)', `is required: choose one of ${START_END_MODELS.join(', ')}`);
	body.images = [(await resolveImageInput(this, itemIndex, START_FRAME)).value];
	addParameter(this, itemIndex, VIDEO_PROMPT_FIELD, body);
	addFields(this, itemIndex, FIELDS, additionalFields(this, itemIndex), body);
	// audio_type applies when audio is true; audio's default is not stated for every model, so only an explicit off is refused.
	if (body.audio === false && body.audio_type !== undefined) {
		throw invalidField(
			this,
			itemIndex,
			'Audio Type (audio_type)',
			'is used only when Audio (audio) is on',
			'Turn on Audio, or remove Audio Type.',
		);
	}
	const range = START_END_DURATIONS[model];
	const duration = body.duration as number | undefined;
	if (range && duration !== undefined && (duration < range[0] || duration > range[1])) {
		throw invalidField(
			this,
			itemIndex,
			'Duration (duration)',
			`must be from ${range[0]} to ${range[1]} seconds for the model ${model} (got ${duration})`,
			'Shorten the video or choose a model that allows longer videos.',
		);
	}
	return await runTask(this, itemIndex, { taskType: 'start-end2video', body, wait: WAIT_FIELDS.video });
}
