/**
 * v2: the asset endpoints. Uploads are single multipart requests; from-hash and by-hash work only
 * over blobs the caller's own account stored or produced; content is served directly on a
 * self-hosted server (with Range) and by a 302 to the signed storage host elsewhere.
 */
import type { ServerResponse } from 'node:http';

import { type AssetRecord, contentHash, type MintRequest } from './assets';
import { type AccountHandler, isHosted, refuse, type V2Kit } from './kit';
import { assetJson } from './views';
import { type Account, isPlainObject, type MultipartPart, parseMultipart, sendJson, type SimRequest } from '../shared/core';
import { serveStored, type StoredObject } from '../shared/storage';

const EXPIRES_MIN = 60;
const EXPIRES_MAX = 604800;

/** expires_in as the contract bounds it (60 s to 7 days): the seconds, undefined when absent, or what is wrong. */
function expiresIn(value: unknown): number | undefined | { problem: string } {
	if (value === undefined) return undefined;
	const n = typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
	if (typeof n !== 'number' || !Number.isInteger(n) || n < EXPIRES_MIN || n > EXPIRES_MAX) {
		return {
			problem: `expires_in must be a whole number of seconds from ${EXPIRES_MIN} to ${EXPIRES_MAX} (7 days), not ${JSON.stringify(value)}.`,
		};
	}
	return n;
}

/** The upload form's fields, or the 422 message that says what is missing or wrong. */
function uploadFields(parts: MultipartPart[]): { file: MultipartPart; contentType: string; mint: MintRequest; expected?: string } | string {
	const text = (name: string) => parts.filter((p) => p.name === name && p.filename === undefined).map((p) => p.data.toString('utf8'));
	const file = parts.find((p) => p.name === 'file' && p.filename !== undefined) ?? parts.find((p) => p.name === 'file');
	if (!file) return "The upload has no 'file' part: send the bytes as a file part named file.";
	const [contentType] = text('content_type');
	const [filePath] = text('file_path');
	if (!contentType) return 'content_type is required: the media type of the file, such as image/png.';
	if (!filePath) return 'file_path is required: the file name the workflow will use, such as photo.png.';
	const expiry = expiresIn(text('expires_in')[0]);
	if (typeof expiry === 'object') return expiry.problem;
	return { file, contentType, mint: { filePath, tags: text('tags'), expiresIn: expiry }, expected: text('expected_hash')[0] };
}

/**
 * The asset endpoints, registered under `base` ('…/api/v2'); answers reset(), which forgets the
 * uploads' claimed keys. An upload's Idempotency-Key is single-use as a submit's is (the contract
 * lists 422 idempotency_key_reuse for POST /assets): claimed when the upload is read, released when
 * it definitely fails (a form or hash refusal), kept once an asset was minted.
 */
