import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { checkedParameter, fieldProperty, type FieldDefinition } from '../../../shared/items/fields';
import { pathId } from '../../helpers/identifiers';
import { chosenNode, chosenPublisher } from '../../helpers/locators';
import { updateVersion } from '../../transport/registry-api';
import { toolDescriptionProperty } from '../../../shared/descriptions/tool-options';
import { changesFromCollection, type FieldCollection } from '../../helpers/field-collections';
import { CHANGELOG_FIELD, DEPRECATED_FIELD, fieldCollectionProperty, nodeLocator, publisherLocator } from '../common.descriptions';

const VERSION_ID: FieldDefinition = {
	name: 'versionId',
	displayName: 'Version ID',
	kind: 'string',
	required: true,
	placeholder: '0b6d2c1e-…',
	description: 'ID of the version, as Publish returns it in "ID"',
	check: pathId,
};

const UPDATE_FIELDS: FieldCollection = {
	name: 'updateFields',
	label: 'Update Fields',
	description: 'Only the changelog and the deprecation flag of a version can be changed',
	fields: [CHANGELOG_FIELD, DEPRECATED_FIELD],
};

const TOOL_DESCRIPTION =
	'Changes the changelog of a published node version in the Host node registry, or marks it deprecated. Answers the updated version.';

const properties: INodeProperties[] = [
	toolDescriptionProperty(TOOL_DESCRIPTION),
	publisherLocator,
	nodeLocator('list', 'The node the version belongs to'),
	fieldProperty(VERSION_ID),
	fieldCollectionProperty(UPDATE_FIELDS),
];

export const description = updateDisplayOptions({ show: { resource: ['nodeVersion'], operation: ['update'] } }, properties);

/** Changes the changelog and/or the deprecation flag; answers the NodeVersion. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const publisherId = await chosenPublisher(this, itemIndex);
	const nodeId = chosenNode(this, itemIndex);
	const versionId = checkedParameter(this, itemIndex, VERSION_ID) as string;
	const changes = changesFromCollection(this, itemIndex, UPDATE_FIELDS);
	const version = await updateVersion(this, publisherId, nodeId, versionId, changes, itemIndex);
	return [{ json: version, pairedItem: { item: itemIndex } }];
}
