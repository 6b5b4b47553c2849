/** Reading the fields of the File operations (declared in actions/common.descriptions.ts): naming an output file, and uploading one. */
import type { IExecuteFunctions } from 'n8n-workflow';

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