export function registerAssetRoutes(
	kit: V2Kit,
	base: string,
	authed: (handler: AccountHandler) => (req: SimRequest, res: ServerResponse) => void,
): { reset(): void } {
	const r = kit.ctx.cloudRouter;
	const { assets, links } = kit;
	const claims = new Set<string>();

	r.add(
		'POST',
		`${base}/assets`,
		authed((req, res, account) => upload(req, res, account)),
	);
	r.add(
		'POST',
		`${base}/assets/from-hash`,
		authed((req, res, account) => fromHash(req, res, account)),
	);
	r.add(
		'HEAD',
		`${base}/assets/by-hash/:hash`,
		authed((req, res, account) => {
			res.writeHead(assets.hasBlob(account.id, req.params.hash) ? 200 : 404, { 'content-length': 0 });
			res.end();
		}),
	);
	r.add(
		'GET',
		`${base}/assets/:id`,
		authed((req, res, account) => withAsset(req, res, account, (record) => sendJson(res, 200, assetJson(record, links)))),
	);
	r.add(
		'DELETE',
		`${base}/assets/:id`,
		authed((req, res, account) =>
			withAsset(req, res, account, (record) => {
				if (kit.book.holds(record.id)) {
					return refuse(res, 409, 'asset_in_use', 'This asset cannot be deleted now: the platform still depends on it.');
				}
				assets.delete(record.id);
				res.writeHead(204);
				res.end();
			}),
		),
	);
	r.add(
		'GET',
		`${base}/assets/:id/content`,
		authed((req, res, account) => withAsset(req, res, account, (record) => content(req, res, record))),
	);

	function withAsset(req: SimRequest, res: ServerResponse, account: Account, then: (record: AssetRecord) => void): void {
		const record = assets.get(account.id, req.params.id);
		if (!record) return refuse(res, 404, 'not_found', `No asset with id ${req.params.id}.`);
		then(record);
	}

	function upload(req: SimRequest, res: ServerResponse, account: Account): void {
		const header = req.headers['idempotency-key'];
		const key = typeof header === 'string' && header !== '' ? `${account.id}|${header}` : undefined;
		if (key && claims.has(key)) {
			return refuse(res, 422, 'idempotency_key_reuse', 'This Idempotency-Key was already used: keys are single-use. Look the asset up instead of uploading again.');
		}
		if (key) claims.add(key);
		const minted = mint(req, res, account);
		if (!minted) {
			if (key) claims.delete(key); // a definite failure: no asset was made
			return;
		}
		const lost = kit.ctx.faults.v2UploadLost;
		if (lost && lost.count > 0) {
			if (--lost.count === 0) delete kit.ctx.faults.v2UploadLost;
			if (lost.as === 'reset') return void res.destroy();
			return refuse(res, 500, 'upstream_error', 'An unexpected error occurred while processing the request.');
		}
		sendJson(res, minted.createdNew ? 201 : 200, assetJson(minted.record, links, minted.createdNew));
	}

	/** The upload's asset, minted; undefined when it was refused (the refusal is sent). */
	function mint(req: SimRequest, res: ServerResponse, account: Account): { record: AssetRecord; createdNew: boolean } | undefined {
		const parts = parseMultipart(req);
		if (!parts) return void refuse(res, 422, 'invalid_request', 'Send the upload as multipart/form-data with a file part and its fields.');
		const fields = uploadFields(parts);
		if (typeof fields === 'string') return void refuse(res, 422, 'invalid_request', fields);
		const limit = kit.ctx.options.uploadLimitBytes;
		if (fields.file.data.length > limit) {
			return void refuse(res, 422, 'file_too_large', `The file is ${fields.file.data.length} bytes; the limit is ${limit} bytes.`);
		}
		const bytes = Buffer.from(fields.file.data);
		if (fields.expected !== undefined && fields.expected !== contentHash(bytes)) {
			return void refuse(res, 409, 'hash_mismatch', 'expected_hash does not match the hash of the bytes received: no asset was made.');
		}
		return assets.upload(account.id, bytes, fields.contentType, fields.mint);
	}

	function fromHash(req: SimRequest, res: ServerResponse, account: Account): void {
		let body: unknown;
		try {
			body = JSON.parse(req.rawBody.toString('utf8'));
		} catch {
			body = undefined;
		}
		// The contract lists no 422 here: a body without a hash finds no blob.
		const hash = isPlainObject(body) && typeof body.hash === 'string' ? body.hash : undefined;
		const fields = isPlainObject(body) ? body : {};
		const expiry = expiresIn(fields.expires_in);
		const mint: MintRequest = {
			filePath: typeof fields.file_path === 'string' ? fields.file_path : null,
			tags: Array.isArray(fields.tags) ? fields.tags.filter((t): t is string => typeof t === 'string') : [],
			// Out of bounds: the default retention (the contract lists no 422 for from-hash).
			expiresIn: typeof expiry === 'number' ? expiry : undefined,
		};
		const minted = hash === undefined ? undefined : assets.fromHash(account.id, hash, mint);
		if (!minted) {
			const what = hash === undefined ? 'The body has no hash (send {"hash": "blake3:<hex>"})' : `No blob ${hash} you may mint from`;
			return refuse(res, 404, 'blob_not_found', `${what}: upload the bytes with POST /api/v2/assets instead.`);
		}
		sendJson(res, minted.existed ? 200 : 201, assetJson(minted.record, links, minted.existed ? undefined : false));
	}

	function content(req: SimRequest, res: ServerResponse, record: AssetRecord): void {
		const object = assets.bytes(record);
		if (!object) return refuse(res, 404, 'not_found', `The bytes of asset ${record.id} are gone.`);
		if (isHosted(kit)) {
			res.writeHead(302, { location: links.content(record).url, 'content-length': 0 });
			return void res.end();
		}
		serveRange(req, res, object);
	}

	return { reset: () => claims.clear() };
}

/** Self-hosted bytes: the whole object, or one `bytes=` range (206; 416 when it lies outside). Streamed objects ignore Range. */
function serveRange(req: SimRequest, res: ServerResponse, object: StoredObject): void {
	const range = String(req.headers.range ?? '');
	const m = /^bytes=(\d*)-(\d*)$/.exec(range.trim());
	if (!m || !Buffer.isBuffer(object.body) || (m[1] === '' && m[2] === ''))
		return serveStored(req, res, object, { 'accept-ranges': 'bytes' });
	const size = object.body.length;
	const start = m[1] === '' ? Math.max(0, size - Number(m[2])) : Number(m[1]);
	const end = m[1] === '' || m[2] === '' ? size - 1 : Math.min(size - 1, Number(m[2]));
	if (start >= size || start > end) {
		res.writeHead(416, { 'content-range': `bytes */${size}`, 'content-length': 0 });
		return void res.end();
	}
	const part = object.body.subarray(start, end + 1);
	res.writeHead(206, {
		'content-type': object.contentType,
		'content-length': part.length,
		'content-range': `bytes ${start}-${end}/${size}`,
		'accept-ranges': 'bytes',
	});
	res.end(part);
}
