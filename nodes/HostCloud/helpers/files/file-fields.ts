/** Reading the fields of the File operations (declared in actions/common.descriptions.ts): naming an output file, and uploading one. */
import type { IExecuteFunctions } from 'n8n-workflow';

import { checkedField, checkedOrDefault, type FieldDefinition } from '../../../shared/items/fields';
import { mimeTypeFor, type OutputFileRef } from './output-files';
import { oneOf, optionalText, requiredText } from '../../../shared/items/validation';
import { UPLOAD_TYPES } from './uploads';

/** Reads the file reference fields; the filename must not be empty. */
export function readFileReference(
	context: IExecuteFunctions,
	itemIndex: number,
): Pick<OutputFileRef, 'filename' | 'subfolder' | 'type' | 'mime_type'> {
	const filename = requiredText(context, itemIndex, 'File Name', context.getNodeParameter('filename', itemIndex, ''));
	// A list or object from an expression is refused by name, never sent as "[object Object]".
	const subfolder = optionalText(context, itemIndex, 'Subfolder', context.getNodeParameter('subfolder', itemIndex, ''));
	const type = oneOf(
		context,
		itemIndex,
		'Type',
		optionalText(context, itemIndex, 'Type', context.getNodeParameter('fileType', itemIndex, 'output')) || 'output',
		UPLOAD_TYPES,
	);
	return { filename, subfolder, type, mime_type: mimeTypeFor(filename) };
}

/** An upload's type (or its original image's), read by the operation's definition: spaces around it are not part of it. */
export function readUploadType(context: IExecuteFunctions, itemIndex: number, field: FieldDefinition, raw: unknown): string {
	return checkedOrDefault(context, itemIndex, field, typeof raw === 'string' ? raw.trim() : raw) as string;
}

/** A subfolder text, trimmed: undefined when left blank. */
export function readSubfolder(context: IExecuteFunctions, itemIndex: number, field: FieldDefinition, raw: unknown): string | undefined {
	return (checkedField(context, itemIndex, field, raw) as string | undefined)?.trim();
}
