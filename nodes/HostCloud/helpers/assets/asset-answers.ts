/**
 * What the v2 API answers about assets, checked before it is used: an Asset record is about the
 * asset asked for (or, for an upload, about the bytes sent), with its size and type as the contract
 * types them; anything else is an error that says so, never data (DESIGN.md, "Answers are about
 * something"). And what a failed request says: whether its outcome is unknown, and its envelope code.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { MAX_ID_CHARS } from '../../../shared/items/path-segment';
import { isRecord } from '../../../shared/items/validation';
import { clipText, webAddress } from '../../../shared/transport/service-values';
import type { RunContext } from '../../../shared/transport/transport';

/** The Asset fields passed on (the contract's, each of its type); nothing else a server adds. */
const TEXT_FIELDS = ['hash', 'file_path', 'created_at', 'url_expires_at', 'expires_at', 'job_id'] as const;

export interface AssetExpectation {
	/** What the answer is to, for messages ("the upload of \"cat.png\"", "asset 9f8a…"). */
	what: string;
	/** The asset asked for: the answer's id must be this one. */
	id?: string;
	/** The bytes sent: the answer's size_bytes must be this. */
	sizeBytes?: number;
	/** The type sent: the answer's content_type must be this. */
	contentType?: string;
}

/** Why `answer` is not the Asset expected, or undefined when it is. */
function assetProblem(answer: unknown, expected: AssetExpectation): string | undefined {
	if (!isRecord(answer)) return 'it is not an asset record';
	const { id, size_bytes: size, content_type: type } = answer;
	if (typeof id !== 'string' || id === '' || id.length > MAX_ID_CHARS) return 'it has no asset id';
	if (expected.id !== undefined && id !== expected.id) return `it is about another asset (${clipText(id, 80)})`;
	if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) return 'it gives no size in bytes';
	if (expected.sizeBytes !== undefined && size !== expected.sizeBytes)
		return `it says ${size} bytes were stored where ${expected.sizeBytes} were sent`;
	if (typeof type !== 'string' || type === '') return 'it gives no content type';
	if (expected.contentType !== undefined && type.toLowerCase() !== expected.contentType.toLowerCase())
		return `it says the content type is "${clipText(type, 80)}" where "${expected.contentType}" was sent`;
	return undefined;
}

/** The answer as an Asset record (the contract's fields only), or an error naming what is wrong with it. */
export function checkedAsset(
	context: IExecuteFunctions | RunContext,
	itemIndex: number,
	answer: unknown,
	expected: AssetExpectation,
): IDataObject {
	const problem = assetProblem(answer, expected);
	if (problem) {
		throw new NodeOperationError(context.getNode(), `The v2 API's answer to ${expected.what} is not the asset expected: ${problem}`, {
			itemIndex,
			description: 'This is a fault of the server (or a proxy in front of it); nothing was taken from the answer. Try again in a moment.',
		});
	}
	const record = answer as Record<string, unknown>;
	const asset: IDataObject = {
		id: record.id as string,
		size_bytes: record.size_bytes as number,
		content_type: clipText(record.content_type as string, 256),
	};
	for (const field of TEXT_FIELDS) {
		const value = record[field];
		if (typeof value === 'string') asset[field] = clipText(value, MAX_ID_CHARS);
		else if (value === null) asset[field] = null;
	}
	// A link is passed on only as an absolute http(s) address, written anew (a page may show it).
	const url = webAddress(record.url);
	if (url) asset.url = url;
	if (typeof record.created_new === 'boolean') asset.created_new = record.created_new;
	return asset;
}

/** The context a failed request's error carries (n8n's errors keep it as a plain object). */
function contextOf(error: unknown): Record<string, unknown> {
	const context = (error as { context?: unknown } | null)?.context;
	return isRecord(context) ? context : {};
}

/** A POST whose answer never came, or came as a 5xx: the server may have carried it out. */
export function isUnknownOutcome(error: unknown): boolean {
	if (contextOf(error).mayHaveArrived === true) return true;
	const status = Number((error as { httpCode?: unknown } | null)?.httpCode);
	return Number.isInteger(status) && status >= 500;
}

/**
 * The v2 envelope's `error.code` of a failed request (`error_code` in the error's context), or
 * undefined. Until every error carries it, a 422 that speaks of the Idempotency-Key is that refusal.
 */
export function envelopeCodeOf(error: unknown): string | undefined {
	const code = contextOf(error).error_code;
	if (typeof code === 'string') return code;
	const failure = error as { httpCode?: unknown; message?: unknown } | null;
	if (String(failure?.httpCode) === '422' && /idempotency[-_ ]key/i.test(String(failure?.message ?? ''))) return 'idempotency_key_reuse';
	return undefined;
}
