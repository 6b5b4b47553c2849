import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { describeToolAnswer } from '../../../shared/tools/tool-result';
import { invalidField } from '../../../shared/items/validation';
import {
	addFields,
	additionalFields,
	additionalFieldsProperty,
	collectionOptions,
	type FieldDefinition,
} from '../../../shared/items/fields';
import { resolveImageInput, resolveOptionalImage, type ImageInputDefinition } from '../../helpers/inputs/image-input';
import { optionsOf, RELIGHT_STYLES } from '../../transport/spec';
import { runTask } from '../../helpers/tasks/task';
import type { BodyFields, ImageText, OneOf } from '../../transport/media-api';
import { toolDescriptionProperty } from '../../../shared/descriptions/tool-options';
import { WEBHOOK_URL_FIELD } from '../../../shared/descriptions/webhook-url';
import { waitProperties, imageInputProperties, optionalImageProperties, WAIT_FIELDS } from '../common.descriptions';

interface RelightBody extends BodyFields {
	image: ImageText;
	prompt?: string;
	style?: OneOf<typeof RELIGHT_STYLES>;
	light_transfer_strength?: number;
	change_background?: boolean;
	interpolate_from_original?: boolean;
	preserve_details?: boolean;
	transfer_light_from_lightmap?: ImageText;
	transfer_light_from_reference_image?: ImageText;
	advanced_settings?: IDataObject;
	webhook_url?: string;
}

const IMAGE: ImageInputDefinition = { prefix: 'image', api: 'image', label: 'Image', description: 'The photo to relight.' };
const LIGHTMAP: ImageInputDefinition = {
	prefix: 'lightmap',
	api: 'transfer_light_from_lightmap',
	label: 'Lightmap',
	description: 'A lightmap whose light is transferred to the image. Cannot be combined with a reference image.',
};
const REFERENCE: ImageInputDefinition = {
	prefix: 'referenceImage',
	api: 'transfer_light_from_reference_image',
	label: 'Reference Image',
	description: 'A photo whose lighting is transferred to the image. Cannot be combined with a lightmap.',
};

/** "(phrase:1.2)": the spec allows emphasis weights from 1 to 1.4. */
const EMPHASIS = /\(([^():]+):\s*([+-]?\d*\.?\d+)\s*\)/g;

const FIELDS: FieldDefinition[] = [
	{
		name: 'prompt',
		api: 'prompt',
		displayName: 'Prompt',
		kind: 'string',
		rows: 2,
		description: 'Describes the light you want. Emphasise a phrase with a weight from 1 to 1.4, e.g. "(warm sunset light:1.3)".',
	},
	{
		name: 'style',
		api: 'style',
		displayName: 'Style',
		kind: 'options',
		options: optionsOf(RELIGHT_STYLES, { contrasted_n_hdr: 'Contrasted & HDR' }),
		default: 'standard',
		description: 'Overall look of the relit image',
	},
	{
		name: 'lightTransferStrength',
		api: 'light_transfer_strength',
		displayName: 'Light Transfer Strength',
		kind: 'integer',
		min: 0,
		max: 100,
		default: 100,
		description: 'How strongly the new light is applied: 0 stays closest to the original, 100 transfers the most',
	},
	{
		name: 'changeBackground',
		api: 'change_background',
		displayName: 'Change Background',
		kind: 'boolean',
		description: 'Whether to change the background following the prompt and/or the reference image',
	},
	{
		name: 'interpolateFromOriginal',
		api: 'interpolate_from_original',
		displayName: 'Interpolate From Original',
		kind: 'boolean',
		description: 'Whether the final image is blended from the original using the light transfer strength',
	},
	{
		name: 'preserveDetails',
		api: 'preserve_details',
		displayName: 'Preserve Details',
		kind: 'boolean',
		description: 'Whether to keep texture and small details of the original',
	},
	WEBHOOK_URL_FIELD,
];

