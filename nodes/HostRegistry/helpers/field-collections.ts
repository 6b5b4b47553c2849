/**
 * Request bodies from the collections of body fields that the operations declare (their fields in
 * actions/common.descriptions.ts): each value checked by its field definition, under the spec's name.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { additionalFields, addFields, type FieldDefinition } from '../../shared/items/fields';
import { type CheckContext, invalidField } from '../../shared/items/validation';

/** A collection parameter of body fields: the editor's collection and the body read from it. */
export interface FieldCollection {
	name: string;
	/** The collection's name as shown: messages say where a field is, "Logo URL (in Update Fields)". */
	label: string;
	description?: string;
	fields: FieldDefinition[];
}

/**
 * The body fields of a filled-in collection, under the spec's names, each value checked. A field
 * added but left blank is sent blank, so the registry clears it. Messages say which collection a
 * bad field is in: "Logo URL (in Additional Fields) ...".
 */
export function bodyFromFields(
	context: CheckContext,
	itemIndex: number,
	collection: string,
	fields: FieldDefinition[],
	values: IDataObject,
): IDataObject {
	return addFields(context, itemIndex, fields, values, {}, { collection, keepBlank: true });
}

/** The request body from a collection parameter of the item. */
export function collectionBody(context: IExecuteFunctions, itemIndex: number, collection: FieldCollection): IDataObject {
	return bodyFromFields(context, itemIndex, collection.label, collection.fields, additionalFields(context, itemIndex, collection.name));
}

/** The changes of an update's collection; an update with nothing to change is refused before a request is sent. */
export function changesFromCollection(context: IExecuteFunctions, itemIndex: number, collection: FieldCollection): IDataObject {
	const changes = collectionBody(context, itemIndex, collection);
	if (Object.keys(changes).length === 0) {
		const name = collection.label;
		throw invalidField(context, itemIndex, name, 'is empty', `Add at least one field to ${name} to say what to change.`);
	}
	return changes;
}
