import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { describeToolAnswer } from '../../../shared/tools/tool-result';
import { imageDimensions } from '../../../shared/binary/file-types';
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
import { optionsOf, UPSCALE_MAX_PIXELS, UPSCALER_ENGINES, UPSCALER_OPTIMIZED_FOR, UPSCALER_SCALE_FACTORS } from '../../transport/spec';
import { runTask } from '../../helpers/tasks/task';
import type { BodyFields, ImageText, OneOf } from '../../transport/media-api';
import { toolDescriptionProperty } from '../../../shared/descriptions/tool-options';
import { WEBHOOK_URL_FIELD } from '../../../shared/descriptions/webhook-url';
import { waitProperties, imageInputProperties, WAIT_FIELDS } from '../common.descriptions';

interface UpscaleBody extends BodyFields {
	image: ImageText;
	scale_factor?: OneOf<typeof UPSCALER_SCALE_FACTORS>;
	creativity?: number;
	fractality?: number;
	hdr?: number;
	resemblance?: number;
	engine?: OneOf<typeof UPSCALER_ENGINES>;
	optimized_for?: OneOf<typeof UPSCALER_OPTIMIZED_FOR>;
	prompt?: string;
	webhook_url?: string;
}

const IMAGE: ImageInputDefinition = {
	prefix: 'image',
	api: 'image',
	label: 'Image',
	description: 'The image to upscale; the result may hold at most 25.3 million pixels.',
};

const SCALE_FACTOR: FieldDefinition = {
	name: 'scaleFactor',
	api: 'scale_factor',
	displayName: 'Scale Factor',
	kind: 'options',
	options: UPSCALER_SCALE_FACTORS.map((value) => ({ name: value, value })),
	default: '2x',
	description: 'How many times larger the result is, per side. Higher factors take longer.',
};

const tenToTen = (name: string, api: string, displayName: string, description: string): FieldDefinition => ({
	name,
	api,
	displayName,
	kind: 'integer',
	min: -10,
	max: 10,
	default: 0,
	description,
});

const FIELDS: FieldDefinition[] = [
	tenToTen('creativity', 'creativity', 'Creativity', 'How much the upscaler may invent, from -10 to 10'),
	tenToTen('fractality', 'fractality', 'Fractality', 'Strength of the prompt and intricacy per square pixel, from -10 to 10'),
	tenToTen('hdr', 'hdr', 'HDR', 'Level of definition and detail, from -10 to 10'),
	tenToTen('resemblance', 'resemblance', 'Resemblance', 'How closely the result follows the original, from -10 to 10'),
	{
		name: 'engine',
		api: 'engine',
		displayName: 'Engine',
		kind: 'options',
		options: optionsOf(UPSCALER_ENGINES),
		default: 'automatic',
		description: 'Upscaling engine; Automatic picks one for the image',
	},
	{
		name: 'optimizedFor',
		api: 'optimized_for',
		displayName: 'Optimized For',
		kind: 'options',
		options: optionsOf(UPSCALER_OPTIMIZED_FOR, { '3d_renders': '3D Renders' }),
		default: 'standard',
		description: 'The kind of image, so the upscaler treats it well',
	},
	{
		name: 'prompt',
		api: 'prompt',
		displayName: 'Prompt',
		kind: 'string',
		rows: 2,
		description: 'Describes the image to guide the upscale',
	},
	WEBHOOK_URL_FIELD,
];

const TOOL_DESCRIPTION = `Upscales an image given by its URL, 2x to 16x larger with added detail (the result may hold at most 25.3 million pixels). Usually takes under a minute; every call starts a new paid task. ${describeToolAnswer(['task_id', 'task_type'], 'the Host Media "Get Task Status" tool for images')}`;

const properties: INodeProperties[] = [
	toolDescriptionProperty(TOOL_DESCRIPTION),
	...imageInputProperties(IMAGE),
	fieldProperty(SCALE_FACTOR),
	...waitProperties('image'),
	additionalFieldsProperty(FIELDS),
];

export const description = updateDisplayOptions({ show: { resource: ['image'], operation: ['upscale'] } }, properties);

/** POST /proxy/imaging/v1/ai/image-upscaler. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const image = await resolveImageInput(this, itemIndex, IMAGE);
	const body: UpscaleBody = { image: image.value };
	const scale = addParameter(this, itemIndex, SCALE_FACTOR, body) as string | undefined;
	addFields(this, itemIndex, FIELDS, additionalFields(this, itemIndex), body);
	// Only images the node holds can be measured (URLs are fetched by the service, not by n8n).
	const size = image.bytes ? imageDimensions(image.bytes) : undefined;
	if (size) {
		const factor = Number((scale ?? '2x').replace('x', ''));
		const width = size.width * factor;
		const height = size.height * factor;
		if (width * height > UPSCALE_MAX_PIXELS) {
			throw invalidField(
				this,
				itemIndex,
				'Image (image)',
				`is too large for Scale Factor (scale_factor) ${factor}x: the result would be ${width}×${height} pixels (${((width * height) / 1e6).toFixed(2)} million), and at most 25.3 million are allowed`,
				'Choose a smaller scale factor or a smaller image.',
			);
		}
	}
	return await runTask(this, itemIndex, { taskType: 'image-upscaler', body, wait: WAIT_FIELDS.image });
}