const ADVANCED: FieldDefinition[] = [
	{ name: 'blacks', api: 'blacks', displayName: 'Blacks', kind: 'number', description: 'Adjusts the black level' },
	{ name: 'brightness', api: 'brightness', displayName: 'Brightness', kind: 'number', description: 'Adjusts the brightness' },
	{ name: 'contrast', api: 'contrast', displayName: 'Contrast', kind: 'number', description: 'Adjusts the contrast' },
	{ name: 'saturation', api: 'saturation', displayName: 'Saturation', kind: 'number', description: 'Adjusts the colour saturation' },
	{ name: 'whites', api: 'whites', displayName: 'Whites', kind: 'number', description: 'Adjusts the white level' },
	{ name: 'engine', api: 'engine', displayName: 'Engine', kind: 'string', description: 'Name of the relighting engine to use' },
	{
		name: 'fixedGeneration',
		api: 'fixed_generation',
		displayName: 'Fixed Generation',
		kind: 'boolean',
		description: 'Whether the same settings always give the same image',
	},
	{
		name: 'transferLightA',
		api: 'transfer_light_a',
		displayName: 'Transfer Light A',
		kind: 'string',
		description: 'First light transfer setting, passed to the service as is',
	},
	{
		name: 'transferLightB',
		api: 'transfer_light_b',
		displayName: 'Transfer Light B',
		kind: 'string',
		description: 'Second light transfer setting, passed to the service as is',
	},
];

const TOOL_DESCRIPTION = `Changes the lighting of an image given by its URL, guided by a text prompt (and optionally a lightmap or a reference image). Usually takes under a minute; every call starts a new paid task. ${describeToolAnswer(['task_id', 'task_type'], 'the Host Media "Get Task Status" tool for images')}`;

const properties: INodeProperties[] = [
	toolDescriptionProperty(TOOL_DESCRIPTION),
	...imageInputProperties(IMAGE),
	...waitProperties('image'),
	additionalFieldsProperty(FIELDS, [...optionalImageProperties(LIGHTMAP), ...optionalImageProperties(REFERENCE)]),
	{
		displayName: 'Advanced Settings',
		name: 'advancedSettings',
		type: 'collection',
		placeholder: 'Add Setting',
		default: {},
		description: 'Fine-tuning sent as advanced_settings; the service documents no ranges for these',
		options: collectionOptions(ADVANCED),
	},
];

export const description = updateDisplayOptions({ show: { resource: ['image'], operation: ['relight'] } }, properties);

/** POST /proxy/imaging/v1/ai/image-relight. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const extra = additionalFields(this, itemIndex);
	const body: RelightBody = { image: (await resolveImageInput(this, itemIndex, IMAGE)).value };
	addFields(this, itemIndex, FIELDS, extra, body);
	if (typeof body.prompt === 'string') {
		for (const match of body.prompt.matchAll(EMPHASIS)) {
			const weight = Number(match[2]);
			if (weight < 1 || weight > 1.4) {
				throw invalidField(
					this,
					itemIndex,
					'Prompt (prompt)',
					`gives "${match[1]!.trim()}" the emphasis ${match[2]}, but emphasis weights must be from 1 to 1.4`,
				);
			}
		}
	}
	const lightmap = await resolveOptionalImage(this, itemIndex, LIGHTMAP, extra);
	const reference = await resolveOptionalImage(this, itemIndex, REFERENCE, extra);
	if (lightmap && reference) {
		throw invalidField(
			this,
			itemIndex,
			'Lightmap (transfer_light_from_lightmap)',
			'cannot be combined with Reference Image (transfer_light_from_reference_image)',
			'Transfer the light from a lightmap or from a reference image, not both.',
		);
	}
	if (lightmap) body.transfer_light_from_lightmap = lightmap.value;
	if (reference) body.transfer_light_from_reference_image = reference.value;
	const advanced = addFields(this, itemIndex, ADVANCED, this.getNodeParameter('advancedSettings', itemIndex, {}) as IDataObject, {});
	if (Object.keys(advanced).length > 0) body.advanced_settings = advanced;
	return await runTask(this, itemIndex, { taskType: 'image-relight', body, wait: WAIT_FIELDS.image });
}
