import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { describeToolAnswer } from '../../../shared/tools/tool-result';
import { integerInRange, invalidField, jsonField, oneOf, quoted } from '../../../shared/items/validation';
import {
	addFields,
	addParameter,
	additionalFields,
	checkedField,
	additionalFieldsProperty,
	fieldProperty,
	type FieldDefinition,
} from '../../../shared/items/fields';
import { checkImageText, resolveImageInput, type ImageInputDefinition } from '../../helpers/inputs/image-input';
import { MULTIFRAME_MAX_FRAMES, MULTIFRAME_MIN_FRAMES, MULTIFRAME_MODELS, MULTIFRAME_RESOLUTIONS, optionsOf } from '../../transport/spec';
import { runTask } from '../../helpers/tasks/task';
import type { ImageText, OneOf, VideoBody } from '../../transport/media-api';
import { toolDescriptionProperty } from '../../../shared/descriptions/tool-options';
import {
	waitProperties,
	imageInputProperties,
	CALLBACK_URL_FIELD,
	PAYLOAD_FIELD,
	resolutionField,
	WAIT_FIELDS,
} from '../common.descriptions';

/** One key frame of a multiframe video. */
type MultiframeFrame = { key_image: ImageText; duration: number; prompt: string };

interface MultiframeBody extends VideoBody {
	model?: OneOf<typeof MULTIFRAME_MODELS>;
	start_image?: ImageText;
	image_settings?: MultiframeFrame[];
}

const START_IMAGE: ImageInputDefinition = {
	prefix: 'startImage',
	api: 'start_image',
	label: 'Start Image',
	description: 'The first frame of the video.',
};
const KEY_IMAGE: ImageInputDefinition = {
	prefix: 'keyImage',
	api: 'key_image',
	label: 'Key Image',
	description: 'The image this frame moves to.',
};

const MODEL: FieldDefinition = {
	name: 'model',
	api: 'model',
	displayName: 'Model',
	kind: 'options',
	options: optionsOf(MULTIFRAME_MODELS, { 'videoq2-pro': 'Videoq2 Pro', 'videoq2-turbo': 'Videoq2 Turbo' }),
	default: 'videoq2-pro',
	description: 'Video model; Turbo is faster and cheaper',
};

const FIELDS: FieldDefinition[] = [resolutionField(MULTIFRAME_RESOLUTIONS, 'Resolution of the video'), PAYLOAD_FIELD, CALLBACK_URL_FIELD];

const FRAMES_LABEL = 'Frames (image_settings)';

const TOOL_DESCRIPTION = `Makes a video that moves from a start image through 2 to 9 key frames (image URLs, each with a prompt and a duration). Videos usually take several minutes, longer than one call waits, so the first answer is usually "running"; every call starts a new paid task. ${describeToolAnswer(['task_id'], 'the Host Media "Get Task Status" tool for videos')} Each video output also has "creation_id" (to extend the video) and "cover_url" (a still of it).`;

const properties: INodeProperties[] = [
	toolDescriptionProperty(TOOL_DESCRIPTION),
	fieldProperty(MODEL),
	...imageInputProperties(START_IMAGE),
	{
		displayName: 'Define Frames',
		name: 'framesInput',
		type: 'options',
		options: [
			{ name: 'Using Fields Below', value: 'fields', description: 'Add each frame with its image, duration and prompt' },
			{ name: 'Using JSON', value: 'json', description: 'Give the frames as a JSON list, e.g. from an expression' },
		],
		default: 'fields',
		description: `How the ${MULTIFRAME_MIN_FRAMES} to ${MULTIFRAME_MAX_FRAMES} frames after the start image are given`,
	},
	{
		displayName: 'Frames',
		name: 'frames',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true, sortable: true },
		placeholder: 'Add Frame',
		default: {},
		description: `${MULTIFRAME_MIN_FRAMES} to ${MULTIFRAME_MAX_FRAMES} frames, in order: the video moves from the start image through each key image`,
		displayOptions: { show: { framesInput: ['fields'] } },
		options: [
			{
				displayName: 'Frame',
				name: 'frame',
				values: [
					...imageInputProperties(KEY_IMAGE),
					{
						displayName: 'Duration (Seconds)',
						name: 'duration',
						type: 'number',
						default: 5,
						typeOptions: { numberPrecision: 0 },
						description: 'How long the move to this frame takes, in whole seconds',
					},
					{
						displayName: 'Prompt',
						name: 'prompt',
						type: 'string',
						default: '',
						typeOptions: { rows: 2 },
						description: 'Describes the motion towards this frame',
					},
				],
			},
		],
	},
	{
		displayName: 'Frames (JSON)',
		name: 'framesJson',
		type: 'json',
		default:
			'[\n  { "key_image": "https://example.com/frame1.jpg", "duration": 5, "prompt": "the camera pans left" },\n  { "key_image": "https://example.com/frame2.jpg", "duration": 5, "prompt": "zoom in on the face" }\n]',
		description: 'A list of frames, each with key_image (URL or Base64), duration (whole seconds) and prompt',
		displayOptions: { show: { framesInput: ['json'] } },
	},
	...waitProperties('video'),
	additionalFieldsProperty(FIELDS),
];

