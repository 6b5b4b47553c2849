/**
 * Uploading an n8n binary property as an input image or mask (multipart/form-data), shared by the
 * File operations and by Execute/Submit's "Input Images".
 */
import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { inputBinary } from '../../../shared/binary/binary';
import { multipartBody } from '../../../shared/transport/multipart';
import { isRecord } from '../../../shared/items/validation';
import { uploadFile } from '../../transport/cloud-api';
import { MAX_ID_CHARS } from '../../../shared/items/path-segment';

export const UPLOAD_TYPES = ['input', 'temp', 'output'];

export interface UploadRequest {
	binaryPropertyName: string;
	/** The field that named the binary property, for messages. */
	field: string;
	type?: string;
	overwrite?: boolean;
	fileName?: string;
	/** Masks: the image the mask belongs to. */
	originalRef?: { filename: string; subfolder: string; type: string };
	subfolder?: string;
}

export interface UploadedFile {
	name: string;
	subfolder: string;
	type: string;
}

/** Checks the binary property exists on the item, before anything is sent. */
export function binaryToUpload(context: IExecuteFunctions, itemIndex: number, binaryPropertyName: string, field: string): IBinaryData {
	const name = binaryPropertyName.trim();
	if (name === '')
		throw new NodeOperationError(context.getNode(), `${field} is empty`, {
			itemIndex,
			description: 'Enter the name of the binary property that holds the image, usually "data".',
		});
	const binary = inputBinary(context, itemIndex, name);
	if (!binary) {
		const available = Object.keys(context.getInputData()[itemIndex]?.binary ?? {});
		throw new NodeOperationError(context.getNode(), `${field}: the input item has no binary property "${name}"`, {
			itemIndex,
			description: available.length
				? `The item's binary properties are: ${available.join(', ')}.`
				: 'The item has no binary data. Put a node that reads or downloads the image (for example Read/Write Files or HTTP Request) before this one.',
		});
	}
	return binary;
}

/** POST /api/upload/image (or /mask): answers the stored name, subfolder and type. */
export async function uploadBinary(
	context: IExecuteFunctions,
	itemIndex: number,
	request: UploadRequest,
	mask = false,
): Promise<UploadedFile> {
	const binary = binaryToUpload(context, itemIndex, request.binaryPropertyName, request.field);
	const data = await context.helpers.getBinaryDataBuffer(itemIndex, request.binaryPropertyName.trim());
	const extension = binary.fileExtension ? `.${binary.fileExtension}` : '';
	const fileName = request.fileName?.trim() || binary.fileName || `upload${extension || '.png'}`;
	const fields: Record<string, string> = { type: request.type ?? 'input' };
	if (!mask) fields.overwrite = String(request.overwrite ?? false);
	if (mask && request.originalRef) fields.original_ref = JSON.stringify(request.originalRef);
	if (request.subfolder) fields.subfolder = request.subfolder;
	const { body, contentType } = multipartBody(fields, [
		{ name: 'image', data, fileName, contentType: binary.mimeType || 'application/octet-stream' },
	]);
	const answer = await uploadFile(
		context,
		{ mask, body, contentType },
		{ itemIndex, action: mask ? `uploading the mask "${fileName}"` : `uploading the image "${fileName}"` },
	);
	// The transport has read any JSON answer already: text here is not JSON.
	const record = isRecord(answer) ? answer : {};
	const name = typeof record.name === 'string' ? record.name : typeof record.filename === 'string' ? record.filename : '';
	// Where it stored the file: a name, and a subfolder and type that are text when given, each a name's length.
	const where = [name, record.subfolder ?? '', record.type ?? ''];
	if (!name || where.some((part) => typeof part !== 'string' || part.length > MAX_ID_CHARS)) {
		throw new NodeOperationError(
			context.getNode(),
			`The service accepted the upload of "${fileName}" but did not say what it stored it as (a name, subfolder and type as text)`,
			{ itemIndex, description: 'The file may be stored all the same. This answer is a fault of the service: try again.' },
		);
	}
	return {
		name,
		subfolder: typeof record.subfolder === 'string' ? record.subfolder : '',
		type: typeof record.type === 'string' ? record.type : (request.type ?? 'input'),
	};
}

/** How a LoadImage input names an uploaded file: with its subfolder, when it has one. */
export function loadImageValue(file: UploadedFile): string {
	return file.subfolder ? `${file.subfolder}/${file.name}` : file.name;
}
