import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { checkedParameter, fieldProperty, type FieldDefinition } from '../../../shared/items/fields';
import { publisherId } from '../../helpers/identifiers';
import { createPublisher } from '../../transport/registry-api';
import { toolDescriptionProperty } from '../../../shared/descriptions/tool-options';
import { collectionBody, type FieldCollection } from '../../helpers/field-collections';
import { fieldCollectionProperty, PUBLISHER_FIELDS } from '../common.descriptions';

const PUBLISHER_ID: FieldDefinition = {
	name: 'publisherId',
	displayName: 'Publisher ID',
	kind: 'string',
	required: true,
	placeholder: 'my-publisher',
	description: 'Unique ID of the new publisher, in lower case, like a username. It cannot be changed later.',
	check: publisherId,
};

const NAME: FieldDefinition = {
	name: 'name',
	displayName: 'Name',
	kind: 'string',
	required: true,
	placeholder: 'My Publisher',
	description: 'Display name of the publisher',
};

const ADDITIONAL_FIELDS: FieldCollection = { name: 'additionalFields', label: 'Additional Fields', fields: PUBLISHER_FIELDS };

const TOOL_DESCRIPTION = 'Creates a publisher in the Host node registry, with the account as its owner. Answers the new publisher.';

const properties: INodeProperties[] = [
	toolDescriptionProperty(TOOL_DESCRIPTION),
	fieldProperty(PUBLISHER_ID),
	fieldProperty(NAME),
	fieldCollectionProperty(ADDITIONAL_FIELDS),
];

export const description = updateDisplayOptions({ show: { resource: ['publisher'], operation: ['create'] } }, properties);

/** Creates the publisher, with you as its owner; answers the new Publisher. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const id = checkedParameter(this, itemIndex, PUBLISHER_ID) as string;
	const name = checkedParameter(this, itemIndex, NAME) as string;
	const fields = collectionBody(this, itemIndex, ADDITIONAL_FIELDS);
	const publisher = await createPublisher(this, { ...fields, id, name }, itemIndex);
	return [{ json: publisher, pairedItem: { item: itemIndex } }];
}
