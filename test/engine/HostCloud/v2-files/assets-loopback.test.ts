/**
 * Host Cloud's File operations on v2, run in n8n's engine against a small loopback v2 API and a
 * storage host, which answer as the contract says and can lose an answer, cut a download short or
 * misbehave on purpose: uploads as assets (one key, resent once after an unknown outcome, never a
 * silent second upload), fresh links, and bytes from a 302 (the storage host sees no credential) or
 * a self-hosted 200, resumed with Range after a cut and checked against size_bytes.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';

import { EngineHarness, readBinary } from '../../../support/engine';
import { startLoopbackServer, type LoopbackServer, type SeenRequest } from '../../../support/loopback-server';
import { TINY_PNG as PNG } from '../../../support/cloud';

const API_KEY = 'v2-files-key-5e0c1d7a9b';
const FILE = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7) % 251));
const ASSET_ID = '9f8a1c0d-2b3e-4f56-8a7b-1c2d3e4f5a6b';

type Handler = (req: SeenRequest, res: ServerResponse) => void;
let api: LoopbackServer;
let storage: LoopbackServer;
let apiAnswer: Handler;
let storageAnswer: Handler;
const harness = new EngineHarness();
let credential: string;

beforeAll(async () => {
	api = await startLoopbackServer((req, res) => apiAnswer(req, res));
	storage = await startLoopbackServer((req, res) => storageAnswer(req, res));
	credential = harness.addCredential('hostCloudV2Api', { baseUrl: api.url, apiKey: API_KEY }, 'Host Cloud V2 API');
});
afterEach(() => {
	api.seen.length = 0;
	storage.seen.length = 0;
});
afterAll(async () => {
	await api.close();
	await storage.close();
});

const json = (res: ServerResponse, status: number, body: unknown) => {
	res.writeHead(status, { 'Content-Type': 'application/json' });
	res.end(JSON.stringify(body));
};
const envelope = (res: ServerResponse, status: number, code: string, message: string) => json(res, status, { error: { code, message } });

function assetRecord(overrides: Record<string, unknown> = {}) {
	return {
		id: ASSET_ID,
		hash: null,
		size_bytes: FILE.length,
		content_type: 'image/png',
		file_path: 'ComfyUI_00001_.png',
		created_at: '2026-12-02T06:00:00Z',
		url: `${storage.url}/signed/${ASSET_ID}?sig=abc`,
		// Expired: a download goes through /content for a fresh link (a valid one is fetched at once, below).
		url_expires_at: new Date(Date.now() - 60_000).toISOString(),
		...overrides,
	};
}

/** The text fields of a multipart body (a field sent more than once gives each value). */
function formFields(body: string): Record<string, string[]> {
	const fields: Record<string, string[]> = {};
	for (const match of body.matchAll(/Content-Disposition: form-data; name="([^"]+)"(; filename="[^"]*")?\r\n(?:[^\r\n]+\r\n)?\r\n/g)) {
		if (match[2]) continue;
		const start = match.index + match[0].length;
		(fields[match[1]!] ??= []).push(body.slice(start, body.indexOf('\r\n--', start)));
	}
	return fields;
}

const withImage = () => [
	{ json: {}, binaryBase64: { data: { data: PNG.toString('base64'), fileName: 'cat.png', mimeType: 'image/png' } } },
];

function runFile(parameters: Record<string, unknown> & { operation: string }, items: Array<Record<string, unknown>> = [{ json: {} }]) {
	return harness.runNode(
		{
			type: 'hostCloud',
			parameters: { apiGeneration: 'v2', resource: 'file', ...parameters } as never,
			credentials: { hostCloudV2Api: credential },
		},
		items as never,
	);
}

/** A v2 upload endpoint with single-use keys, minting one asset per accepted upload. */
function uploads(options: { loseFirstAnswer?: 'reset' | 'upstream_error' } = {}) {
	const claimed = new Set<string>();
	const minted: string[] = [];
	let lose = options.loseFirstAnswer;
	apiAnswer = (req, res) => {
		const key = String(req.headers['idempotency-key']);
		if (claimed.has(key)) return envelope(res, 422, 'idempotency_key_reuse', 'This Idempotency-Key was already used: keys are single-use.');
		if (lose === 'upstream_error') {
			lose = undefined;
			return envelope(res, 500, 'upstream_error', 'An unexpected error occurred.');
		}
		claimed.add(key);
		const fields = formFields(req.body);
		const id = randomUUID();
		minted.push(id);
		if (lose === 'reset') {
			lose = undefined;
			return void res.socket?.destroy();
		}
		json(res, 201, assetRecord({ id, size_bytes: PNG.length, content_type: fields.content_type?.[0], file_path: fields.file_path?.[0] }));
	};
	return { minted };
}

