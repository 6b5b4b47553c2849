import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { describeToolAnswer } from '../../../shared/tools/tool-result';
import { invalidField } from '../../../shared/items/validation';
import { addFields, additionalFields, additionalFieldsProperty, type FieldDefinition } from '../../../shared/items/fields';
import { resolveImageInput, type ImageInputDefinition } from '../../helpers/inputs/image-input';
import { optionsOf, PORTRAIT_BEAUTIFIERS, PORTRAIT_STYLES, STYLE_ENGINES, STYLE_FLAVORS } from '../../transport/spec';
import { runTask } from '../../helpers/tasks/task';
import type { BodyFields, ImageText, OneOf } from '../../transport/media-api';
import { toolDescriptionProperty } from '../../../shared/descriptions/tool-options';
import { WEBHOOK_URL_FIELD } from '../../../shared/descriptions/webhook-url';
import { waitProperties, imageInputProperties, WAIT_FIELDS } from '../common.descriptions';

interface StyleTransferBody extends BodyFields {
	image: ImageText;
	reference_image: ImageText;
	engine?: OneOf<typeof STYLE_ENGINES>;
	flavor?: OneOf<typeof STYLE_FLAVORS>;
	fixed_generation?: boolean;
	is_portrait?: boolean;
	portrait_beautifier?: OneOf<typeof PORTRAIT_BEAUTIFIERS>;
	portrait_style?: OneOf<typeof PORTRAIT_STYLES>;
	prompt?: string;
	structure_strength?: number;
	style_strength?: number;
	webhook_url?: string;
}

const IMAGE: ImageInputDefinition = { prefix: 'image', api: 'image', label: 'Image', description: 'The image to restyle.' };
const REFERENCE: ImageInputDefinition = {
	prefix: 'referenceImage',
	api: 'reference_image',
	label: 'Reference Image',
	description: 'The image whose style is transferred.',
};

const percent = (name: string, api: string, displayName: string, description: string): FieldDefinition => ({
	name,
	api,
	displayName,
	kind: 'integer',
	min: 0,
	max: 100,
	default: 50,
	description,
});

const FIELDS: FieldDefinition[] = [
	{
		name: 'engine',
		api: 'engine',
		displayName: 'Engine',
		kind: 'options',
		options: optionsOf(STYLE_ENGINES, { '3d_cartoon': '3D Cartoon' }),
		default: 'balanced',
		description: 'Style transfer engine',
	},
	{
		name: 'fixedGeneration',
		api: 'fixed_generation',
		displayName: 'Fixed Generation',
		kind: 'boolean',
		description: 'Whether the same settings always give the same image',
	},
	{
		name: 'flavor',
		api: 'flavor',
		displayName: 'Flavor',
		kind: 'options',
		options: optionsOf(STYLE_FLAVORS, { gen_z: 'Gen Z', donotstyle: 'Do Not Style', donotstyle_sharp: 'Do Not Style (Sharp)' }),
		default: 'faithful',
		description: 'Flavor of the transfer',
	},
	{
		name: 'isPortrait',
		api: 'is_portrait',
		displayName: 'Is Portrait',
		kind: 'boolean',
		description: 'Whether to process the image as a portrait (needed for the portrait options)',
	},
	{
		name: 'portraitBeautifier',
		api: 'portrait_beautifier',
		displayName: 'Portrait Beautifier',
		kind: 'options',
		options: optionsOf(PORTRAIT_BEAUTIFIERS, { beautify_face_max: 'Beautify Face Max' }),
		default: 'beautify_face',
		description: 'Face beautification; only with Is Portrait turned on',
	},
	{
		name: 'portraitStyle',
		api: 'portrait_style',
		displayName: 'Portrait Style',
		kind: 'options',
		options: optionsOf(PORTRAIT_STYLES),
		default: 'standard',
		description: 'Portrait look; only with Is Portrait turned on',
	},
	{
		name: 'prompt',
		api: 'prompt',
		displayName: 'Prompt',
		kind: 'string',
		rows: 2,
		description: 'Describes the result to guide the transfer',
	},
	percent('structureStrength', 'structure_strength', 'Structure Strength', 'How much of the original structure is kept, from 0 to 100'),
	percent('styleStrength', 'style_strength', 'Style Strength', 'How strongly the style is applied, in percent (0 to 100)'),
	WEBHOOK_URL_FIELD,
];

const TOOL_DESCRIPTION = `Applies the style of a reference image to an image, both given by URL, optionally guided by a text prompt. Usually takes under a minute; every call starts a new paid task. ${describeToolAnswer(['task_id', 'task_type'], 'the Host Media "Get Task Status" tool for images')}`;

const properties: INodeProperties[] = [
	toolDescriptionProperty(TOOL_DESCRIPTION),
	...imageInputProperties(IMAGE),
	...imageInputProperties(REFERENCE),
	...waitProperties('image'),
	additionalFieldsProperty(FIELDS),
];

export const description = updateDisplayOptions({ show: { resource: ['image'], operation: ['styleTransfer'] } }, properties);

/** POST /proxy/imaging/v1/ai/image-style-transfer (its answer is not wrapped in data{}). */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const body: StyleTransferBody = {
		image: (await resolveImageInput(this, itemIndex, IMAGE)).value,
		reference_image: (await resolveImageInput(this, itemIndex, REFERENCE)).value,
	};
	addFields(this, itemIndex, FIELDS, additionalFields(this, itemIndex), body);
	if (body.is_portrait !== true) {
		const portraitOption =
			body.portrait_beautifier !== undefined
				? 'Portrait Beautifier (portrait_beautifier)'
				: body.portrait_style !== undefined
					? 'Portrait Style (portrait_style)'
					: undefined;
		if (portraitOption) {
			throw invalidField(
				this,
				itemIndex,
				portraitOption,
				'is used only when Is Portrait (is_portrait) is true',
				'Turn on Is Portrait, or remove the portrait options.',
			);
		}
	}
	return await runTask(this, itemIndex, { taskType: 'image-style-transfer', body, wait: WAIT_FIELDS.image });
}
