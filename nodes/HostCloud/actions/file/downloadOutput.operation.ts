import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { downloadOutputFile, fileAddressFor } from '../../helpers/files/output-files';
import { binaryFieldName, pathSegmentText } from '../../../shared/items/validation';
import { readFileReference } from '../../helpers/files/file-fields';
import { assetToBinary, freshAssetLink, type AssetRef } from '../../helpers/assets/asset-files';
import { apiGenerationOf } from '../../transport/v2-service';
import { assetIdProperty, fileReferenceProperties } from '../common.descriptions';

const properties: INodeProperties[] = [
	...fileReferenceProperties,
	assetIdProperty,
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

/** The same on v2, where no tool reads a job by id: the Execute tool's answer carries the links. */
export const notAsToolOnV2 =
	'Download Output puts the file into binary data, which an AI agent or MCP client cannot receive; on the v2 API the Execute tool answers each output of its job with its link (url) instead.';

function outputField(context: IExecuteFunctions, itemIndex: number): string {
	return binaryFieldName(context, itemIndex, 'Put Output File in Field', context.getNodeParameter('binaryPropertyName', itemIndex, 'data'));
}

/** GET /api/view, then the signed URL without credentials, streamed into binary data; on v2, the asset's content. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	if (apiGenerationOf(this, itemIndex) === 'v2') return await downloadAsset(this, itemIndex);
	const ref = readFileReference(this, itemIndex);
	const property = outputField(this, itemIndex);
	const url = await fileAddressFor(this, ref, { itemIndex });
	const binary = await downloadOutputFile(this, url, ref, { itemIndex });
	return [
		{
			json: { filename: ref.filename, subfolder: ref.subfolder, type: ref.type, mime_type: binary.mimeType, url },
			binary: { [property]: binary },
		},
	];
}

/** v2: the asset's record (with a fresh link), then its bytes from /content. */
async function downloadAsset(context: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const assetId = pathSegmentText(context, itemIndex, assetIdProperty.displayName, context.getNodeParameter('assetId', itemIndex, ''));
	const property = outputField(context, itemIndex);
	const asset = await freshAssetLink(context, assetId, itemIndex);
	const binary = await assetToBinary(context, asset as unknown as AssetRef, itemIndex);
	return [{ json: { ...asset, mime_type: binary.mimeType }, binary: { [property]: binary } }];
}
