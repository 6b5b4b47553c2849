import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { bodyFromFields, nodeFieldOptions, requireSomeFields } from '../../helpers/fields';
import { chosenNode, chosenPublisher } from '../../helpers/identifiers';
import { nodeLocator, publisherLocator } from '../../helpers/locators';
import { updateNode } from '../../transport/registry-api';

const properties: INodeProperties[] = [
	publisherLocator,
	nodeLocator('list', 'The node to change'),
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: nodeFieldOptions,
	},
];

export const description = updateDisplayOptions({ show: { resource: ['node'], operation: ['update'] } }, properties);

/** PUT /publishers/{publisherId}/nodes/{nodeId}: changes the fields given, answers the updated Node. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const publisherId = await chosenPublisher(this, itemIndex);
	const nodeId = chosenNode(this, itemIndex);
	const fields = bodyFromFields(this, itemIndex, 'Update Fields', this.getNodeParameter('updateFields', itemIndex, {}) as IDataObject);
	requireSomeFields(this, itemIndex, 'Update Fields', fields);
	const node = await updateNode(this, publisherId, nodeId, fields, itemIndex);
	return [{ json: node, pairedItem: { item: itemIndex } }];
}
