/**
 * Files in and out of n8n binary data. Result files live behind signed storage URLs that must be
 * fetched WITHOUT the service's credentials (the storage host rejects them, and they must not
 * leak there), so downloads go out as the transport's storage requests; the body is streamed into
 * n8n's binary data service, never held whole, and a body that falls silent ends the download.
 */
import type { IBinaryData, IDataObject, IExecuteFunctions, IN8nHttpFullResponse } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { extensionFor, mimeTypeForExtension, sniffMimeType, SNIFF_BYTES } from './file-types';
import { isRedirectLoop, networkFailureReason } from '../transport/network-failure';
import { pauseBeforeRetry, RETRY_DELAYS_MS } from '../transport/retry';
import { serviceWaitTooLongError, slowDownAsked, type SlowDownAnswer, waitForService } from '../transport/slow-down';
import { discardBody, isAsyncIterable, peek, readableClassOf, readableFrom, withIdleTimeout } from './streams';
import { abandon, type RunContext, storageRequest } from '../transport/transport';
import { retryFits, storageIdleMs, storageReadMs, storageSlowDownPlan } from '../transport/request-limits';
import { notAWebAddress } from '../transport/service-values';
import { ownValue } from '../items/validation';

export interface DownloadOptions {
	itemIndex: number;
	/** Name to give the file when the URL has none (an extension is added from the type). */
	fallbackName: string;
	/** Name to give the file whatever the URL says (the cloud's file references name their files). */
	fileName?: string;
	/** What is downloaded, for messages ("the result of task 123"). */
	what: string;
	/** Who serves the file, for messages (default "the storage host"). */
	source?: string;
	/** Try again, after a pause, when the transfer broke off or the host answered 5xx (the file is still there). */
	retry?: boolean;
}

/** Failures of one attempt that another attempt may not meet: a cut connection, a 5xx. */
const transientFailures = new WeakSet<object>();

/** Failures that were a storage host's "slow down" (429, 503 with Retry-After): what it asked to wait. */
const slowDownAnswers = new WeakMap<object, SlowDownAnswer>();

function transient<T extends object>(error: T): T {
	transientFailures.add(error);
	return error;
}

const GENERIC_TYPES = new Set(['', 'application/octet-stream', 'binary/octet-stream', 'application/binary']);

