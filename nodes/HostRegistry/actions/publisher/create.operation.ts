import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { requiredText } from '../../../shared/validation';
import { bodyFromFields, publisherFieldOptions } from '../../helpers/fields';
import { publisherId } from '../../helpers/identifiers';
import { createPublisher } from '../../transport/registry-api';

const properties: INodeProperties[] = [
	{
		displayName: 'Publisher ID',
		name: 'publisherId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'my-publisher',
		description: 'Unique ID of the new publisher, in lower case, like a username. It cannot be changed later.',
	},
	{
		displayName: 'Name',
		name: 'name',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'My Publisher',
		description: 'Display name of the publisher',
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: publisherFieldOptions(false),
	},
];

export const description = updateDisplayOptions({ show: { resource: ['publisher'], operation: ['create'] } }, properties);

/** POST /publishers: the new Publisher, with you as its owner. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const id = publisherId(this, itemIndex, 'Publisher ID', this.getNodeParameter('publisherId', itemIndex));
	const name = requiredText(this, itemIndex, 'Name', this.getNodeParameter('name', itemIndex));
	const fields = bodyFromFields(
		this,
		itemIndex,
		'Additional Fields',
		this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject,
	);
	const publisher = await createPublisher(this, { ...fields, id, name }, itemIndex);
	return [{ json: publisher, pairedItem: { item: itemIndex } }];
}
