/**
 * assets/: the v2 API's files. Inputs are uploaded as assets and a graph names them by reference;
 * outputs are assets with short-lived links. It may call transport/ and nodes/shared; the v2 job
 * helpers and the File operations call it.
 *
 * An asset's link and bytes: a fresh link when one is needed (links are short-lived), and the bytes
 * into n8n binary data, streamed.
 */
import type { IBinaryData, IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/** An asset as the v2 API describes it (an output is one, with its node and kind). */
export interface AssetRef {
	id: string;
	file_path?: string | null;
	name?: string;
	content_type?: string;
	size_bytes?: number;
	url?: string;
	url_expires_at?: string;
}

/** A fresh short-lived link of an asset (GET /api/v2/assets/{id}), checked to be about that asset. */
export async function freshAssetLink(context: IExecuteFunctions, assetId: string, itemIndex: number): Promise<IDataObject> {
	throw new NodeOperationError(context.getNode(), `freshAssetLink is not built yet (asset ${assetId})`, { itemIndex });
}

/**
 * The asset's bytes as n8n binary data, streamed, never buffered whole: a 302 is followed to its
 * signed URL without any credential; a self-hosted server's 200 is read directly; a cut download is
 * resumed with a Range request. The size is checked against the record's `size_bytes`.
 */
export async function assetToBinary(
	context: IExecuteFunctions,
	asset: AssetRef,
	itemIndex: number,
	_options: { stop?: AbortSignal } = {},
): Promise<IBinaryData> {
	throw new NodeOperationError(context.getNode(), `assetToBinary is not built yet (asset ${asset.id})`, { itemIndex });
}
