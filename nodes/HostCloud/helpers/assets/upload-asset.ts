/**
 * Uploading to the v2 API: one binary property as an asset (POST /api/v2/assets, multipart, with a
 * single-use Idempotency-Key), the reference a graph carries where a file name would go, and
 * Execute's Input Images on v2.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { PreparedWorkflow } from '../submit/prepare-workflow';

/** The typed reference to an asset inside workflow JSON (the contract's AssetReference). */
export function assetReference(asset: { id: string; file_path?: string | null }): IDataObject {
	return { __type: 'core/ASSET', info: { id: asset.id, ...(asset.file_path ? { file_path: asset.file_path } : {}) } };
}

/** Uploads the item's binary property as an asset with these tags; answers the asset record, checked. */
export async function uploadAsset(
	context: IExecuteFunctions,
	itemIndex: number,
	upload: { binaryPropertyName: string; field: string; tags: string[] },
): Promise<IDataObject> {
	throw new NodeOperationError(context.getNode(), `uploadAsset is not built yet (${upload.field})`, { itemIndex });
}

/** Execute's Input Images on v2: each image uploaded as an asset, its Load Image node pointed at the reference. */
export async function uploadInputAssets(context: IExecuteFunctions, prepared: PreparedWorkflow, itemIndex: number): Promise<void> {
	if (prepared.images.length === 0) return;
	throw new NodeOperationError(context.getNode(), 'Input Images on v2 are not built yet', { itemIndex });
}
