import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { additionalFieldsProperty, checkedField, fieldLabel, fieldProperty, type FieldDefinition } from '../../../shared/items/fields';
import { optionalText } from '../../../shared/items/validation';
import { readSubfolder, readUploadType } from '../../helpers/files/file-fields';
import { loadImageValue, uploadBinary } from '../../helpers/files/uploads';
import { assetReference, refuseFieldsV2Lacks, uploadAsset } from '../../helpers/assets/upload-asset';
import { apiGenerationOf } from '../../transport/v2-service';
import { binaryPropertyProperty, EXPIRES_IN, onGeneration, UPLOAD_TYPE } from '../common.descriptions';

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
	// v2 has no original image to name: the field is v1's.
	{ ...fieldProperty(ORIGINAL_FILENAME), displayOptions: onGeneration('v1') },
	additionalFieldsProperty(
		[FILE_NAME, ORIGINAL_SUBFOLDER, ORIGINAL_TYPE, SUBFOLDER, UPLOAD_TYPE],
		[{ ...fieldProperty(EXPIRES_IN), displayOptions: { show: { '/apiGeneration': ['v2'] } } }],
	),
];

export const description = updateDisplayOptions({ show: { resource: ['file'], operation: ['uploadMask'] } }, properties);

/** Why a tool call cannot use this operation (it is hidden on the tool type, and refused). */
export const notAsTool = 'Upload Mask takes a file from the binary data of an earlier node, which a tool call does not have.';

/** POST /api/upload/mask from an n8n binary property, with original_ref naming the image; on v2, POST /api/v2/assets. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const fields = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	if (apiGenerationOf(this, itemIndex) === 'v2') return await uploadMaskAsset(this, itemIndex, fields);
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

/**
 * The v1 fields set on this item that v2 has no place for (the original image's subfolder and type, a
 * subfolder, a type). Original Image Name is shown on v1 only, so n8n drops it on v2.
 */
function fieldsV2Lacks(fields: IDataObject): string[] {
	const set = (value: unknown, unset: string) => value !== undefined && value !== null && String(value).trim() !== unset;
	return [
		...(set(fields.originalSubfolder, '') ? [fieldLabel(ORIGINAL_SUBFOLDER)] : []),
		...(set(fields.originalType, 'input') ? [fieldLabel(ORIGINAL_TYPE)] : []),
		...(set(fields.subfolder, '') ? [fieldLabel(SUBFOLDER)] : []),
		...(set(fields.type, 'input') ? [fieldLabel(UPLOAD_TYPE)] : []),
	];
}

/** v2: the mask as an asset tagged `mask`; the item carries its record and the reference a graph takes. */
async function uploadMaskAsset(context: IExecuteFunctions, itemIndex: number, fields: IDataObject): Promise<INodeExecutionData[]> {
	refuseFieldsV2Lacks(context, itemIndex, 'Upload Mask', fieldsV2Lacks(fields));
	const binaryPropertyName = optionalText(
		context,
		itemIndex,
		binaryPropertyProperty.displayName,
		context.getNodeParameter('binaryPropertyName', itemIndex, 'data'),
	);
	const asset = await uploadAsset(context, itemIndex, {
		binaryPropertyName,
		field: 'Input Binary Field',
		tags: ['mask'],
		fileName: checkedField(context, itemIndex, FILE_NAME, fields.fileName) as string | undefined,
		expiresIn: checkedField(context, itemIndex, EXPIRES_IN, fields.expiresIn) as number | undefined,
	});
	return [{ json: { ...asset, asset_reference: assetReference(asset as { id: string; file_path?: string | null }) } }];
}
