/**
 * The signed-URL storage host: a separate origin that serves output files and accepts archive
 * uploads. Like the real one, it refuses any request that carries the service's credentials
 * (X-API-Key or Authorization) and counts such attempts, so tests can prove none were forwarded.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

import type { Counters, Faults, SimRequest } from './core';
import { sendText } from './core';

/** An object's bytes: held in memory, or produced on demand (for very large synthetic files). */
export type StoredBody = Buffer | { size: number; stream: () => Readable };

export interface StoredObject {
	key: string;
	contentType: string;
	body: StoredBody;
}

export interface Upload {
	key: string;
	contentType: string;
	bytes: Buffer;
	at: number;
}

/** Result URLs of media tasks live long, like the real service's (a day). */
export const RESULT_URL_TTL_MS = 24 * 60 * 60 * 1000;

export class SignedStorage {
	private objects = new Map<string, StoredObject>();
	/** Objects written through signed PUT URLs (registry archives), newest last. */
	readonly uploads: Upload[] = [];
	/** Keys a PUT has been tried on: the chaos upload faults strike a signed upload URL's first try only. */
	private readonly triedUploads = new Set<string>();
	/** How many downloads of each key the chaos faults cut short: a client that gives up must have met them on every try. */
	readonly cutDownloads = new Map<string, number>();
	private readonly secret = 'sim-storage-signing-secret';

	constructor(
		private readonly getOrigin: () => string,
		private readonly faults: Faults,
		private readonly counters: Counters,
		private readonly ttlMs: number,
	) {}

	put(key: string, contentType: string, body: StoredBody): void {
		this.objects.set(key, { key, contentType, body });
	}

	get(key: string): StoredObject | undefined {
		return this.objects.get(key);
	}

	/** A URL that allows `method` on `key` until it expires (after `ttlMs`, default the configured lifetime). */
	signedUrl(key: string, method: 'GET' | 'PUT' = 'GET', ttlMs = this.ttlMs): string {
		const expires = this.faults.expiredSignedUrls ? Date.now() - 1000 : Date.now() + ttlMs;
		const signature = this.sign(method, key, expires);
		const path = key.split('/').map(encodeURIComponent).join('/');
		return `${this.getOrigin()}/o/${path}?expires=${expires}&signature=${signature}`;
	}

	reset(): void {
		this.objects.clear();
		this.uploads.length = 0;
		this.triedUploads.clear();
		this.cutDownloads.clear();
	}

	/** Keys may hold slashes, so the storage host routes by prefix rather than through a Router. */
	handle(req: SimRequest, res: ServerResponse): void {
		if (!req.path.startsWith('/o/')) return sendText(res, 404, 'NoSuchKey');
		const key = req.path
			.slice(3)
			.split('/')
			.map((s) => decodeURIComponent(s))
			.join('/');
		if (req.headers['x-api-key'] !== undefined || req.headers.authorization !== undefined) {
			this.counters.storageCredentialAttempts++;
			return sendText(res, 400, 'Requests to signed URLs must not carry X-API-Key or Authorization headers.');
		}
		const method = req.method === 'HEAD' ? 'GET' : req.method;
		if (method !== 'GET' && method !== 'PUT') return sendText(res, 405, 'MethodNotAllowed');
		const expires = Number(req.query.get('expires'));
		const signature = req.query.get('signature') ?? '';
		if (!this.verify(method, key, expires, signature)) return sendText(res, 403, 'SignatureDoesNotMatch');
		if (expires < Date.now()) return sendText(res, 403, 'Request has expired');
		if (method === 'PUT') {
			if (this.uploadFault(key, res)) return;
			const contentType = String(req.headers['content-type'] ?? 'application/octet-stream');
			this.uploads.push({ key, contentType, bytes: req.rawBody, at: Date.now() });
			this.put(key, contentType, req.rawBody);
			res.writeHead(200, { etag: `"${req.rawBody.length}"` });
			return void res.end();
		}
		const object = this.objects.get(key);
		if (!object) return sendText(res, 404, 'NoSuchKey');
		if (req.method === 'GET' && this.faults.chaos?.roll('storageReset')) {
			this.cutDownloads.set(key, (this.cutDownloads.get(key) ?? 0) + 1);
			return serveCutShort(res, object);
		}
		serveStored(req, res, object);
	}

	/** The chaos faults of an upload, on the first PUT of a key only (then it has answered): a 503, or a reset connection. */
	private uploadFault(key: string, res: ServerResponse): boolean {
		const first = !this.triedUploads.has(key);
		this.triedUploads.add(key);
		const chaos = this.faults.chaos;
		if (!first || !chaos) return false;
		if (chaos.roll('upload5xx')) {
			sendText(res, 503, 'ServiceUnavailable (injected fault)');
			return true;
		}
		if (!chaos.roll('uploadReset')) return false;
		res.destroy();
		return true;
	}

	private sign(method: string, key: string, expires: number): string {
		return createHmac('sha256', this.secret).update(`${method}\n${key}\n${expires}`).digest('hex');
	}

	private verify(method: string, key: string, expires: number, signature: string): boolean {
		if (!Number.isFinite(expires)) return false;
		const expected = Buffer.from(this.sign(method, key, expires));
		const given = Buffer.from(signature);
		return expected.length === given.length && timingSafeEqual(expected, given);
	}
}

/** Answers 200 with an object's bytes (streamed when synthetic); headers default to its content type. */
export function serveStored(req: SimRequest, res: ServerResponse, object: StoredObject, headers: Record<string, string> = {}): void {
	const size = Buffer.isBuffer(object.body) ? object.body.length : object.body.size;
	res.writeHead(200, { 'content-type': object.contentType, 'content-length': size, ...headers });
	if (req.method === 'HEAD') return void res.end();
	if (Buffer.isBuffer(object.body)) return void res.end(object.body);
	object.body.stream().pipe(res);
}

/** The chaos fault: headers announce the whole object, then the connection is cut after half its bytes. */
function serveCutShort(res: ServerResponse, object: StoredObject): void {
	const size = Buffer.isBuffer(object.body) ? object.body.length : object.body.size;
	res.writeHead(200, { 'content-type': object.contentType, 'content-length': size });
	const source = Buffer.isBuffer(object.body) ? Readable.from([object.body]) : object.body.stream();
	let left = Math.floor(size / 2);
	source.on('data', (chunk: Buffer) => {
		const part = chunk.subarray(0, left);
		left -= part.length;
		if (left > 0) return void res.write(part);
		source.destroy();
		res.write(part, () => res.destroy());
	});
}

/** A readable of `size` bytes that starts with `header` and repeats a pattern, made chunk by chunk. */
export function syntheticStream(size: number, header: Buffer = Buffer.alloc(0)): Readable {
	const chunkSize = 64 * 1024;
	let sent = 0;
	return new Readable({
		read() {
			if (sent >= size) return void this.push(null);
			const n = Math.min(chunkSize, size - sent);
			const chunk = Buffer.alloc(n, 0x5a);
			if (sent < header.length) header.copy(chunk, 0, sent, Math.min(header.length, sent + n));
			sent += n;
			this.push(chunk);
		},
	});
}
