import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { hostRequest } from '../../../shared/transport';
import { bodyFromFields, publisherFieldOptions, requireSomeFields } from '../../helpers/fields';
import { chosenPublisher, registryPath } from '../../helpers/identifiers';
import { publisherLocator } from '../../helpers/locators';

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
	const publisher = await hostRequest<IDataObject>(this, 'hostApi', {
		method: 'PUT',
		path: registryPath('publishers', id),
		body: { ...fields, id },
		retry: true,
		itemIndex,
		action: `updating publisher "${id}"`,
	});
	return [{ json: publisher, pairedItem: { item: itemIndex } }];
}
