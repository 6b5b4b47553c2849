import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { chosenNode, chosenPublisher } from '../../helpers/locators';
import { updateNode } from '../../transport/registry-api';
import { toolDescriptionProperty } from '../../../shared/descriptions/tool-options';
import { changesFromCollection, type FieldCollection } from '../../helpers/field-collections';
import { fieldCollectionProperty, NODE_FIELDS, nodeLocator, publisherLocator } from '../common.descriptions';

const UPDATE_FIELDS: FieldCollection = { name: 'updateFields', label: 'Update Fields', fields: NODE_FIELDS };

const TOOL_DESCRIPTION =
	'Changes fields of a node in the Host node registry (name, description, repository, tags and the like). Answers the updated node.';

const properties: INodeProperties[] = [
	toolDescriptionProperty(TOOL_DESCRIPTION),
	publisherLocator,
	nodeLocator('list', 'The node to change'),
	fieldCollectionProperty(UPDATE_FIELDS),
];

export const description = updateDisplayOptions({ show: { resource: ['node'], operation: ['update'] } }, properties);

/** Changes the fields given; answers the updated Node. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const publisherId = await chosenPublisher(this, itemIndex);
	const nodeId = chosenNode(this, itemIndex);
	const fields = changesFromCollection(this, itemIndex, UPDATE_FIELDS);
	const node = await updateNode(this, publisherId, nodeId, fields, itemIndex);
	return [{ json: node, pairedItem: { item: itemIndex } }];
}
