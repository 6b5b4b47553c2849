/**
 * Outside attack on Host Cloud v2: the record's own signed `url`, fetched at once (without the key)
 * when it is on another host than the API and valid for 10 s more. A url on the API's host in other
 * forms (userinfo, IPv6), one that redirects back to the API host or in a loop, an expiry that is
 * garbage or a number, and a link that answers an HTML page or fewer bytes: the key only ever goes
 * to the API, and the bytes kept are the file's, whole, or the item fails in words.
 */
import type { ServerResponse } from 'node:http';

import { API_KEY, assetRecord, envelope, json, keyBearers, nodeSpec, PNG, useHostileV2, visible } from './hostile-v2';
import { readBinary } from '../../../support/engine';

const v2 = useHostileV2();

const ASSET = '3c1d0a9e-5b7f-4e21-9d3a-0f1e2d3c4b5a';
const HOUR = () => new Date(Date.now() + 3_600_000).toISOString();
const bytes = (res: ServerResponse, body = PNG, status = 200, more: Record<string, string> = {}) => {
	res.writeHead(status, { 'content-type': 'image/png', 'content-length': String(body.length), ...more });
	res.end(body);
};
/** Serves the file, from a Range's start when asked for one. */
const ranged = (req: { headers: Record<string, unknown> }, res: ServerResponse) => {
	const from = Number(/^bytes=(\d+)-$/.exec(String(req.headers.range ?? ''))?.[1] ?? 0);
	if (from === 0) return bytes(res);
	bytes(res, PNG.subarray(from), 206, { 'content-range': `bytes ${from}-${PNG.length - 1}/${PNG.length}` });
};
/** The API answers the record (its url as given) and serves /content's bytes itself. */
function apiWith(record: Record<string, unknown>) {
	v2.answer = (req, res) => {
		if (req.url === `/api/v2/assets/${ASSET}`) return json(res, 200, assetRecord(v2, ASSET, { url_expires_at: HOUR(), ...record }));
		if (req.url === `/api/v2/assets/${ASSET}/content`) return ranged(req, res);
		if (req.url.startsWith('/storage/')) return bytes(res);
		envelope(res, 404, 'not_found');
	};
}
const download = () => v2.harness.runNode(nodeSpec(v2, { resource: 'file', operation: 'downloadOutput', assetId: ASSET }), [{ json: {} }]);
const contentAsks = () => v2.api.seen.filter((r) => r.url.endsWith('/content'));
/** Requests to the API that carried the key, other than its own routes. */
const keyOffRoute = () => keyBearers(v2.api).filter((r) => !r.url.startsWith('/api/v2/'));
async function expectTheFile(result: Awaited<ReturnType<typeof download>>) {
	expect(result.error('Node')?.message).toBeUndefined();
	expect((await readBinary(result.items[0]!.binary!.data!)).equals(PNG)).toBe(true);
}

describe('the record’s link on the API’s host, in other forms', () => {
	const port = () => new URL(v2.api.url).port;
	test.each([
		['with userinfo', () => `http://someone@127.0.0.1:${port()}/storage/${ASSET}`],
		['with the key as userinfo', () => `http://${API_KEY}@127.0.0.1:${port()}/storage/${ASSET}`],
		['in upper case', () => `HTTP://127.0.0.1:${port()}/storage/${ASSET}`],
		['as IPv6 loopback', () => `http://[::1]:${port()}/storage/${ASSET}`],
		['as localhost', () => `http://localhost:${port()}/storage/${ASSET}`],
	])('%s: the key goes to no route but the API’s, and never into what the user sees', async (_name, url) => {
		apiWith({ url: url() });
		const result = await download();

		await expectTheFile(result);
		expect(keyOffRoute()).toEqual([]);
		expect(visible(result)).not.toContain(API_KEY);
	});

	test('on another port of the API’s host (another host to the node): fetched without the key', async () => {
		apiWith({ url: `${v2.elsewhere.url}/signed/${ASSET}` });
		v2.elsewhereAnswer = (_req, res) => bytes(res);
		const result = await download();

		await expectTheFile(result);
		expect(keyBearers(v2.elsewhere)).toEqual([]);
		expect(contentAsks()).toEqual([]);
	});
});

describe('the record’s link redirecting', () => {
	test('to the API host: the key does not follow', async () => {
		apiWith({ url: `${v2.elsewhere.url}/signed/${ASSET}` });
		v2.elsewhereAnswer = (_req, res) => {
			res.writeHead(302, { location: `${v2.api.url}/storage/${ASSET}` });
			res.end();
		};
		const result = await download();

		await expectTheFile(result);
		expect(keyOffRoute()).toEqual([]);
		expect(keyBearers(v2.elsewhere)).toEqual([]);
	});

	test('in a loop: given up, the bytes come through /content', async () => {
		apiWith({ url: `${v2.elsewhere.url}/loop/0` });
		v2.elsewhereAnswer = (req, res) => {
			res.writeHead(302, { location: `${v2.elsewhere.url}/loop/${Number(req.url.split('/')[2]) + 1}` });
			res.end();
		};
		const result = await download();

		await expectTheFile(result);
		expect(contentAsks()).toHaveLength(1);
		expect(v2.elsewhere.seen.length).toBeLessThan(100);
		expect(keyBearers(v2.elsewhere)).toEqual([]);
	});
});

