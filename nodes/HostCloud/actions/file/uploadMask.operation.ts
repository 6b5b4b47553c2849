import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { optionalText, requiredText } from '../../../shared/items/validation';
import { loadImageValue, uploadBinary } from '../../helpers/files/uploads';
import { readUploadType } from '../../helpers/files/file-fields';
import { binaryPropertyProperty, uploadTypeField } from '../common.descriptions';

const properties: INodeProperties[] = [
	binaryPropertyProperty,
	{
		displayName: 'Original Image Name',
		name: 'originalFilename',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 3b9d…e1.png',
		description: 'The name that Upload Image returned for the image this mask belongs to',
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			{
				displayName: 'File Name',
				name: 'fileName',
				type: 'string',
				default: '',
				description: 'Name to upload the mask under. Leave empty to use the binary data’s own file name.',
			},
			{
				displayName: 'Original Image Subfolder',
				name: 'originalSubfolder',
				type: 'string',
				default: '',
				description: 'The subfolder of the original image, if it has one',
			},
			{
				displayName: 'Original Image Type',
				name: 'originalType',
				type: 'options',
				options: [
					{ name: 'Input', value: 'input' },
					{ name: 'Output', value: 'output' },
					{ name: 'Temp', value: 'temp' },
				],
				default: 'input',
				description: 'The type of the original image (input for uploaded images)',
			},
			{
				displayName: 'Subfolder',
				name: 'subfolder',
				type: 'string',
				default: '',
				description: 'Sent with the upload for compatibility; the cloud stores files flat and ignores it',
			},
			uploadTypeField,
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['file'], operation: ['uploadMask'] } }, properties);

/** Why a tool call cannot use this operation (it is hidden on the tool type, and refused). */
export const notAsTool = 'Upload Mask takes a file from the binary data of an earlier node, which a tool call does not have.';

/** POST /api/upload/mask from an n8n binary property, with original_ref naming the image. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const fields = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const originalFilename = requiredText(this, itemIndex, 'Original Image Name', this.getNodeParameter('originalFilename', itemIndex, ''));
	const originalRef = {
		filename: originalFilename,
		subfolder: optionalText(this, itemIndex, 'Original Image Subfolder', fields.originalSubfolder),
		type: readUploadType(this, itemIndex, fields.originalType, 'Original Image Type'),
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
			type: readUploadType(this, itemIndex, fields.type),
			fileName: typeof fields.fileName === 'string' ? fields.fileName : undefined,
			subfolder: typeof fields.subfolder === 'string' ? fields.subfolder.trim() : undefined,
			originalRef,
		},
		true,
	);
	return [{ json: { ...uploaded, load_image_value: loadImageValue(uploaded), original_ref: originalRef } }];
}