describe('Upload Image and Upload Mask on v2', () => {
	test('the image goes up as an asset tagged input, with a bearer key and a key of its own; the item carries the record and its reference', async () => {
		const { minted } = uploads();
		const result = await runFile(
			{ operation: 'uploadImage', binaryPropertyName: 'data', additionalFields: { expiresIn: 86400 } },
			withImage(),
		);
		expect(result.error('Node')?.message).toBeUndefined();
		const [req] = api.seen;
		expect([req!.method, req!.url, req!.headers.authorization]).toEqual(['POST', '/api/v2/assets', `Bearer ${API_KEY}`]);
		expect(req!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
		expect(formFields(req!.body)).toEqual({ content_type: ['image/png'], file_path: ['cat.png'], tags: ['input'], expires_in: ['86400'] });
		const json = result.items[0]!.json;
		expect(json).toMatchObject({ id: minted[0], size_bytes: PNG.length, content_type: 'image/png', file_path: 'cat.png' });
		expect(json.asset_reference).toEqual({ __type: 'core/ASSET', info: { id: minted[0], file_path: 'cat.png' } });
	});

	test('the mask goes up tagged mask', async () => {
		uploads();
		const result = await runFile({ operation: 'uploadMask', binaryPropertyName: 'data' }, withImage());
		expect(result.error('Node')?.message).toBeUndefined();
		expect(formFields(api.seen[0]!.body).tags).toEqual(['mask']);
	});

	test.each([
		[
			'uploadMask',
			{ additionalFields: { originalSubfolder: 'a', originalType: 'output' } },
			/Upload Mask on v2 has no place for "Original Image Subfolder", "Original Image Type"/,
		],
		['uploadMask', { additionalFields: { subfolder: 'masks', type: 'temp' } }, /no place for "Subfolder", "Type"/],
		['uploadImage', { additionalFields: { overwrite: true } }, /Upload Image on v2 has no place for "Overwrite"/],
		['uploadImage', { additionalFields: { expiresIn: 30 } }, /Keep For \(Seconds\)/],
		['uploadImage', { additionalFields: { fileName: '../secret.png' } }, /File Name "..\/secret.png" is not a relative file name/],
	])('%s with %j is refused by name, nothing sent', async (operation, parameters, words) => {
		uploads();
		const result = await runFile({ operation, binaryPropertyName: 'data', ...parameters }, withImage());
		expect(result.error('Node')?.message).toMatch(words);
		expect(api.seen).toHaveLength(0);
	});

	test('an answer lost after the asset was made: sent once more with the same key, the refusal said in words, one asset', async () => {
		const { minted } = uploads({ loseFirstAnswer: 'reset' });
		const result = await runFile({ operation: 'uploadImage', binaryPropertyName: 'data' }, withImage());
		const keys = api.seen.map((req) => req.headers['idempotency-key']);
		expect(keys).toHaveLength(2);
		expect(keys[1]).toBe(keys[0]);
		expect(minted).toHaveLength(1);
		const error = result.error('Node');
		expect(error?.message).toContain(`reached the server, but its answer was lost`);
		expect(error?.message).toContain(`Idempotency-Key ${keys[0]}`);
		expect(error?.description).toMatch(/It was not uploaded a second time/);
	});

	test('a 5xx before anything was made: the same key sent once more makes the one asset', async () => {
		const { minted } = uploads({ loseFirstAnswer: 'upstream_error' });
		const result = await runFile({ operation: 'uploadImage', binaryPropertyName: 'data' }, withImage());
		expect(result.error('Node')?.message).toBeUndefined();
		expect(new Set(api.seen.map((req) => req.headers['idempotency-key'])).size).toBe(1);
		expect(api.seen).toHaveLength(2);
		expect(result.items[0]!.json.id).toBe(minted[0]);
		expect(minted).toHaveLength(1);
	});

	test('an answer that does not match the bytes sent is an error, not data', async () => {
		apiAnswer = (_req, res) => json(res, 201, assetRecord({ size_bytes: 12, content_type: 'image/png' }));
		const result = await runFile({ operation: 'uploadImage', binaryPropertyName: 'data' }, withImage());
		expect(result.error('Node')?.message).toMatch(new RegExp(`says 12 bytes were stored where ${PNG.length} were sent`));
	});
});

describe('Get Output URL on v2', () => {
	test('a fresh link of the asset, asked by its id', async () => {
		apiAnswer = (_req, res) => json(res, 200, assetRecord());
		const result = await runFile({ operation: 'getOutputUrl', assetId: ASSET_ID });
		expect(api.seen.map((req) => [req.method, req.url])).toEqual([['GET', `/api/v2/assets/${ASSET_ID}`]]);
		expect(result.items[0]!.json).toMatchObject({ id: ASSET_ID, url: assetRecord().url, size_bytes: FILE.length });
	});

	test('an answer about another asset is an error that says so', async () => {
		apiAnswer = (_req, res) => json(res, 200, assetRecord({ id: 'another-asset' }));
		const result = await runFile({ operation: 'getOutputUrl', assetId: ASSET_ID });
		expect(result.error('Node')?.message).toMatch(/about another asset \(another-asset\)/);
	});
});

/** The API: the record, and /content answered by `content`. */
function assetApi(content: Handler, record = assetRecord()) {
	apiAnswer = (req, res) => (req.url.endsWith('/content') ? content(req, res) : json(res, 200, record));
}

/** Sends `FILE` from `from` on (a 206 when a range was asked), cut after `cutAt` bytes of the file when given. */
function sendFile(req: SeenRequest, res: ServerResponse, cutAt?: number) {
	const asked = /^bytes=(\d+)-$/.exec(String(req.headers.range ?? ''));
	const from = asked ? Number(asked[1]) : 0;
	const part = FILE.subarray(from);
	const head = { 'Content-Type': 'image/png', 'Content-Length': String(part.length) };
	res.writeHead(asked ? 206 : 200, asked ? { ...head, 'Content-Range': `bytes ${from}-${FILE.length - 1}/${FILE.length}` } : head);
	if (cutAt === undefined) return void res.end(part);
	res.write(part.subarray(0, cutAt - from), () => res.socket?.destroy());
}

const downloaded = async (result: Awaited<ReturnType<typeof runFile>>) => await readBinary(result.items[0]!.binary!.data!);

describe('Download Output on v2', () => {
	test('cloud: the 302 is fetched from the storage host with no credential, streamed into binary data', async () => {
		assetApi((_req, res) => {
			res.writeHead(302, { Location: `${storage.url}/signed/${ASSET_ID}?sig=abc` });
			res.end();
		});
		storageAnswer = (req, res) => sendFile(req, res);
		const result = await runFile({ operation: 'downloadOutput', assetId: ASSET_ID });
		expect(result.error('Node')?.message).toBeUndefined();
		expect((await downloaded(result)).equals(FILE)).toBe(true);
		expect(result.items[0]!.binary!.data).toMatchObject({ fileName: 'ComfyUI_00001_.png', mimeType: 'image/png' });
		expect(storage.seen).toHaveLength(1);
		expect(storage.seen[0]!.headers.authorization).toBeUndefined();
		expect(JSON.stringify(storage.seen[0]!.headers)).not.toContain(API_KEY);
		expect(api.seen.map((req) => req.headers.authorization)).toEqual([`Bearer ${API_KEY}`, `Bearer ${API_KEY}`]);
	});

	const validFor = (ms: number) => new Date(Date.now() + ms).toISOString();

	test('cloud: the record’s own signed link, still valid, is fetched at once: no /content round trip, no credential', async () => {
		assetApi((_req, res) => envelope(res, 500, 'upstream_error', 'not to be asked'), assetRecord({ url_expires_at: validFor(3_600_000) }));
		storageAnswer = (req, res) => sendFile(req, res);
		const result = await runFile({ operation: 'downloadOutput', assetId: ASSET_ID });
		expect(result.error('Node')?.message).toBeUndefined();
		expect((await downloaded(result)).equals(FILE)).toBe(true);
		expect(api.seen.map((req) => req.url)).toEqual([`/api/v2/assets/${ASSET_ID}`]);
		expect(storage.seen.map((req) => req.url)).toEqual([`/signed/${ASSET_ID}?sig=abc`]);
		expect(JSON.stringify(storage.seen[0]!.headers)).not.toContain(API_KEY);
	});

	test('a record link the storage refuses (403) or that expires within seconds: the bytes come through /content’s fresh link', async () => {
		storageAnswer = (req, res) => (req.url.endsWith('sig=fresh') ? sendFile(req, res) : envelope(res, 403, 'forbidden', 'expired'));
		for (const record of [assetRecord({ url_expires_at: validFor(3_600_000) }), assetRecord({ url_expires_at: validFor(2_000) })]) {
			assetApi((_req, res) => {
				res.writeHead(302, { Location: `${storage.url}/signed/${ASSET_ID}?sig=fresh` });
				res.end();
			}, record);
			const result = await runFile({ operation: 'downloadOutput', assetId: ASSET_ID });
			expect(result.error('Node')?.message).toBeUndefined();
			expect((await downloaded(result)).equals(FILE)).toBe(true);
		}
		// The refused link was tried once; the one about to expire was not tried at all.
		expect(storage.seen.map((req) => req.url.split('?')[1])).toEqual(['sig=abc', 'sig=fresh', 'sig=fresh']);
		expect(api.seen.filter((req) => req.url.endsWith('/content'))).toHaveLength(2);
		expect(storage.seen.every((req) => req.headers.authorization === undefined)).toBe(true);
	});

	test('a link on the API’s own host (proxy-served) is asked through /content with the credential, never as a bare link', async () => {
		assetApi(
			(req, res) => sendFile(req, res),
			assetRecord({ url: `${api.url}/api/v2/assets/${ASSET_ID}/content`, url_expires_at: validFor(3_600_000) }),
		);
		const result = await runFile({ operation: 'downloadOutput', assetId: ASSET_ID });
		expect(result.error('Node')?.message).toBeUndefined();
		expect((await downloaded(result)).equals(FILE)).toBe(true);
		expect(api.seen.map((req) => [req.url, req.headers.authorization])).toEqual([
			[`/api/v2/assets/${ASSET_ID}`, `Bearer ${API_KEY}`],
			[`/api/v2/assets/${ASSET_ID}/content`, `Bearer ${API_KEY}`],
		]);
		expect(storage.seen).toHaveLength(0);
	});

	test('self-hosted: a 200 cut short is resumed with Range from where it stopped, the whole file kept', async () => {
		let cuts = 0;
		assetApi((req, res) => sendFile(req, res, cuts++ === 0 ? 100_000 : undefined));
		const result = await runFile({ operation: 'downloadOutput', assetId: ASSET_ID });
		expect(result.error('Node')?.message).toBeUndefined();
		const content = api.seen.filter((req) => req.url.endsWith('/content'));
		expect(content.map((req) => req.headers.range)).toEqual([undefined, 'bytes=100000-']);
		expect((await downloaded(result)).equals(FILE)).toBe(true);
	});

	test('cloud: a storage download cut short asks the API for a fresh link and resumes there with Range', async () => {
		assetApi((_req, res) => {
			res.writeHead(302, { Location: `${storage.url}/signed/${ASSET_ID}?sig=fresh` });
			res.end();
		});
		let cuts = 0;
		storageAnswer = (req, res) => sendFile(req, res, cuts++ === 0 ? 65_536 : undefined);
		const result = await runFile({ operation: 'downloadOutput', assetId: ASSET_ID });
		expect(result.error('Node')?.message).toBeUndefined();
		expect(storage.seen.map((req) => req.headers.range)).toEqual([undefined, 'bytes=65536-']);
		expect(storage.seen.every((req) => req.headers.authorization === undefined)).toBe(true);
		expect((await downloaded(result)).equals(FILE)).toBe(true);
	});

	test('a 206 that does not start where it was asked is an error in words', async () => {
		let cuts = 0;
		assetApi((req, res) => {
			if (cuts++ === 0) return sendFile(req, res, 100_000);
			res.writeHead(206, { 'Content-Range': `bytes 0-${FILE.length - 1}/${FILE.length}` });
			res.end(FILE);
		});
		const result = await runFile({ operation: 'downloadOutput', assetId: ASSET_ID });
		expect(result.error('Node')?.message).toMatch(/does not start at byte 100000, where it was asked to/);
	});

	test('a server that holds fewer bytes than size_bytes: the resume is refused (416) and said in words', async () => {
		assetApi(
			(req, res) => {
				if (req.headers.range) {
					res.writeHead(416, { 'Content-Range': `bytes */${FILE.length}` });
					return void res.end();
				}
				res.writeHead(200, { 'Content-Type': 'image/png' });
				res.end(FILE);
			},
			assetRecord({ size_bytes: FILE.length + 10 }),
		);
		const result = await runFile({ operation: 'downloadOutput', assetId: ASSET_ID });
		expect(result.error('Node')?.message).toMatch(/cannot serve its bytes from byte 300000 on \(HTTP 416/);
		expect(result.error('Node')?.message).toMatch(/fewer bytes than the 300010 its record \(size_bytes\) gives/);
	});

	test('more bytes than size_bytes is an error, nothing kept', async () => {
		assetApi((req, res) => sendFile(req, res), assetRecord({ size_bytes: 1000 }));
		const result = await runFile({ operation: 'downloadOutput', assetId: ASSET_ID });
		// Its Content-Length says so before any byte is kept (without one: "sent more than", v2-attack/direct-links).
		expect(result.error('Node')?.message).toMatch(/answered a file of 300000 bytes \(Content-Length\), where its record \(size_bytes\) gives 1000/);
	});
});
