import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { describeToolAnswer } from '../../../shared/tools/tool-result';
import { addFields, additionalFields, additionalFieldsProperty, type FieldDefinition } from '../../../shared/items/fields';
import { resolveImageInput, type ImageInputDefinition } from '../../helpers/inputs/image-input';
import { runTask } from '../../helpers/tasks/task';
import type { BodyFields, ImageText } from '../../transport/media-api';
import { toolDescriptionProperty } from '../../../shared/descriptions/tool-options';
import { WEBHOOK_URL_FIELD } from '../../../shared/descriptions/webhook-url';
import { waitProperties, imageInputProperties, WAIT_FIELDS } from '../common.descriptions';

interface SkinEnhancerBody extends BodyFields {
	image: ImageText;
	sharpen?: number;
	smart_grain?: number;
	webhook_url?: string;
}

const IMAGE: ImageInputDefinition = {
	prefix: 'image',
	api: 'image',
	label: 'Image',
	description: 'The portrait to enhance; a URL must be public and HTTPS.',
	httpsOnly: true,
};

const FIELDS: FieldDefinition[] = [
	{
		name: 'sharpen',
		api: 'sharpen',
		displayName: 'Sharpen',
		kind: 'integer',
		min: 0,
		max: 100,
		default: 0,
		description: 'Sharpening intensity, from 0 to 100',
	},
	{
		name: 'smartGrain',
		api: 'smart_grain',
		displayName: 'Smart Grain',
		kind: 'integer',
		min: 0,
		max: 100,
		default: 0,
		description: 'Grain intensity, from 0 to 100',
	},
	WEBHOOK_URL_FIELD,
];

const TOOL_DESCRIPTION = `Retouches the skin in a portrait given by its URL (creative, more artistic mode). Usually takes under a minute; every call starts a new paid task. ${describeToolAnswer(['task_id', 'task_type'], 'the Host Media "Get Task Status" tool for images')}`;

const properties: INodeProperties[] = [
	toolDescriptionProperty(TOOL_DESCRIPTION),
	...imageInputProperties(IMAGE),
	...waitProperties('image'),
	additionalFieldsProperty(FIELDS),
];

export const description = updateDisplayOptions({ show: { resource: ['image'], operation: ['enhanceSkin'] } }, properties);

/** POST /proxy/imaging/v1/ai/skin-enhancer/creative: the creative (more artistic) mode. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const body: SkinEnhancerBody = { image: (await resolveImageInput(this, itemIndex, IMAGE)).value };
	addFields(this, itemIndex, FIELDS, additionalFields(this, itemIndex), body);
	return await runTask(this, itemIndex, { taskType: 'skin-enhancer', body, wait: WAIT_FIELDS.image });
}
