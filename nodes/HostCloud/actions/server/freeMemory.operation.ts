import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { fieldLabel, fieldProperty, type FieldDefinition } from '../../../shared/items/fields';
import { booleanValue, invalidField } from '../../../shared/items/validation';
import { SERVER_CONTROLS_NOT_ON_V2, selfHostedServer } from '../../helpers/server/controls';
import { freeMemory } from '../../transport/cloud-api';

const OPERATION_NAME = 'Free Memory';

const UNLOAD_MODELS: FieldDefinition = {
	name: 'unloadModels',
	api: 'unload_models',
	displayName: 'Unload Models',
	kind: 'boolean',
	default: true,
	description: 'Whether to unload every model from the GPU, so that the next workflow (a video after an image) has its memory',
};

const FREE_MEMORY: FieldDefinition = {
	name: 'freeMemory',
	api: 'free_memory',
	displayName: 'Free Memory',
	kind: 'boolean',
	default: true,
	description:
		'Whether to also drop what the server keeps between runs (its cached node outputs) and give the memory back. The server then unloads the models too, whatever Unload Models says.',
};

const properties: INodeProperties[] = [
	fieldProperty(UNLOAD_MODELS),
	fieldProperty(FREE_MEMORY),
	{
		displayName:
			'The server does this as soon as no job is running: one running now finishes first. The input item’s files pass through, so the next step can use them.',
		name: 'freeMemoryNotice',
		type: 'notice',
		default: '',
	},
];

export const description = updateDisplayOptions({ show: { resource: ['server'], operation: ['freeMemory'] } }, properties);

/** A self-hosted server's control, which the v2 API does not offer (`router.ts` refuses it there). */
export const notOnV2 = SERVER_CONTROLS_NOT_ON_V2;

/** Why a tool call cannot use this operation (it is hidden on the tool type, and refused). */
export const notAsTool =
	'Free Memory unloads the models of the whole server, also those another workflow or person is about to use; an AI agent only reads the server (System Stats, List Models).';

/**
 * POST /api/free {unload_models, free_memory}: the server answers 200 with no body and acts when
 * no job runs, so the item says what was asked, not what was freed. The input's files ride along:
 * this is a step between two jobs (an image, then a video on the same GPU).
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	await selfHostedServer(this, OPERATION_NAME, itemIndex);
	const asked = {
		// A blank or null switch (from an expression) is refused, never taken as its default: this empties the server's GPU.
		unload_models: booleanValue(this, itemIndex, fieldLabel(UNLOAD_MODELS), this.getNodeParameter('unloadModels', itemIndex, true)),
		free_memory: booleanValue(this, itemIndex, fieldLabel(FREE_MEMORY), this.getNodeParameter('freeMemory', itemIndex, true)),
	};
	if (!asked.unload_models && !asked.free_memory) {
		throw invalidField(
			this,
			itemIndex,
			'Unload Models',
			'and Free Memory are both off, so there is nothing to ask',
			'Turn on one of them, or both.',
		);
	}
	await freeMemory(this, asked, itemIndex);
	const item: INodeExecutionData = { json: { ...asked, requested: true } };
	const binary = this.getInputData()[itemIndex]?.binary;
	if (binary) item.binary = binary;
	return [item];
}