/** The last path segment of a URL, decoded, or undefined. */
export function fileNameFromUrl(url: string): string | undefined {
	try {
		const segment = new URL(url).pathname.split('/').filter(Boolean).pop();
		const name = segment ? decodeURIComponent(segment) : undefined;
		return name && /[^.\s]/.test(name) ? name.replace(/[\\/:*?"<>|\x00-\x1f]/g, '_') : undefined;
	} catch {
		return undefined;
	}
}

/** A response header's first value as text ('' when absent): Node gives some headers as lists. */
export function header(headers: Record<string, unknown> | undefined, name: string): string {
	const value = headers?.[name] ?? headers?.[name.toLowerCase()];
	return String(Array.isArray(value) ? value[0] : (value ?? ''));
}

/**
 * Downloads `url` (no credentials sent) into n8n binary data, with a file name and MIME type.
 * With `retry`, a transfer that broke off (nothing of it kept) is fetched again from the start.
 */
export async function downloadToBinary(context: RunContext, url: string, options: DownloadOptions): Promise<IBinaryData> {
	const refused = notAWebAddress(url);
	if (refused) {
		throw new NodeOperationError(context.getNode(), `Could not download ${options.what}: ${refused}`, {
			itemIndex: options.itemIndex,
			description: 'Files are fetched only from http: and https: addresses. Check where the address came from.',
		});
	}
	return await retryingDownload(context, options, async () => await downloadOnce(context, url, options));
}

/**
 * Runs `attempt` (one whole download into binary data) again after a pause, when `options.retry`
 * is set and it broke off or met a 5xx: nothing of a failed attempt is kept, so each starts afresh.
 * A storage host that asked to slow down (429, 503 with Retry-After) is waited out as it asked,
 * within the read limit, as the transport does; such a wait is no failed try.
 */
export async function retryingDownload(
	context: RunContext,
	options: Pick<DownloadOptions, 'retry' | 'itemIndex' | 'what'>,
	attempt: () => Promise<IBinaryData>,
): Promise<IBinaryData> {
	const attempts = options.retry ? RETRY_DELAYS_MS.length + 1 : 1;
	const signal = 'getExecutionCancelSignal' in context ? context.getExecutionCancelSignal() : undefined;
	const startedAt = Date.now();
	// Failed tries and the host's "slow down" answers are counted apart: a wait it asked for is no failed try.
	let failed = 0;
	let slowDowns = 0;
	for (;;) {
		let failure: unknown;
		try {
			return await attempt();
		} catch (error) {
			failure = error;
		}
		if (signal?.aborted) throw failure;
		const slowDown = slowDownAnswers.get(failure as object);
		if (slowDown) {
			const plan = storageSlowDownPlan(slowDown.askedMs, ++slowDowns, startedAt);
			if (plan && 'tooLong' in plan)
				throw serviceWaitTooLongError(context, slowDown.statusCode, plan.tooLong, {
					...options,
					method: 'GET',
					action: `downloading ${options.what}`,
				});
			if (plan) {
				await waitForService(context, options.itemIndex, plan.waitMs, signal);
				continue;
			}
		}
		failed++;
		if (failed >= attempts || !transientFailures.has(failure as object)) throw failure;
		if (!retryFits(startedAt, failed)) throw failure;
		await pauseBeforeRetry(failed, signal);
	}
}

async function downloadOnce(context: RunContext, url: string, options: DownloadOptions): Promise<IBinaryData> {
	let response: IN8nHttpFullResponse;
	const giveUp = new AbortController();
	try {
		// The file as it is stored: n8n's client unpacks a compressed body it was offered without
		// noticing one cut short, while an uncompressed body's length is checked against the answer's.
		const headers = { 'Accept-Encoding': 'identity' };
		response = await storageRequest(context, { method: 'GET', url, headers, followRedirects: true, stop: giveUp.signal });
	} catch (error) {
		// A redirect loop is the host's answer, not a network failure: trying again would only loop again.
		if (isRedirectLoop(error)) {
			throw new NodeOperationError(
				context.getNode(),
				`Could not download ${options.what}: ${options.source ?? 'the storage host'} redirected the download too many times (a redirect loop), so nothing was downloaded`,
				{ itemIndex: options.itemIndex, description: 'The file address leads back to itself. Ask the service for the file again later.' },
			);
		}
		throw transient(
			new NodeOperationError(context.getNode(), `Could not download ${options.what}: ${transferProblem(error, options)}`, {
				itemIndex: options.itemIndex,
				description: 'The file link could not be reached. Try again; the link stays valid for a while after the task finished.',
			}),
		);
	}
	return await responseToBinary(context, url, { ...response, abandon: () => abandon(response.body, giveUp) }, options);
}

/**
 * A response whose body is the file into n8n binary data, streamed: an error status or a body that
 * breaks off fails with words, and nothing partial is kept. `url` names the file when nothing else does.
 */
export async function responseToBinary(
	context: RunContext,
	url: string,
	response: IN8nHttpFullResponse & { abandon?: () => void },
	options: DownloadOptions,
): Promise<IBinaryData> {
	// Stops reading the answer and closes its connection (destroying its stream alone cannot while a read waits).
	const stopReading = response.abandon ?? (() => discardBody(response.body));
	if (response.statusCode >= 400) {
		stopReading();
		const expired = response.statusCode === 403 || response.statusCode === 404;
		const failure = new NodeOperationError(context.getNode(), `Could not download ${options.what} (HTTP ${response.statusCode})`, {
			itemIndex: options.itemIndex,
			description: expired
				? 'The storage link was refused: it may have expired. Run the status operation again to get fresh links.'
				: 'The storage host did not serve the file. Try again later.',
		});
		const slowDown = slowDownAsked(response.statusCode, response.headers as IDataObject, 'GET');
		if (slowDown) slowDownAnswers.set(failure, slowDown);
		throw response.statusCode >= 500 ? transient(failure) : failure;
	}
	const partly = notTheWholeFile(response.statusCode);
	if (partly) {
		stopReading();
		throw new NodeOperationError(context.getNode(), `Could not download ${options.what} (HTTP ${response.statusCode}): ${partly}`, {
			itemIndex: options.itemIndex,
			description:
				'Nothing was kept. Run the status operation again to get fresh links; if it persists, the storage host is misconfigured.',
		});
	}
	const body = response.body;
	const Readable = readableClassOf(body);
	if (!Readable || !isAsyncIterable(body)) {
		throw new NodeOperationError(context.getNode(), `Could not download ${options.what}: the response was not a stream`, {
			itemIndex: options.itemIndex,
		});
	}
	const transfer = { brokeOff: false };
	const signal = 'getExecutionCancelSignal' in context ? context.getExecutionCancelSignal() : undefined;
	try {
		// Each part of the file within the idle limit, the file at a least pace and size: a host that
		// stops sending, trickles or never ends ends the download.
		const arriving = boundedTransfer(withIdleTimeout(body, storageIdleMs(), signal), storageReadMs());
		return await storeBody(context, url, response, Readable, watchTransfer(arriving, transfer), options);
	} catch (error) {
		stopReading();
		// The whole file arrived and n8n would not keep it (binary data in the database refuses files
		// over its size limit): another download would meet the same refusal.
		if (!transfer.brokeOff) throw notStored(context, error, options);
		// The body broke off (closed early, or silent past the timeout): say so, keep nothing partial.
		throw transient(
			new NodeOperationError(
				context.getNode(),
				`The download of ${options.what} broke off before the whole file arrived: ${transferProblem(error, options)}`,
				{ itemIndex: options.itemIndex, description: 'Nothing partial was kept. Try again; the link stays valid for a while.' },
			),
		);
	}
}

/**
 * Why a success answer to a plain GET is not the whole file, or undefined when it is (200, or 203
 * from a proxy): the node asks no range and no condition, and follows every redirect that names an address.
 */
function notTheWholeFile(statusCode: number): string | undefined {
	if (statusCode === 200 || statusCode === 203) return undefined;
	if (statusCode === 206) return 'the host sent only a part of the file';
	if (statusCode >= 300) return 'the host answered a redirect with no address to follow, not the file';
	return 'the host answered without the file';
}

/** The least average pace of a download once its first read limit has passed (a trickle is no transfer). */
export const MIN_DOWNLOAD_BYTES_PER_SECOND = 16 * 1024;
/** The largest file the package downloads: a host that never ends its answer does not fill n8n's disk. */
export const MAX_DOWNLOAD_BYTES = 8 * 1024 ** 3;

/** Thrown when a download is slower than the least pace, or larger than the largest file. */
class TransferBoundError extends Error {}

/** `body` as it arrives, ended when it falls below the least pace after `graceMs`, or passes the largest size. */
export async function* boundedTransfer(body: AsyncIterable<Buffer>, graceMs: number): AsyncGenerator<Buffer> {
	const startedAt = Date.now();
	let bytes = 0;
	for await (const chunk of body) {
		bytes += chunk.length;
		if (bytes > MAX_DOWNLOAD_BYTES) throw new TransferBoundError(`the file is larger than ${MAX_DOWNLOAD_BYTES / 1024 ** 3} GiB`);
		const seconds = (Date.now() - startedAt) / 1000;
		if (seconds * 1000 > graceMs && bytes / seconds < MIN_DOWNLOAD_BYTES_PER_SECOND)
			throw new TransferBoundError(`the storage host sent it too slowly (${Math.round(bytes / seconds)} bytes a second)`);
		yield chunk;
	}
}

/**
 * Reads `body` on, noting in `transfer` whether reading it failed (the connection, not n8n's
 * storage): the flag is up while a chunk is awaited, so a read that throws leaves it up.
 */
async function* watchTransfer(body: AsyncIterable<Buffer>, transfer: { brokeOff: boolean }): AsyncGenerator<Buffer> {
	const chunks = body[Symbol.asyncIterator]();
	let ended = false;
	try {
		for (;;) {
			transfer.brokeOff = true;
			const next = await chunks.next();
			transfer.brokeOff = false;
			if (next.done) {
				ended = true;
				return;
			}
			yield next.value;
		}
	} finally {
		// Given up part-way (n8n stopped storing it): close the response rather than leave it open.
		if (!ended && !transfer.brokeOff) await chunks.return?.();
	}
}

/** n8n's binary data refused or failed to keep a whole download: its own words, and what to do. */
function notStored(context: RunContext, error: unknown, options: DownloadOptions): NodeOperationError {
	const reason = (error as { message?: string }).message ?? String(error);
	return new NodeOperationError(context.getNode(), `${capitalised(options.what)} arrived whole but n8n could not store it: ${reason}`, {
		itemIndex: options.itemIndex,
		description:
			'The download itself worked. With binary data in the database (n8n’s queue mode), files over N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE are refused: store binary data in S3, or turn the download off and pass the file URLs on.',
	});
}

function capitalised(text: string): string {
	return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A failed transfer in words (never a raw code: see network-failure.ts). */
function transferProblem(cause: unknown, options: DownloadOptions): string {
	if (cause instanceof TransferBoundError) return cause.message;
	return networkFailureReason(cause, options.source ?? 'the storage host', storageIdleMs());
}

/** The body into n8n's binary data, named and typed from its first bytes, the URL and the headers. */
async function storeBody(
	context: RunContext,
	url: string,
	response: IN8nHttpFullResponse,
	Readable: NonNullable<ReturnType<typeof readableClassOf>>,
	body: AsyncIterable<Buffer>,
	options: DownloadOptions,
): Promise<IBinaryData> {
	const { head, rest } = await peek(body, SNIFF_BYTES);
	const urlName = fileNameFromUrl(url);
	const declared = header(response.headers, 'content-type').split(';')[0]!.trim().toLowerCase();
	const fromName = urlName?.includes('.') ? mimeTypeForExtension(urlName.split('.').pop()!) : undefined;
	const mimeType = sniffMimeType(head) ?? (GENERIC_TYPES.has(declared) ? undefined : declared) ?? fromName ?? 'application/octet-stream';
	const extension = extensionFor(mimeType);
	let fileName = options.fileName ?? urlName ?? options.fallbackName;
	if (extension && !/\.[a-z0-9]{2,5}$/i.test(fileName)) fileName = `${fileName}.${extension}`;
	return await context.helpers.prepareBinaryData(readableFrom(Readable, rest), fileName, mimeType);
}

/** The input item's binary field `name`, its own only: `constructor` or `toString` is a field it does not have. */
export function inputBinary(context: IExecuteFunctions, itemIndex: number, name: string): IBinaryData | undefined {
	const binary = context.getInputData()[itemIndex]?.binary;
	return binary ? ownValue(binary, name) : undefined;
}

/** The bytes of an input item's binary property as Base64, or a message saying what is missing. */
export async function binaryPropertyAsBase64(
	context: IExecuteFunctions,
	itemIndex: number,
	propertyName: string,
): Promise<{ base64: string; bytes: Buffer; mimeType?: string } | { problem: string }> {
	const item = context.getInputData()[itemIndex];
	const binary = inputBinary(context, itemIndex, propertyName);
	if (!binary) {
		const available = Object.keys(item?.binary ?? {});
		return {
			problem: `names the binary field "${propertyName}", which the input item does not have${available.length ? ` (it has: ${available.join(', ')})` : ' (it has no binary data)'}`,
		};
	}
	const bytes = await context.helpers.getBinaryDataBuffer(itemIndex, propertyName);
	return { base64: bytes.toString('base64'), bytes, mimeType: binary.mimeType };
}
