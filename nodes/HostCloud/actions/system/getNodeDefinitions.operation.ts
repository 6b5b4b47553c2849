import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { optionalText } from '../../../shared/items/validation';
import { readNodeDefinitions } from '../../transport/cloud-api';
import { clipTextsDeep, SERVICE_TEXT_MAX_CHARS } from '../../../shared/transport/service-values';
import { toolDescriptionProperty } from '../../../shared/descriptions/tool-options';
import { PICK_V1, type GenerationRefusal } from '../../transport/v2-service';

const properties: INodeProperties[] = [
	toolDescriptionProperty(
		'Returns the node definitions of the Host cloud (the inputs and outputs of a node class such as KSampler or CheckpointLoaderSimple), one item per class, or only the class this tool is set up with. Useful to learn which models and input values the cloud accepts. The full list is large.',
	),
	{
		displayName: 'Node Class',
		name: 'nodeClass',
		type: 'string',
		default: '',
		placeholder: 'KSampler',
		description: 'Return only this node class. Leave empty to return one item per node class.',
	},
];

export const description = updateDisplayOptions({ show: { resource: ['system'], operation: ['getNodeDefinitions'] } }, properties);

/** The v2 API publishes no node definitions (`router.ts` refuses it there). */
export const notOnV2: GenerationRefusal = {
	why: 'the v2 API publishes no node definitions',
	instead: `Read them with a Host Cloud API credential (${PICK_V1}): the cloud, or a self-hosted ComfyUI.`,
};

/** GET /api/object_info: one item per node class (or only the one asked for). */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const nodeClass = optionalText(this, itemIndex, 'Node Class', this.getNodeParameter('nodeClass', itemIndex, ''));
	const catalogue = await readNodeDefinitions(this, itemIndex);
	const entries = Object.entries(catalogue ?? {});
	const selected = nodeClass ? entries.filter(([name]) => name === nodeClass) : entries;
	if (nodeClass && selected.length === 0) {
		throw new NodeOperationError(this.getNode(), `Node class "${nodeClass}" is not in the cloud's node definitions`, {
			itemIndex,
			description: 'Check the spelling (class names are case-sensitive), or leave Node Class empty to list them all.',
		});
	}
	// A definition's texts are names and descriptions: each kept to 4000 characters, whatever the server sends.
	return selected.map(([name, definition]) => ({ json: clipTextsDeep({ class_type: name, ...definition }, 4 * SERVICE_TEXT_MAX_CHARS) }));
}