export const description = updateDisplayOptions({ show: { resource: ['video'], operation: ['generateFromFrames'] } }, properties);

const framePath = (index: number, field: string) =>
	`Frame ${index + 1} ${field} (image_settings[${index}].${field.toLowerCase().replace(' ', '_')})`;

/** The raw frame entries, from the fields or the JSON list, with their count checked. */
function frameEntries(context: IExecuteFunctions, itemIndex: number): { entries: IDataObject[]; fromJson: boolean } {
	// Checked: any other value (from an expression) would silently read the fields below.
	const mode = oneOf(context, itemIndex, 'Define Frames', context.getNodeParameter('framesInput', itemIndex, 'fields'), ['fields', 'json']);
	let entries: unknown;
	if (mode === 'json') {
		const raw = context.getNodeParameter('framesJson', itemIndex, '[]') as unknown;
		entries = jsonField(
			context,
			itemIndex,
			FRAMES_LABEL,
			raw,
			'Give a JSON list such as [{"key_image": "https://…", "duration": 5, "prompt": "…"}].',
		);
	} else {
		entries = (context.getNodeParameter('frames', itemIndex, {}) as IDataObject).frame ?? [];
	}
	if (!Array.isArray(entries)) throw invalidField(context, itemIndex, FRAMES_LABEL, `must be a list of frames (got ${quoted(entries)})`);
	if (entries.length < MULTIFRAME_MIN_FRAMES || entries.length > MULTIFRAME_MAX_FRAMES) {
		throw invalidField(
			context,
			itemIndex,
			FRAMES_LABEL,
			`must hold ${MULTIFRAME_MIN_FRAMES} to ${MULTIFRAME_MAX_FRAMES} frames (got ${entries.length})`,
			`Give between ${MULTIFRAME_MIN_FRAMES} and ${MULTIFRAME_MAX_FRAMES} frames after the start image.`,
		);
	}
	entries.forEach((entry, index) => {
		if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
			throw invalidField(
				context,
				itemIndex,
				`Frame ${index + 1} (image_settings[${index}])`,
				`must be an object with key_image, duration and prompt (got ${quoted(entry)})`,
			);
		}
	});
	return { entries: entries as IDataObject[], fromJson: mode === 'json' };
}

/** POST /proxy/video/multiframe: a video through 2 to 9 key frames. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const body: MultiframeBody = {};
	addParameter(this, itemIndex, MODEL, body);
	if (body.model === undefined)
		throw invalidField(this, itemIndex, 'Model (model)', `is required: choose ${MULTIFRAME_MODELS.join(' or ')}`);
	const { entries, fromJson } = frameEntries(this, itemIndex);
	const settings: MultiframeFrame[] = [];
	for (const [index, entry] of entries.entries()) {
		const keyImage = { ...KEY_IMAGE, label: `Frame ${index + 1} Key Image`, api: `image_settings[${index}].key_image` };
		const image = fromJson
			? checkImageText(this, itemIndex, keyImage, 'auto', entry.key_image)
			: await resolveImageInput(this, itemIndex, { ...KEY_IMAGE, label: keyImage.label, api: keyImage.api }, entry);
		// A frame added in the editor may be stored without its untouched default of 5 seconds.
		const duration = integerInRange(
			this,
			itemIndex,
			framePath(index, 'Duration'),
			entry.duration ?? (fromJson ? undefined : 5),
			// The spec types it as an integer and gives no range.
			Number.MIN_SAFE_INTEGER,
			Number.MAX_SAFE_INTEGER,
		);
		const prompt = checkedField(
			this,
			itemIndex,
			{ name: 'prompt', api: `image_settings[${index}].prompt`, displayName: `Frame ${index + 1} Prompt`, kind: 'string', description: '' },
			entry.prompt,
		);
		settings.push({ key_image: image.value, duration, prompt: (prompt as string | undefined) ?? '' });
	}
	body.start_image = (await resolveImageInput(this, itemIndex, START_IMAGE)).value;
	body.image_settings = settings;
	addFields(this, itemIndex, FIELDS, additionalFields(this, itemIndex), body);
	return await runTask(this, itemIndex, { taskType: 'multiframe', body, wait: WAIT_FIELDS.video });
}
