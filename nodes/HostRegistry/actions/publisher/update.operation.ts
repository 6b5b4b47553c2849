import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { chosenPublisher } from '../../helpers/locators';
import { updatePublisher } from '../../transport/registry-api';
import { toolDescriptionProperty } from '../../../shared/descriptions/tool-options';
import { changesFromCollection, type FieldCollection } from '../../helpers/field-collections';
import { fieldCollectionProperty, PUBLISHER_UPDATE_FIELDS, publisherLocator } from '../common.descriptions';

const UPDATE_FIELDS: FieldCollection = { name: 'updateFields', label: 'Update Fields', fields: PUBLISHER_UPDATE_FIELDS };

const TOOL_DESCRIPTION =
	'Changes fields of a publisher in the Host node registry (name, description, website, support address and the like). Answers the updated publisher.';

const properties: INodeProperties[] = [toolDescriptionProperty(TOOL_DESCRIPTION), publisherLocator, fieldCollectionProperty(UPDATE_FIELDS)];

export const description = updateDisplayOptions({ show: { resource: ['publisher'], operation: ['update'] } }, properties);

/** Changes the fields given; answers the updated Publisher. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const id = await chosenPublisher(this, itemIndex);
	const fields = changesFromCollection(this, itemIndex, UPDATE_FIELDS);
	const publisher = await updatePublisher(this, id, fields, itemIndex);
	return [{ json: publisher, pairedItem: { item: itemIndex } }];
}
