import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { additionalFieldsProperty, checkedField, fieldLabel, type FieldDefinition } from '../../../shared/items/fields';
import { booleanValue, optionalText } from '../../../shared/items/validation';
import { readUploadType } from '../../helpers/files/file-fields';
import { loadImageValue, uploadBinary } from '../../helpers/files/uploads';
import { binaryPropertyProperty, UPLOAD_TYPE } from '../common.descriptions';

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
	description: 'Whether to replace a file that already has this name',
};

const properties: INodeProperties[] = [binaryPropertyProperty, additionalFieldsProperty([FILE_NAME, OVERWRITE, UPLOAD_TYPE])];

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
		type: readUploadType(this, itemIndex, UPLOAD_TYPE, fields.type),
		// A blank Overwrite (an expression giving "") is refused, not taken as off.
		overwrite: booleanValue(this, itemIndex, fieldLabel(OVERWRITE), fields.overwrite ?? false),
		fileName: checkedField(this, itemIndex, FILE_NAME, fields.fileName) as string | undefined,
	});
	return [{ json: { ...uploaded, load_image_value: loadImageValue(uploaded) } }];
}
