import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { describeToolAnswer } from '../../../shared/tools/tool-result';
import { invalidField } from '../../../shared/items/validation';
import {
	addFields,
	addParameter,
	additionalFields,
	additionalFieldsProperty,
	checkedField,
	fieldProperty,
	type FieldDefinition,
} from '../../../shared/items/fields';
import { resolveOptionalImage, type ImageInputDefinition } from '../../helpers/inputs/image-input';
import {
	EXTEND_DEFAULT_SECONDS,
	EXTEND_MAX_SECONDS,
	EXTEND_MIN_SECONDS,
	EXTEND_MODELS,
	EXTEND_RESOLUTIONS,
	optionsOf,
} from '../../transport/spec';
import { runTask } from '../../helpers/tasks/task';
import type { ImageText, OneOf, VideoBody } from '../../transport/media-api';
import { toolDescriptionProperty } from '../../../shared/descriptions/tool-options';
import {
	waitProperties,
	optionalImageProperties,
	CALLBACK_URL_FIELD,
	PAYLOAD_FIELD,
	resolutionField,
	VIDEO_PROMPT_FIELD,
	WAIT_FIELDS,
} from '../common.descriptions';

interface ExtendVideoBody extends VideoBody {
	model: OneOf<typeof EXTEND_MODELS>;
	duration?: number;
	images?: ImageText[];
	video_creation_id?: string;
	video_url?: string;
}

const END_FRAME: ImageInputDefinition = {
	prefix: 'endFrameImage',
	api: 'images',
	label: 'End Frame Image',
	description: 'A reference image for the last frame of the extension (one image).',
};

const MODEL: FieldDefinition = {
	name: 'model',
	api: 'model',
	displayName: 'Model',
	kind: 'options',
	options: optionsOf(EXTEND_MODELS, { 'videoq2-pro': 'Videoq2 Pro', 'videoq2-turbo': 'Videoq2 Turbo' }),
	default: 'videoq2-pro',
	description: 'Video model used for the extension',
};

const VIDEO_CREATION_ID: FieldDefinition = {
	name: 'videoCreationId',
	api: 'video_creation_id',
	displayName: 'Video Creation ID',
	kind: 'string',
	description: 'Creation ID of an earlier video (from a video task result). Give it together with Video URL, or leave both empty.',
};

const VIDEO_URL: FieldDefinition = {
	name: 'videoUrl',
	api: 'video_url',
	displayName: 'Video URL',
	kind: 'url',
	description: 'Address of the video to extend. Give it together with Video Creation ID, or leave both empty.',
};

const FIELDS: FieldDefinition[] = [
	{
		name: 'duration',
		api: 'duration',
		displayName: 'Duration (Seconds)',
		kind: 'integer',
		min: EXTEND_MIN_SECONDS,
		max: EXTEND_MAX_SECONDS,
		default: EXTEND_DEFAULT_SECONDS,
		description: 'How many seconds to add, from 1 to 7 (the service uses 5 when this is not set)',
	},
	resolutionField(EXTEND_RESOLUTIONS, 'Resolution of the extension'),
	PAYLOAD_FIELD,
	CALLBACK_URL_FIELD,
];

const TOOL_DESCRIPTION = `Makes an earlier video 1 to 7 seconds longer, given its URL and creation_id (from the outputs of a video tool) and optionally a prompt. Takes several minutes, longer than one call waits, so the first answer is usually "running"; every call starts a new paid task. ${describeToolAnswer(['task_id'], 'the Host Media "Get Task Status" tool for videos')} Each video output also has "creation_id" (to extend the video) and "cover_url" (a still of it).`;

const properties: INodeProperties[] = [
	toolDescriptionProperty(TOOL_DESCRIPTION),
	fieldProperty(MODEL),
	fieldProperty(VIDEO_CREATION_ID),
	fieldProperty(VIDEO_URL),
	fieldProperty(VIDEO_PROMPT_FIELD),
	...waitProperties('video'),
	additionalFieldsProperty(FIELDS, optionalImageProperties(END_FRAME)),
];

export const description = updateDisplayOptions({ show: { resource: ['video'], operation: ['extend'] } }, properties);

/** POST /proxy/video/extend: makes an earlier video longer. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const model = checkedField(this, itemIndex, MODEL, this.getNodeParameter(MODEL.name, itemIndex, undefined)) as
		ExtendVideoBody['model'] | undefined;
	if (model === undefined) {
		throw invalidField(this, itemIndex, 'Model (model)', `is required: choose ${EXTEND_MODELS.join(' or ')}`);
	}
	const body: ExtendVideoBody = { model };
	addParameter(this, itemIndex, VIDEO_CREATION_ID, body);
	addParameter(this, itemIndex, VIDEO_URL, body);
	const hasId = body.video_creation_id !== undefined;
	if (hasId !== (body.video_url !== undefined)) {
		const [given, missing] = hasId
			? ['Video Creation ID (video_creation_id)', 'Video URL (video_url)']
			: ['Video URL (video_url)', 'Video Creation ID (video_creation_id)'];
		throw invalidField(this, itemIndex, missing, `is required together with ${given}`, 'Give both, or leave both empty.');
	}
	if (hasId) body.video_creation_id = String(body.video_creation_id).trim();
	addParameter(this, itemIndex, VIDEO_PROMPT_FIELD, body);
	const extra = additionalFields(this, itemIndex);
	addFields(this, itemIndex, FIELDS, extra, body);
	const endFrame = await resolveOptionalImage(this, itemIndex, END_FRAME, extra);
	if (endFrame) body.images = [endFrame.value];
	return await runTask(this, itemIndex, { taskType: 'extend', body, wait: WAIT_FIELDS.video });
}
