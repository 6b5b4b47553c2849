import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { hostRequest } from '../../../shared/transport';
import { requiredText } from '../../../shared/validation';
import { bodyFromFields, publisherFieldOptions } from '../../helpers/fields';
import { publisherId } from '../../helpers/identifiers';

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
	const publisher = await hostRequest<IDataObject>(this, 'hostApi', {
		method: 'POST',
		path: '/publishers',
		body: { ...fields, id, name },
		itemIndex,
		action: `creating publisher "${id}"`,
		statusAdvice: {
			409: { headline: 'The publisher ID is already taken', hint: 'Choose another Publisher ID.' },
		},
	});
	return [{ json: publisher, pairedItem: { item: itemIndex } }];
}
