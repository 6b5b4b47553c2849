/**
 * Uploading to the v2 API: one binary property as an asset (POST /api/v2/assets, multipart, with a
 * single-use Idempotency-Key), the reference a graph carries where a file name would go, and
 * Execute's Input Images on v2.
 *
 * An upload costs nothing, but is never made twice silently: when its answer is lost (a time-out, a
 * connection cut after sending, a 5xx) it is sent once more with the SAME key. A new asset then means
 * the first never arrived; `422 idempotency_key_reuse` means it did, and its id is unknown: the
 * item fails saying so.
 */
import { randomUUID } from 'crypto';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { binaryToUpload } from '../files/uploads';
import { INPUT_IMAGES_FIELD, type PreparedWorkflow } from '../submit/prepare-workflow';
import { multipartBody } from '../../../shared/transport/multipart';
import { postAsset } from '../../transport/v2-api';
import { PICK_V1 } from '../../transport/v2-service';
import { checkedAsset, envelopeCodeOf, isUnknownOutcome } from './asset-answers';

/** The typed reference to an asset inside workflow JSON (the contract's AssetReference). */
export function assetReference(asset: { id: string; file_path?: string | null }): IDataObject {
	return { __type: 'core/ASSET', info: { id: asset.id, ...(asset.file_path ? { file_path: asset.file_path } : {}) } };
}

/** The contract's bounds of `expires_in`: a minute to seven days. */
export const EXPIRES_IN_MIN_SECONDS = 60;
export const EXPIRES_IN_MAX_SECONDS = 604_800;
/** The longest file name an upload is given (file systems' usual limit). */
const FILE_NAME_MAX_CHARS = 255;

/** What one upload takes: the binary property, the field that named it (for messages), its tags, and optionally a name and a retention. */
export interface AssetUpload {
	binaryPropertyName: string;
	field: string;
	tags: string[];
	/** The name to upload under (the binary data's own when absent). */
	fileName?: string;
	/** Seconds the asset is kept (60 to 604800), when the user set it. */
	expiresIn?: number;
}

/** Uploads the item's binary property as an asset with these tags; answers the asset record, checked. */
export async function uploadAsset(context: IExecuteFunctions, itemIndex: number, upload: AssetUpload): Promise<IDataObject> {
	const binary = binaryToUpload(context, itemIndex, upload.binaryPropertyName, upload.field);
	const extension = binary.fileExtension ? `.${binary.fileExtension}` : '';
	const fileName = checkedFileName(context, itemIndex, upload.fileName?.trim() || binary.fileName || `upload${extension || '.png'}`);
	checkExpiresIn(context, itemIndex, upload.expiresIn);
	const data = await context.helpers.getBinaryDataBuffer(itemIndex, upload.binaryPropertyName.trim());
	const contentType = binary.mimeType || 'application/octet-stream';
	const fields: Record<string, string | string[]> = { content_type: contentType, file_path: fileName, tags: upload.tags };
	if (upload.expiresIn !== undefined) fields.expires_in = String(upload.expiresIn);
	const form = multipartBody(fields, [{ name: 'file', data, fileName, contentType }]);
	const key = randomUUID();
	const action = `uploading "${fileName}" as an asset`;
	const answer = await sendOnceMore(
		context,
		itemIndex,
		{ fileName, key },
		async () => await postAsset(context, form, key, { itemIndex, action }),
	);
	return checkedAsset(context, itemIndex, answer, { what: `the upload of "${fileName}"`, sizeBytes: data.length, contentType });
}

/**
 * Sends the upload; when its outcome is unknown, once more with the same key. The server refusing
 * the key the second time means the first arrived: said in words, never a silent second upload.
 */
async function sendOnceMore(
	context: IExecuteFunctions,
	itemIndex: number,
	upload: { fileName: string; key: string },
	send: () => Promise<IDataObject>,
): Promise<IDataObject> {
	const settled = async () =>
		await send().then(
			(answer) => ({ answer }),
			(failure: unknown) => ({ failure }),
		);
	const first = await settled();
	if ('answer' in first) return first.answer;
	if (!isUnknownOutcome(first.failure)) throw first.failure;
	const second = await settled();
	if ('answer' in second) return second.answer;
	if (envelopeCodeOf(second.failure) !== 'idempotency_key_reuse') throw second.failure;
	throw new NodeOperationError(
		context.getNode(),
		`The upload of "${upload.fileName}" reached the server, but its answer was lost, so the new asset's id is unknown (Idempotency-Key ${upload.key})`,
		{
			itemIndex,
			description:
				'The upload was sent once more with the same key and the server said that key was used already: the first upload arrived. It was not uploaded a second time. Run the item again to upload it anew (the first copy is unused and expires with the account’s retention).',
		},
	);
}

/** The name an asset is uploaded under (its `file_path`): a file name or a relative path, never one that climbs out. */
function checkedFileName(context: IExecuteFunctions, itemIndex: number, name: string): string {
	const problem =
		name.length > FILE_NAME_MAX_CHARS
			? `is ${name.length} characters long; at most ${FILE_NAME_MAX_CHARS} are allowed`
			: /[\x00-\x1f\x7f\\]/.test(name)
				? 'contains a control character or a backslash'
				: name.startsWith('/') || name.split('/').some((part) => part === '..' || part === '')
					? 'is not a relative file name (no leading "/", no empty or ".." parts)'
					: undefined;
	if (!problem) return name;
	throw new NodeOperationError(context.getNode(), `File Name "${name.slice(0, 80)}" ${problem}`, {
		itemIndex,
		description: 'Give a plain file name such as photo.png (a folder before it, as in masks/photo.png, is allowed).',
	});
}

function checkExpiresIn(context: IExecuteFunctions, itemIndex: number, seconds: number | undefined): void {
	if (seconds === undefined) return;
	if (Number.isInteger(seconds) && seconds >= EXPIRES_IN_MIN_SECONDS && seconds <= EXPIRES_IN_MAX_SECONDS) return;
	throw new NodeOperationError(context.getNode(), `Keep For (Seconds) is ${seconds}, outside what the v2 API allows`, {
		itemIndex,
		description: `Enter a whole number of seconds from ${EXPIRES_IN_MIN_SECONDS} (a minute) to ${EXPIRES_IN_MAX_SECONDS} (seven days), or leave it empty for the account's default.`,
	});
}

/** Execute's Input Images on v2: each image uploaded as an asset, its Load Image node pointed at the reference. */
export async function uploadInputAssets(context: IExecuteFunctions, prepared: PreparedWorkflow, itemIndex: number): Promise<void> {
	for (const image of prepared.images) {
		const asset = await uploadAsset(context, itemIndex, {
			binaryPropertyName: image.binaryPropertyName,
			field: INPUT_IMAGES_FIELD,
			tags: ['input'],
		});
		prepared.graph[image.nodeId].inputs.image = assetReference(asset as { id: string; file_path?: string | null });
	}
}

/** The v1 fields of an upload that v2 has no place for, refused by name when set, before anything is sent. */
export function refuseFieldsV2Lacks(context: IExecuteFunctions, itemIndex: number, operation: string, setFields: string[]): void {
	if (setFields.length === 0) return;
	const names = setFields.map((field) => `"${field}"`).join(', ');
	throw new NodeOperationError(context.getNode(), `${operation} on v2 has no place for ${names}`, {
		itemIndex,
		description: `On v2 an upload is an asset named by its id, and a workflow refers to it by that id (its asset_reference): there is no overwrite, type, subfolder or original image. Clear these fields, or use a Host Cloud API credential (${PICK_V1}).`,
	});
}
