import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { additionalFieldsProperty, checkedField, fieldLabel, fieldProperty, type FieldDefinition } from '../../../shared/items/fields';
import { booleanValue, optionalText } from '../../../shared/items/validation';
import { readUploadType } from '../../helpers/files/file-fields';
import { loadImageValue, uploadBinary } from '../../helpers/files/uploads';
import { assetReference, refuseFieldsV2Lacks, uploadAsset } from '../../helpers/assets/upload-asset';
import { apiGenerationOf } from '../../transport/v2-service';
import { binaryPropertyProperty, EXPIRES_IN, UPLOAD_TYPE } from '../common.descriptions';

const FILE_NAME: FieldDefinition = {
	name: 'fileName',
	displayName: 'File Name',
	kind: 'string',
	description: 'Name to upload the file under. Leave empty to use the binary data’s own file name.',
};

const OVERWRITE: FieldDefinition = {
	name: 'overwrite',
	displayName: 'Overwrite',
	kind: 'boolean',
	default: false,
	description: 'Whether to replace a file that already has this name (v1 only)',
};

const properties: INodeProperties[] = [
	binaryPropertyProperty,
	additionalFieldsProperty(
		[FILE_NAME, OVERWRITE, UPLOAD_TYPE],
		[{ ...fieldProperty(EXPIRES_IN), displayOptions: { show: { '/apiGeneration': ['v2'] } } }],
	),
];

export const description = updateDisplayOptions({ show: { resource: ['file'], operation: ['uploadImage'] } }, properties);

/** Why a tool call cannot use this operation (it is hidden on the tool type, and refused). */
export const notAsTool = 'Upload Image takes a file from the binary data of an earlier node, which a tool call does not have.';

function binaryPropertyOf(context: IExecuteFunctions, itemIndex: number): string {
	return optionalText(
		context,
		itemIndex,
		binaryPropertyProperty.displayName,
		context.getNodeParameter('binaryPropertyName', itemIndex, 'data'),
	);
}

/** POST /api/upload/image from an n8n binary property; on v2, POST /api/v2/assets. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const fields = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	if (apiGenerationOf(this, itemIndex) === 'v2') return await uploadImageAsset(this, itemIndex, fields);
	const uploaded = await uploadBinary(this, itemIndex, {
		binaryPropertyName: binaryPropertyOf(this, itemIndex),
		field: 'Input Binary Field',
		type: readUploadType(this, itemIndex, UPLOAD_TYPE, fields.type),
		// A blank Overwrite (an expression giving "") is refused, not taken as off.
		overwrite: booleanValue(this, itemIndex, fieldLabel(OVERWRITE), fields.overwrite ?? false),
		fileName: checkedField(this, itemIndex, FILE_NAME, fields.fileName) as string | undefined,
	});
	return [{ json: { ...uploaded, load_image_value: loadImageValue(uploaded) } }];
}

/** v2: the image as an asset tagged `input`; the item carries its record and the reference a graph takes. */
async function uploadImageAsset(context: IExecuteFunctions, itemIndex: number, fields: IDataObject): Promise<INodeExecutionData[]> {
	const lacking = [
		...(fields.overwrite !== undefined && fields.overwrite !== false ? [fieldLabel(OVERWRITE)] : []),
		...(fields.type !== undefined && String(fields.type).trim() !== 'input' ? [fieldLabel(UPLOAD_TYPE)] : []),
	];
	refuseFieldsV2Lacks(context, itemIndex, 'Upload Image', lacking);
	const asset = await uploadAsset(context, itemIndex, {
		binaryPropertyName: binaryPropertyOf(context, itemIndex),
		field: 'Input Binary Field',
		tags: ['input'],
		fileName: checkedField(context, itemIndex, FILE_NAME, fields.fileName) as string | undefined,
		expiresIn: checkedField(context, itemIndex, EXPIRES_IN, fields.expiresIn) as number | undefined,
	});
	return [{ json: { ...asset, asset_reference: assetReference(asset as { id: string; file_path?: string | null }) } }];
}
