/**
 * files/: output files, uploads and the File operations' fields. It may call transport/,
 * nodes/shared and the graph model (graph/, but node-definitions.ts); no other helper folder:
 * job-reports/ calls this file for the files a job's outputs name, submit/ calls uploads.ts.
 *
 * Output files of a job: finding the file references in `executed` outputs (whatever key a node
 * uses: images, video, videos, gifs, audio...), and each file's address and bytes.
 * - On the cloud, GET /api/view answers a 302 whose Location (a signed storage URL) is read, never
 *   followed; that URL is fetched into n8n binary data as a stream without any credential: the
 *   storage host must never see the API key.
 * - A self-hosted server answers the file itself at GET /api/view: that link is the address, and
 *   the download is streamed from the server with the credential (its reverse proxy's headers).
 */
import type { IBinaryData, IDataObject, IN8nHttpFullResponse } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { downloadToBinary, responseToBinary, retryingDownload } from '../../../shared/binary/binary';
import { mimeTypeForExtension } from '../../../shared/binary/file-types';
import type { RunContext } from '../../../shared/transport/transport';
import { hostCloudServer } from '../../transport/cloud-service';
import { readViewFile, readViewLocation, viewAddress } from '../../transport/cloud-api';
import { createLimiter } from '../../../shared/items/concurrent-items';
import { compareNodeIds } from '../graph/workflow-graph';
import { isRecord, ownValue, setOwn } from '../../../shared/items/validation';
import { clipText, webAddress } from '../../../shared/transport/service-values';

export type FileKind = 'image' | 'video' | 'audio' | 'file';

/** One output file, with where it came from. */
export interface OutputFileRef {
	filename: string;
	/** "" when the service left it out. */
	subfolder: string;
	/** "output" when the service left it out. */
	type: string;
	node_id: string;
	/** The key of the node's output the reference was under (images, video, gifs, audio...). */
	output_key: string;
	kind: FileKind;
	mime_type: string;
	/** Extra fields of the reference (format, frame_rate...), kept as the service sent them. */
	[extra: string]: unknown;
}

const KIND_BY_KEY: Record<string, FileKind> = {
	images: 'image',
	image: 'image',
	gifs: 'image',
	video: 'video',
	videos: 'video',
	audio: 'audio',
	audios: 'audio',
};

/** MIME type from the file name's extension (application/octet-stream when unknown). */
export function mimeTypeFor(filename: string): string {
	const extension = /\.([a-z0-9]+)$/i.exec(filename)?.[1] ?? '';
	return (extension && mimeTypeForExtension(extension)) || 'application/octet-stream';
}

function kindOf(key: string, mimeType: string): FileKind {
	const major = mimeType.split('/')[0];
	if (major === 'image' || major === 'video' || major === 'audio') return major;
	return ownValue(KIND_BY_KEY, key) ?? 'file';
}

/** The longest name, subfolder or type a file reference may have: no file is named by a text longer than this. */
const NAME_MAX_CHARS = 1024;
/** A further field of a reference (format, frame_rate…) is kept when its JSON is this small. */
const EXTRA_FIELD_MAX_CHARS = 1024;

const shortText = (value: unknown): boolean => typeof value !== 'string' || value.length <= NAME_MAX_CHARS;

/** An element that names a file: an object with a non-empty string filename, none of its names longer than a name. */
function isFileReference(value: unknown): value is Record<string, unknown> & { filename: string } {
	return (
		isRecord(value) &&
		typeof value.filename === 'string' &&
		value.filename !== '' &&
		[value.filename, value.subfolder, value.type].every(shortText)
	);
}

/** The further fields of a reference that are small enough to pass on (a service's text never floods the item). */
function smallFields(element: Record<string, unknown>): Record<string, unknown> {
	return Object.fromEntries(Object.entries(element).filter(([, value]) => (JSON.stringify(value) ?? '').length <= EXTRA_FIELD_MAX_CHARS));
}

/**
 * Every file reference in the outputs of a job (node id → the `output` of its `executed` message),
 * nodes in id order, each file once.
 */
export function collectOutputFiles(outputs: Record<string, unknown>): OutputFileRef[] {
	const files: OutputFileRef[] = [];
	const seen = new Set<string>();
	for (const nodeId of Object.keys(outputs).sort(compareNodeIds)) {
		const output = ownValue(outputs, nodeId);
		if (!isRecord(output)) continue;
		for (const [key, value] of Object.entries(output)) {
			if (!Array.isArray(value)) continue;
			for (const element of value) {
				if (!isFileReference(element)) continue;
				const subfolder = typeof element.subfolder === 'string' ? element.subfolder : '';
				const type = typeof element.type === 'string' && element.type !== '' ? element.type : 'output';
				const identity = JSON.stringify([type, subfolder, element.filename]);
				if (seen.has(identity)) continue;
				seen.add(identity);
				const mimeType = mimeTypeFor(element.filename);
				files.push({
					...smallFields(element),
					filename: element.filename,
					subfolder,
					type,
					node_id: nodeId,
					output_key: clipText(key, 256),
					kind: kindOf(key, mimeType),
					mime_type: mimeType,
				});
			}
		}
	}
	return files;
}

