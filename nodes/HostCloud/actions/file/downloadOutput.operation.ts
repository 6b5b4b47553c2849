import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { downloadOutputFile, fileAddressFor } from '../../helpers/files/output-files';
import { binaryFieldName } from '../../../shared/items/validation';
import { readFileReference } from '../../helpers/files/file-fields';
import { fileReferenceProperties } from '../common.descriptions';

const properties: INodeProperties[] = [
	...fileReferenceProperties,
	{
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		description: 'The name of the binary property to put the file in',
	},
];

export const description = updateDisplayOptions({ show: { resource: ['file'], operation: ['downloadOutput'] } }, properties);

/** Why a tool call cannot use this operation (it is hidden on the tool type, and refused). */
export const notAsTool =
	'Download Output puts the file into binary data, which an AI agent or MCP client cannot receive; Get Status gives the links of a job’s outputs instead.';

/** GET /api/view, then the signed URL without credentials, streamed into binary data. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const ref = readFileReference(this, itemIndex);
	const property = binaryFieldName(
		this,
		itemIndex,
		'Put Output File in Field',
		this.getNodeParameter('binaryPropertyName', itemIndex, 'data'),
	);
	const url = await fileAddressFor(this, ref, { itemIndex });
	const binary = await downloadOutputFile(this, url, ref, { itemIndex });
	return [
		{
			json: { filename: ref.filename, subfolder: ref.subfolder, type: ref.type, mime_type: binary.mimeType, url },
			binary: { [property]: binary },
		},
	];
}
