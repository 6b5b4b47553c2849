/** Fields of the File operations: naming an output file, and uploading one. */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { mimeTypeFor, type OutputFileRef } from './output-files';
import { oneOf, optionalText, requiredText } from '../../../shared/items/validation';
import { UPLOAD_TYPES } from './uploads';

export const fileReferenceProperties: INodeProperties[] = [
	{
		displayName: 'File Name',
		name: 'filename',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. ComfyUI_00001_.png',
		description: 'The filename of the file reference, for example the filename of an image in the output of Execute',
	},
	{
		displayName: 'Subfolder',
		name: 'subfolder',
		type: 'string',
		default: '',
		description: 'The subfolder of the file reference; leave empty when it has none',
	},
	{
		displayName: 'Type',
		name: 'fileType',
		type: 'options',
		options: [
			{ name: 'Input', value: 'input', description: 'A file you uploaded' },
			{ name: 'Output', value: 'output', description: 'A file a workflow saved' },
			{ name: 'Temp', value: 'temp', description: 'A preview file a workflow made' },
		],
		default: 'output',
		description: 'The type of the file reference',
	},
];

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

export const binaryPropertyProperty: INodeProperties = {
	displayName: 'Input Binary Field',
	name: 'binaryPropertyName',
	type: 'string',
	default: 'data',
	required: true,
	description: 'The binary property of the input item that holds the file to upload',
};

export const uploadTypeField: INodeProperties = {
	displayName: 'Type',
	name: 'type',
	type: 'options',
	options: [
		{ name: 'Input', value: 'input', description: 'For Load Image nodes (the usual choice)' },
		{ name: 'Output', value: 'output' },
		{ name: 'Temp', value: 'temp' },
	],
	default: 'input',
	description: 'Where the cloud keeps the file',
};

export function readUploadType(context: IExecuteFunctions, itemIndex: number, raw: unknown, field = 'Type'): string {
	return oneOf(context, itemIndex, field, optionalText(context, itemIndex, field, raw) || 'input', UPLOAD_TYPES);
}