/** Merges a node's `executed` output into what was collected for it (a node may report more than once). */
export function mergeNodeOutput(previous: IDataObject | undefined, output: IDataObject): IDataObject {
	if (!previous) return { ...output };
	const merged: IDataObject = { ...previous };
	for (const [key, value] of Object.entries(output)) {
		const before = ownValue(merged, key);
		setOwn(merged, key, Array.isArray(before) && Array.isArray(value) ? [...before, ...value] : value);
	}
	return merged;
}

export interface FileContext {
	itemIndex: number;
	/** The job the file belongs to, for messages. */
	promptId?: string;
}

function aboutFile(ref: Pick<OutputFileRef, 'filename'>, where: FileContext): string {
	return `output file "${ref.filename}"${where.promptId ? ` of job ${where.promptId}` : ''}`;
}

function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
	const value = headers[name] ?? headers[name.toLowerCase()];
	return Array.isArray(value) ? value[0] : value;
}

/**
 * At most this many file lookups and downloads at once in one node run, however many jobs and
 * files it has: a job with 1,500 outputs must not open 1,500 requests together.
 */
export const FILE_REQUESTS_AT_ONCE = 6;

type Limiter = ReturnType<typeof createLimiter>;

/** One limiter per node run (n8n gives each run its own context object), shared by v1 files and v2 assets. */
const limiters = new WeakMap<object, Limiter>();

export function fileLimiter(context: RunContext): Limiter {
	let limiter = limiters.get(context);
	if (!limiter) limiters.set(context, (limiter = createLimiter(FILE_REQUESTS_AT_ONCE)));
	return limiter;
}

/** GET /api/view answers 302: the signed storage URL is its Location, which is not followed here. */
async function signedUrlFor(
	context: RunContext,
	ref: Pick<OutputFileRef, 'filename' | 'subfolder' | 'type'>,
	where: FileContext,
): Promise<string> {
	const response = await fileLimiter(context)(
		async () =>
			await readViewLocation(context, ref, {
				itemIndex: where.itemIndex,
				action: `getting the address of ${aboutFile(ref, where)}`,
			}),
	);
	const location = headerValue(response.headers, 'location');
	const redirected = response.statusCode >= 300 && response.statusCode < 400;
	// Passed on as an absolute http(s) address, written anew: a Form page or an e-mail may put it in HTML.
	const address = webAddress(location);
	if (redirected && address) return address;
	if (redirected && location) {
		throw new NodeOperationError(
			context.getNode(),
			`The service answered a redirect for ${aboutFile(ref, where)} whose address is not an absolute http(s) web address, so it is not passed on`,
			{
				itemIndex: where.itemIndex,
				description: 'This is a fault of the service: only http: and https: addresses are passed on. Try again in a moment.',
			},
		);
	}
	const what = redirected
		? `a redirect (HTTP ${response.statusCode}) without a Location header`
		: `HTTP ${response.statusCode} instead of a redirect to the file`;
	throw new NodeOperationError(
		context.getNode(),
		`The service answered ${what} for ${aboutFile(ref, where)}, so it has no download address`,
		{
			itemIndex: where.itemIndex,
			description: 'This is a problem on the service side. Try again in a moment; if it persists, the file may no longer exist.',
		},
	);
}

/**
 * A file's address: on the cloud its signed storage URL (temporary; anyone holding it can
 * download), on a self-hosted server its /api/view link. `check` asks a self-hosted server
 * whether the file is there (HEAD), where nothing else would have asked it.
 */
export async function fileAddressFor(
	context: RunContext,
	ref: Pick<OutputFileRef, 'filename' | 'subfolder' | 'type'>,
	where: FileContext & { check?: boolean },
): Promise<string> {
	const server = await hostCloudServer(context, where.itemIndex);
	if (server.kind === 'cloud') return await signedUrlFor(context, ref, where);
	if (where.check) {
		const action = `looking up ${aboutFile(ref, where)}`;
		await fileLimiter(context)(async () => await readViewFile(context, ref, { itemIndex: where.itemIndex, action, check: true }));
	}
	return viewAddress(server, ref);
}

/**
 * Fetches a file into binary data, streamed, named after the file reference. From the cloud's
 * signed URL no credential goes with it: the URL carries its own signature and the storage host
 * refuses (and counts) requests with the API key. From a self-hosted server the file comes from
 * /api/view itself, with the credential's proxy headers, and never a redirect.
 */
export async function downloadOutputFile(
	context: RunContext,
	url: string,
	ref: Pick<OutputFileRef, 'filename' | 'subfolder' | 'type'>,
	where: FileContext,
): Promise<IBinaryData> {
	const server = await hostCloudServer(context, where.itemIndex);
	const options = { itemIndex: where.itemIndex, fileName: ref.filename, fallbackName: ref.filename, what: aboutFile(ref, where) };
	// The job is paid for and the file is still there: a transfer cut short is fetched again.
	const retried = { ...options, retry: true };
	if (server.kind === 'cloud') return await fileLimiter(context)(async () => await downloadToBinary(context, url, retried));
	const action = `downloading ${aboutFile(ref, where)}`;
	const attempt = async () => {
		const response = await readViewFile(context, ref, { itemIndex: where.itemIndex, action });
		return await responseToBinary(
			context,
			url,
			{ ...(response as IN8nHttpFullResponse), abandon: response.abandon },
			{ ...retried, source: 'your server' },
		);
	};
	return await fileLimiter(context)(async () => await retryingDownload(context, retried, attempt));
}
