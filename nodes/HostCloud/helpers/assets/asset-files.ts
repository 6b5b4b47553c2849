/**
 * assets/: the v2 API's files. Inputs are uploaded as assets and a graph names them by reference;
 * outputs are assets with short-lived links. It may call transport/ and nodes/shared; the v2 job
 * helpers and the File operations call it.
 *
 * An asset's link and bytes: a fresh link when one is needed (links are short-lived), and the bytes
 * into n8n binary data, streamed. The bytes come from GET /api/v2/assets/{id}/content: a self-hosted
 * server answers them itself (200, or 206 to a Range), the cloud and deployments answer a 302 to a
 * signed storage URL, which is fetched as a storage request, with no credential: the storage host
 * never sees the key. A record's own `url`, when it is such a signed link (on another host than the
 * API) that has not expired, is fetched at once, without the /content round trip; refused, the bytes
 * come through /content. A download cut short is resumed where it stopped (`Range: bytes=<got>-`,
 * through /content: a fresh link), and what arrived in all must be the record's `size_bytes`.
 */
import type { IBinaryData, IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { boundedTransfer, header } from '../../../shared/binary/binary';
import { extensionFor } from '../../../shared/binary/file-types';
import { isAsyncIterable, readableClassOf, readableFrom, withIdleTimeout } from '../../../shared/binary/streams';
import { networkFailureReason } from '../../../shared/transport/network-failure';
import { retryFits, storageIdleMs, storageReadMs } from '../../../shared/transport/request-limits';
import { pauseBeforeRetry, RETRY_DELAYS_MS } from '../../../shared/transport/retry';
import { abandon, type RunContext, storageRequest } from '../../../shared/transport/transport';
import { clipText, webAddress } from '../../../shared/transport/service-values';
import { readAsset, readAssetContent } from '../../transport/v2-api';
import { hostCloudV2Server } from '../../transport/v2-service';
import { fileLimiter } from '../files/output-files';
import { checkedAsset } from './asset-answers';

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
export async function freshAssetLink(context: IExecuteFunctions | RunContext, assetId: string, itemIndex: number): Promise<IDataObject> {
	const answer = await readAsset(context, assetId, { itemIndex });
	const asset = checkedAsset(context, itemIndex, answer, { what: `the lookup of asset ${assetId}`, id: assetId });
	if (typeof asset.url === 'string') return asset;
	throw new NodeOperationError(context.getNode(), `The v2 API gave no link (url) for asset ${assetId}`, {
		itemIndex,
		description: 'An asset record carries a fresh http(s) link to its bytes. This is a fault of the server: try again in a moment.',
	});
}

/** How many times a download cut short is resumed before the item fails. */
export const ASSET_RESUMES = RETRY_DELAYS_MS.length;

/** One download: the asset (its size known), where it is for, and what ends it. */
interface Download {
	context: RunContext;
	asset: AssetRef & { size_bytes: number };
	itemIndex: number;
	what: string;
	/** The caller's stop, and the execution's cancel signal. */
	stop?: AbortSignal;
	cancel?: AbortSignal;
}

/** One answer carrying bytes (or refusing them): from the v2 API itself, or from the storage host its 302 named. */
interface Part {
	statusCode: number;
	headers: Record<string, unknown>;
	body: unknown;
	/** Stops reading it and closes its connection. */
	stop: () => void;
	source: string;
}

/** A failure another request may not meet (a cut connection, a storage 5xx): the download is resumed. */
class PartFailed extends Error {}

/** What arrived so far, and the failure that ended the download (n8n's storage would wrap it). */
interface Progress {
	got: number;
	failure?: Error;
}

/**
 * The asset's bytes as n8n binary data, streamed, never buffered whole: a 302 is followed to its
 * signed URL without any credential; a self-hosted server's 200 is read directly; a cut download is
 * resumed with a Range request. The size is checked against the record's `size_bytes`.
 */
export async function assetToBinary(
	context: IExecuteFunctions | RunContext,
	asset: AssetRef,
	itemIndex: number,
	options: { stop?: AbortSignal } = {},
): Promise<IBinaryData> {
	// As many at once as v1's files, however many outputs a run has: 1,500 outputs do not open 1,500 requests.
	return await fileLimiter(context)(async () => await downloadAsset(context, asset, itemIndex, options.stop));
}

async function downloadAsset(
	context: IExecuteFunctions | RunContext,
	asset: AssetRef,
	itemIndex: number,
	stop?: AbortSignal,
): Promise<IBinaryData> {
	const sized =
		typeof asset.size_bytes === 'number' ? asset : ((await freshAssetLink(context, asset.id, itemIndex)) as unknown as AssetRef);
	const cancel = 'getExecutionCancelSignal' in context ? context.getExecutionCancelSignal() : undefined;
	const download: Download = {
		context,
		asset: sized as Download['asset'],
		itemIndex,
		what: `asset ${asset.id}`,
		stop,
		cancel,
	};
	const progress: Progress = { got: 0 };
	const first = await openFirstPart(download);
	const Readable = readableClassOf(first.body);
	if (!Readable) {
		first.stop();
		throw finalError(download, `${first.source} did not answer a stream of bytes`);
	}
	const { fileName, mimeType } = fileNameAndType({ ...sized, name: asset.name ?? sized.name });
	try {
		return await context.helpers.prepareBinaryData(readableFrom(Readable, assetBytes(download, first, progress)), fileName, mimeType);
	} catch (error) {
		if (progress.failure) throw progress.failure;
		const reason = (error as { message?: string }).message ?? String(error);
		throw finalError(download, `it arrived but n8n could not store it: ${reason}`);
	}
}

/** The bytes of every part in turn, resuming where a cut one stopped, until `size_bytes` have arrived. */
async function* assetBytes(download: Download, first: Part, progress: Progress): AsyncGenerator<Buffer> {
	let part: Part | undefined = first;
	let done = false;
	// Since the last byte arrived: attempts that bring nothing (a silent /content) end within the read limit.
	let stalledSince = Date.now();
	let gotBefore = progress.got;
	try {
		for (let resumes = 0; ; resumes++) {
			try {
				part ??= await openPart(download, progress.got);
				yield* partBytes(download, part, progress);
				if (progress.got === download.asset.size_bytes) return void (done = true);
				throw new PartFailed(`${part.source} ended the answer after ${progress.got} of ${download.asset.size_bytes} bytes`);
			} catch (error) {
				part?.stop();
				part = undefined;
				if (progress.got > gotBefore) [stalledSince, gotBefore] = [Date.now(), progress.got];
				const stalledTooLong = !retryFits(stalledSince, resumes + 1);
				const ends =
					!isResumable(error) || resumes >= ASSET_RESUMES || stalledTooLong || download.cancel?.aborted || download.stop?.aborted;
				if (ends) throw (progress.failure = inWords(download, error, progress, resumes));
				await pauseBeforeRetry(resumes + 1, download.cancel);
			}
		}
	} finally {
		// The reader stopped early (n8n gave up storing it): close the answer rather than leave it open.
		if (!done) part?.stop();
	}
}

/** The bytes of one part, past those it repeats (a 200 to a Range), never more than the asset's size. */
async function* partBytes(download: Download, part: Part, progress: Progress): AsyncGenerator<Buffer> {
	let skip = checkedPart(download, part, progress.got);
	if (!isAsyncIterable(part.body)) throw finalError(download, `${part.source} did not answer a stream of bytes`);
	const arriving = boundedTransfer(withIdleTimeout(part.body, storageIdleMs(), download.cancel), storageReadMs());
	for await (const whole of arriving) {
		const chunk = skip > 0 ? whole.subarray(Math.min(skip, whole.length)) : whole;
		skip -= whole.length - chunk.length;
		if (chunk.length === 0) continue;
		if (progress.got + chunk.length > download.asset.size_bytes)
			throw finalError(download, `${part.source} sent more than the ${download.asset.size_bytes} bytes its record (size_bytes) gives`);
		progress.got += chunk.length;
		yield chunk;
	}
}

/** A link about to expire is not worth a try: /content gives a fresh one. */
const LINK_MARGIN_MS = 10_000;

/**
 * The record's own link when it may be fetched as it is: http(s), on another host than the API (a
 * proxy-served link on the API's host is the /content route, which wants the credential), and valid
 * for a while yet.
 */
async function directLink(download: Download): Promise<string | undefined> {
	const { asset, context, itemIndex } = download;
	const address = webAddress(asset.url);
	const expires = Date.parse(String(asset.url_expires_at ?? ''));
	if (!address || !(expires > Date.now() + LINK_MARGIN_MS)) return undefined;
	const api = new URL((await hostCloudV2Server(context, itemIndex)).baseUrl).host;
	return new URL(address).host === api ? undefined : address;
}

/** The first part: from the record's signed link when it has a usable one (one request fewer), else through /content. */
async function openFirstPart(download: Download): Promise<Part> {
	const link = await directLink(download);
	if (link) {
		const part = await openStoragePart(download, link, undefined).catch(() => undefined);
		// Refused (expired early, another region), or not the file (a sign-in page): the API is asked for the bytes instead.
		if (part && (part.statusCode === 200 || part.statusCode === 206) && !notTheFile(download, part)) return part;
		part?.stop();
	}
	return await openPart(download, 0);
}

/** A signed storage URL's answer, fetched without credential (the storage host must never see the key). */
async function openStoragePart(download: Download, address: string, range: string | undefined): Promise<Part> {
	const giveUp = new AbortController();
	const stop = download.stop ? AbortSignal.any([giveUp.signal, download.stop]) : giveUp.signal;
	const headers = { 'Accept-Encoding': 'identity', ...(range ? { Range: range } : {}) };
	const response = await storageRequest(download.context, { method: 'GET', url: address, headers, followRedirects: true, stop });
	const part = { statusCode: response.statusCode, headers: response.headers ?? {}, body: response.body };
	return { ...part, stop: () => abandon(response.body, giveUp), source: 'the storage host' };
}

/** Opens the content from byte `from`: the API's own answer, or the signed URL its 302 names, fetched without credential. */
async function openPart(download: Download, from: number): Promise<Part> {
	const { context, asset, itemIndex } = download;
	const range = from > 0 ? `bytes=${from}-` : undefined;
	const action = `downloading ${download.what}`;
	const answer = await readAssetContent(context, asset.id, { itemIndex, action, range, stop: download.stop }).catch((error: unknown) => {
		throw String((error as { httpCode?: unknown }).httpCode) === '416' ? rangeRefused(download, from) : error;
	});
	if (answer.statusCode < 300 || answer.statusCode >= 400) return { ...answer, stop: () => answer.abandon?.(), source: 'the v2 API' };
	answer.abandon?.();
	const address = webAddress(header(answer.headers, 'location'));
	if (!address)
		throw finalError(download, `the v2 API answered a redirect (HTTP ${answer.statusCode}) without an http(s) address to fetch`);
	// The signed URL is its own permission: no credential goes with it.
	return await openStoragePart(download, address, range);
}

/** How many bytes of the part repeat what arrived already: 0 for a 206 that starts where asked, `from` for a whole file. */
function checkedPart(download: Download, part: Part, from: number): number {
	const { statusCode } = part;
	if (statusCode === 416) throw rangeRefused(download, from);
	if (statusCode >= 500 || statusCode === 429) throw new PartFailed(`${part.source} answered HTTP ${statusCode}`);
	if (statusCode === 403 || statusCode === 404)
		throw finalError(
			download,
			`${part.source} refused the link (HTTP ${statusCode}): it may have expired`,
			'Run the node again: it asks for a fresh link.',
		);
	if (statusCode === 200) {
		const wrong = notTheFile(download, part);
		if (wrong) throw finalError(download, `${part.source} answered ${wrong}`);
		return from;
	}
	if (statusCode !== 206) throw finalError(download, `${part.source} answered HTTP ${statusCode} instead of the file`);
	const raw = header(part.headers, 'content-range');
	const range = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(raw.trim());
	if (!range || Number(range[1]) !== from)
		throw finalError(
			download,
			`${part.source} sent a part (Content-Range "${clipText(raw, 80)}") that does not start at byte ${from}, where it was asked to`,
		);
	if (range[3] !== '*' && Number(range[3]) !== download.asset.size_bytes)
		throw finalError(
			download,
			`${part.source} says the file has ${range[3]} bytes, where its record (size_bytes) gives ${download.asset.size_bytes}`,
		);
	return 0;
}

/**
 * Why a whole answer (200) is not the asset's file, before any of its bytes is kept: a complete length
 * other than `size_bytes`, or an HTML page (an error or sign-in page) for a file that is not one.
 * Kept, its bytes would be "resumed" with the real file's tail: a file of the right size, but wrong.
 */
function notTheFile(download: Download, part: Part): string | undefined {
	if (part.statusCode !== 200) return undefined;
	const value = (name: string) => header(part.headers, name).trim().toLowerCase();
	const { size_bytes: size, content_type: type } = download.asset;
	// A packed answer's length is the packed one's.
	const packed = !['', 'identity'].includes(value('content-encoding'));
	const length = value('content-length');
	if (!packed && length !== '' && Number(length) !== size)
		return `a file of ${clipText(length, 20)} bytes (Content-Length), where its record (size_bytes) gives ${size}`;
	const html = (value: unknown) =>
		String(value ?? '')
			.trim()
			.toLowerCase()
			.startsWith('text/html');
	if (html(value('content-type')) && !html(type)) return 'an HTML page instead of the file';
	return undefined;
}

/** A cut connection, a silent or trickling answer, a storage 5xx: another request may go through. n8n's own errors are final. */
function isResumable(error: unknown): boolean {
	if (error instanceof PartFailed) return true;
	// By name: a stream's error may come from another realm than this module's Error.
	const name = (error as { name?: unknown } | null)?.name;
	return typeof error === 'object' && error !== null && name !== 'NodeApiError' && name !== 'NodeOperationError';
}

function inWords(download: Download, error: unknown, progress: Progress, resumes: number): Error {
	if (!isResumable(error)) return error instanceof Error ? error : new Error(String(error));
	const reason = error instanceof PartFailed ? error.message : networkFailureReason(error, 'the server', storageIdleMs());
	const tried = resumes > 0 ? `, after ${resumes} resumed request${resumes === 1 ? '' : 's'}` : '';
	return finalError(
		download,
		`the download broke off at ${progress.got} of ${download.asset.size_bytes} bytes${tried}: ${reason}`,
		'Nothing partial was kept. Try again in a moment; the asset stays available until it expires.',
	);
}

function rangeRefused(download: Download, from: number): NodeOperationError {
	return finalError(
		download,
		`the server cannot serve its bytes from byte ${from} on (HTTP 416, range not satisfiable): it holds fewer bytes than the ${download.asset.size_bytes} its record (size_bytes) gives`,
		'The stored file does not match its record. Nothing partial was kept; this is a fault of the server.',
	);
}

function finalError(download: Download, problem: string, description?: string): NodeOperationError {
	return new NodeOperationError(download.context.getNode(), `Could not download ${download.what}: ${problem}`, {
		itemIndex: download.itemIndex,
		description:
			description ?? 'Nothing partial was kept. This is a fault of the server (or a proxy in front of it): try again in a moment.',
	});
}

/** The file's name (the output's `name`, else the last part of `file_path`, else the asset id) and its type (`content_type`). */
function fileNameAndType(asset: AssetRef): { fileName: string; mimeType: string } {
	const mimeType = (asset.content_type ?? '').split(';')[0]!.trim().toLowerCase() || 'application/octet-stream';
	const named = asset.name || asset.file_path?.split('/').pop() || '';
	const clean = named.replace(/[\\/:*?"<>|\x00-\x1f]/g, '_').slice(0, 255);
	if (/[^.\s]/.test(clean)) return { fileName: clean, mimeType };
	const extension = extensionFor(mimeType);
	return { fileName: `asset-${asset.id}${extension ? `.${extension}` : ''}`, mimeType };
}
