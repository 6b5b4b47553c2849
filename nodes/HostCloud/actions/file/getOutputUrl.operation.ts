import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { fileAddressFor } from '../../helpers/files/output-files';
import { readFileReference } from '../../helpers/files/file-fields';
import { freshAssetLink } from '../../helpers/assets/asset-files';
import { pathSegmentText } from '../../../shared/items/validation';
import { apiGenerationOf } from '../../transport/v2-service';
import { assetIdProperty, fileReferenceProperties } from '../common.descriptions';

export const description = updateDisplayOptions({ show: { resource: ['file'], operation: ['getOutputUrl'] } }, [
	...fileReferenceProperties,
	assetIdProperty,
]);

/** Why a tool call cannot use this operation (it is hidden on the tool type, and refused). */
export const notAsTool =
	'Get Output URL names any file of the account, whichever job made it, and an agent may act only on the jobs its own workflow started: Get Status and Wait for Completion give the links of a job’s own outputs.';

/** The same on v2, where no tool reads a job by id: the Execute tool's answer carries the links. */
export const notAsToolOnV2 =
	'Get Output URL names any file of the account, whichever job made it, and an agent may act only on the jobs its own workflow started: on the v2 API the Execute tool answers the links of its own job’s outputs.';

/** GET /api/view: the signed download URL of a file (temporary; anyone holding it can download); on v2, the asset's fresh link. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	if (apiGenerationOf(this, itemIndex) === 'v2') {
		const assetId = pathSegmentText(this, itemIndex, assetIdProperty.displayName, this.getNodeParameter('assetId', itemIndex, ''));
		return [{ json: await freshAssetLink(this, assetId, itemIndex) }];
	}
	const ref = readFileReference(this, itemIndex);
	const url = await fileAddressFor(this, ref, { itemIndex, check: true });
	return [{ json: { filename: ref.filename, subfolder: ref.subfolder, type: ref.type, mime_type: ref.mime_type, url } }];
}
