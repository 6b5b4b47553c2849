import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { bodyFromFields, publisherFieldOptions, requireSomeFields } from '../../helpers/fields';
import { chosenPublisher } from '../../helpers/identifiers';
import { publisherLocator } from '../../helpers/locators';
import { updatePublisher } from '../../transport/registry-api';

const properties: INodeProperties[] = [
	publisherLocator,
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: publisherFieldOptions(true),
	},
];

export const description = updateDisplayOptions({ show: { resource: ['publisher'], operation: ['update'] } }, properties);

/** PUT /publishers/{publisherId}: changes the fields given, answers the updated Publisher. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const id = await chosenPublisher(this, itemIndex);
	const fields = bodyFromFields(this, itemIndex, 'Update Fields', this.getNodeParameter('updateFields', itemIndex, {}) as IDataObject);
	requireSomeFields(this, itemIndex, 'Update Fields', fields);
	const publisher = await updatePublisher(this, id, fields, itemIndex);
	return [{ json: publisher, pairedItem: { item: itemIndex } }];
}
