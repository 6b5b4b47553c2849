import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { bodyFromFields, changelogField, deprecatedField, requireSomeFields } from '../../helpers/fields';
import { chosenNode, chosenPublisher, pathId } from '../../helpers/identifiers';
import { nodeLocator, publisherLocator } from '../../helpers/locators';
import { updateVersion } from '../../transport/registry-api';

const properties: INodeProperties[] = [
	publisherLocator,
	nodeLocator('list', 'The node the version belongs to'),
	{
		displayName: 'Version ID',
		name: 'versionId',
		type: 'string',
		required: true,
		default: '',
		placeholder: '0b6d2c1e-…',
		description: 'ID of the version, as Publish returns it in "ID"',
	},
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		description: 'Only the changelog and the deprecation flag of a version can be changed',
		options: [changelogField, deprecatedField],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['nodeVersion'], operation: ['update'] } }, properties);

/** PUT .../versions/{versionId} with changelog and/or deprecated; answers the NodeVersion. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const publisherId = await chosenPublisher(this, itemIndex);
	const nodeId = chosenNode(this, itemIndex);
	const versionId = pathId(this, itemIndex, 'Version ID', this.getNodeParameter('versionId', itemIndex));
	const fields = bodyFromFields(this, itemIndex, 'Update Fields', this.getNodeParameter('updateFields', itemIndex, {}) as IDataObject);
	requireSomeFields(this, itemIndex, 'Update Fields', fields);
	const version = await updateVersion(this, publisherId, nodeId, versionId, fields, itemIndex);
	return [{ json: version, pairedItem: { item: itemIndex } }];
}