describe('the record’s expiry', () => {
	test.each([
		['garbage', 'soon-ish'],
		['a number of seconds', 4_102_444_800],
		['a number of milliseconds', 4_102_444_800_000],
		['an object', { at: '2099-01-01T00:00:00Z' }],
		['null', null],
		['already past', '2020-01-01T00:00:00Z'],
	])('%s: the link is not trusted, the bytes come through /content', async (_name, expiry) => {
		apiWith({ url: `${v2.elsewhere.url}/signed/${ASSET}`, url_expires_at: expiry });
		v2.elsewhereAnswer = (_req, res) => bytes(res);
		const result = await download();

		await expectTheFile(result);
		expect(contentAsks()).toHaveLength(1);
	});

	test('far future (year 9999): the link is used; its refusal (403) falls back to /content', async () => {
		apiWith({ url: `${v2.elsewhere.url}/signed/${ASSET}`, url_expires_at: '9999-12-31T23:59:59Z' });
		v2.elsewhereAnswer = (_req, res) => envelope(res, 403, 'forbidden');
		const result = await download();

		await expectTheFile(result);
		expect(v2.elsewhere.seen).toHaveLength(1);
		expect(contentAsks()).toHaveLength(1);
	});
});

describe('what the record’s link serves', () => {
	// Found by the outside attack: a link answering 200 with an HTML page (a storage sign-in page, an
	// error page) shorter than size_bytes was kept as the file's first bytes, and the "resume" through
	// /content appended the real file's tail: a file of the right size, with an HTML page in front.
	test('a 200 HTML page shorter than the file: never kept as the file’s first bytes', async () => {
		apiWith({ url: `${v2.elsewhere.url}/signed/${ASSET}` });
		v2.elsewhereAnswer = (_req, res) => {
			const page = Buffer.from('<!doctype html><html><body>Sign in to continue</body></html>');
			res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': String(page.length) });
			res.end(page);
		};
		const result = await download();

		await expectTheFile(result);
		expect(contentAsks().map((r) => r.headers.range)).toEqual([undefined]);
	});

	test('a 200 HTML page without Content-Length: not the file either, the bytes come through /content', async () => {
		apiWith({ url: `${v2.elsewhere.url}/signed/${ASSET}` });
		v2.elsewhereAnswer = (_req, res) => {
			res.writeHead(200, { 'content-type': 'text/html' });
			res.end('<html><body>Sign in</body></html>');
		};
		const result = await download();

		await expectTheFile(result);
		expect(contentAsks().map((r) => r.headers.range)).toEqual([undefined]);
	});

	test('/content’s storage answering a 200 HTML page: the item fails in words, nothing kept', async () => {
		apiWith({ url: `${v2.elsewhere.url}/signed/${ASSET}`, url_expires_at: null });
		v2.answer = ((inner) => (req: Parameters<typeof inner>[0], res: ServerResponse) => {
			if (req.url !== `/api/v2/assets/${ASSET}/content`) return inner(req, res);
			res.writeHead(302, { location: `${v2.elsewhere.url}/fresh/${ASSET}` });
			res.end();
		})(v2.answer);
		v2.elsewhereAnswer = (_req, res) => {
			res.writeHead(200, { 'content-type': 'text/html' });
			res.end('<html><body>Sign in</body></html>');
		};
		const result = await download();

		expect(result.status).toBe('error');
		expect(result.items).toEqual([]);
		expect(result.error('Node')?.message).toMatch(/answered an HTML page instead of the file/);
	});

	test('fewer bytes than size_bytes (cut): resumed through /content from where it stopped, the file whole', async () => {
		apiWith({ url: `${v2.elsewhere.url}/signed/${ASSET}` });
		v2.elsewhereAnswer = (_req, res) => {
			res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(PNG.length) });
			// Cut a while after the 1000 bytes are on their way: a cut that comes with them, before the node
			// has taken the answer, makes the link a refused one (the file then comes whole through /content).
			res.write(PNG.subarray(0, 1000), () => setTimeout(() => res.destroy(), 250));
		};
		const result = await download();

		await expectTheFile(result);
		expect(contentAsks().map((r) => r.headers.range)).toEqual(['bytes=1000-']);
	});

	test('more bytes than size_bytes (its Content-Length says so): not the file, the bytes come through /content', async () => {
		apiWith({ url: `${v2.elsewhere.url}/signed/${ASSET}` });
		v2.elsewhereAnswer = (_req, res) => bytes(res, Buffer.concat([PNG, PNG]));
		const result = await download();

		await expectTheFile(result);
		expect(contentAsks().map((r) => r.headers.range)).toEqual([undefined]);
	});

	test('more bytes than size_bytes, no Content-Length: the item fails in words, nothing kept', async () => {
		apiWith({ url: `${v2.elsewhere.url}/signed/${ASSET}` });
		v2.elsewhereAnswer = (_req, res) => {
			res.writeHead(200, { 'content-type': 'image/png' });
			res.end(Buffer.concat([PNG, PNG]));
		};
		const result = await download();

		expect(result.status).toBe('error');
		expect(result.items).toEqual([]);
		expect(result.error('Node')?.message).toMatch(/more than the \d+ bytes/);
	});

	test('another asset’s bytes of another size: not the file, the bytes come through /content (size_bytes is what the node can check)', async () => {
		apiWith({ url: `${v2.elsewhere.url}/signed/${ASSET}` });
		v2.elsewhereAnswer = (_req, res) => bytes(res, Buffer.alloc(2048, 7));
		const result = await download();

		// A whole answer of 2048 bytes is not this file: never kept as its first bytes.
		await expectTheFile(result);
		expect(contentAsks().map((r) => r.headers.range)).toEqual([undefined]);
	});
});
