import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { additionalFieldsProperty, checkedField, fieldProperty, type FieldDefinition } from '../../../shared/items/fields';
import { optionalText } from '../../../shared/items/validation';
import { readSubfolder, readUploadType } from '../../helpers/files/file-fields';
import { loadImageValue, uploadBinary } from '../../helpers/files/uploads';
import { binaryPropertyProperty, UPLOAD_TYPE } from '../common.descriptions';

const ORIGINAL_FILENAME: FieldDefinition = {
	name: 'originalFilename',
	displayName: 'Original Image Name',
	kind: 'string',
	required: true,
	placeholder: 'e.g. 3b9d…e1.png',
	description: 'The name that Upload Image returned for the image this mask belongs to',
};

const FILE_NAME: FieldDefinition = {
	name: 'fileName',
	displayName: 'File Name',
	kind: 'string',
	description: 'Name to upload the mask under. Leave empty to use the binary data’s own file name.',
};

const ORIGINAL_SUBFOLDER: FieldDefinition = {
	name: 'originalSubfolder',
	displayName: 'Original Image Subfolder',
	kind: 'string',
	description: 'The subfolder of the original image, if it has one',
};

const ORIGINAL_TYPE: FieldDefinition = {
	name: 'originalType',
	displayName: 'Original Image Type',
	kind: 'options',
	options: [
		{ name: 'Input', value: 'input' },
		{ name: 'Output', value: 'output' },
		{ name: 'Temp', value: 'temp' },
	],
	default: 'input',
	description: 'The type of the original image (input for uploaded images)',
};

const SUBFOLDER: FieldDefinition = {
	name: 'subfolder',
	displayName: 'Subfolder',
	kind: 'string',
	description: 'Sent with the upload for compatibility; the cloud stores files flat and ignores it',
};

const properties: INodeProperties[] = [
	binaryPropertyProperty,
	fieldProperty(ORIGINAL_FILENAME),
	additionalFieldsProperty([FILE_NAME, ORIGINAL_SUBFOLDER, ORIGINAL_TYPE, SUBFOLDER, UPLOAD_TYPE]),
];

export const description = updateDisplayOptions({ show: { resource: ['file'], operation: ['uploadMask'] } }, properties);

/** Why a tool call cannot use this operation (it is hidden on the tool type, and refused). */
export const notAsTool = 'Upload Mask takes a file from the binary data of an earlier node, which a tool call does not have.';

/** POST /api/upload/mask from an n8n binary property, with original_ref naming the image. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const fields = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const originalRef = {
		filename: checkedField(this, itemIndex, ORIGINAL_FILENAME, this.getNodeParameter('originalFilename', itemIndex, '')) as string,
		subfolder: readSubfolder(this, itemIndex, ORIGINAL_SUBFOLDER, fields.originalSubfolder) ?? '',
		type: readUploadType(this, itemIndex, ORIGINAL_TYPE, fields.originalType),
	};
	const uploaded = await uploadBinary(
		this,
		itemIndex,
		{
			binaryPropertyName: optionalText(
				this,
				itemIndex,
				binaryPropertyProperty.displayName,
				this.getNodeParameter('binaryPropertyName', itemIndex, 'data'),
			),
			field: 'Input Binary Field',
			type: readUploadType(this, itemIndex, UPLOAD_TYPE, fields.type),
			fileName: checkedField(this, itemIndex, FILE_NAME, fields.fileName) as string | undefined,
			subfolder: readSubfolder(this, itemIndex, SUBFOLDER, fields.subfolder),
			originalRef,
		},
		true,
	);
	return [{ json: { ...uploaded, load_image_value: loadImageValue(uploaded), original_ref: originalRef } }];
}
