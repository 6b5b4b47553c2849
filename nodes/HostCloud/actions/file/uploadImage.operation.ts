import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { booleanValue, optionalText } from '../../../shared/items/validation';
import { loadImageValue, uploadBinary } from '../../helpers/files/uploads';
import { readUploadType } from '../../helpers/files/file-fields';
import { binaryPropertyProperty, uploadTypeField } from '../common.descriptions';

const properties: INodeProperties[] = [
	binaryPropertyProperty,
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
				description: 'Name to upload the file under. Leave empty to use the binary data’s own file name.',
			},
			{
				displayName: 'Overwrite',
				name: 'overwrite',
				type: 'boolean',
				default: false,
				description: 'Whether to replace a file that already has this name',
			},
			uploadTypeField,
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['file'], operation: ['uploadImage'] } }, properties);

/** Why a tool call cannot use this operation (it is hidden on the tool type, and refused). */
export const notAsTool = 'Upload Image takes a file from the binary data of an earlier node, which a tool call does not have.';

/** POST /api/upload/image from an n8n binary property. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const fields = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const uploaded = await uploadBinary(this, itemIndex, {
		binaryPropertyName: optionalText(
			this,
			itemIndex,
			binaryPropertyProperty.displayName,
			this.getNodeParameter('binaryPropertyName', itemIndex, 'data'),
		),
		field: 'Input Binary Field',
		type: readUploadType(this, itemIndex, fields.type),
		overwrite: booleanValue(this, itemIndex, 'Overwrite', fields.overwrite ?? false),
		fileName: typeof fields.fileName === 'string' ? fields.fileName : undefined,
	});
	return [{ json: { ...uploaded, load_image_value: loadImageValue(uploaded) } }];
}
