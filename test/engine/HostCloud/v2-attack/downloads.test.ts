/**
 * Outside attack on Host Cloud v2: downloads (File → Download Output, by Asset ID). A Content-Length
 * that lies, a resume answered 206 from the wrong place, endless bytes, a gzip bomb, and an Asset ID
 * that is a path. The total must be the record's size_bytes, nothing partial is kept, the key goes
 * only to the Base URL's host.
 */
import { gzipSync } from 'node:zlib';
import type { ServerResponse } from 'node:http';

import { API_KEY, assetRecord, envelope, json, keyBearers, nodeSpec, PNG, useHostileV2, visible } from './hostile-v2';
import { readBinary } from '../../../support/engine';

const v2 = useHostileV2();

const ASSET = '9f8a1c0d-2b3e-4f56-8a7b-1c2d3e4f5a6b';
const record = (more: Record<string, unknown> = {}) => assetRecord(v2, ASSET, more);
const download = (assetId = ASSET) =>
	v2.harness.runNode(nodeSpec(v2, { resource: 'file', operation: 'downloadOutput', assetId }), [{ json: {} }]);
/** The API answers the record and sends /content to the storage host, which answers `storage`. */
function storageAnswers(
	storage: (req: { headers: Record<string, unknown> }, res: ServerResponse) => void,
	more: Record<string, unknown> = {},
) {
	v2.answer = (req, res) => {
		if (req.url === `/api/v2/assets/${ASSET}`) return json(res, 200, record(more));
		if (req.url === `/api/v2/assets/${ASSET}/content`) {
			res.writeHead(302, { location: `${v2.elsewhere.url}/signed/${ASSET}` });
			return void res.end();
		}
		envelope(res, 404, 'not_found');
	};
	v2.elsewhereAnswer = (req, res) => storage(req, res);
}
const storageGets = () => v2.elsewhere.seen.filter((r) => r.url.startsWith('/signed/'));

describe('downloads', () => {
	test('a Content-Length larger than what is sent (cut short each time): resumed at most 3 times, then the item fails; nothing partial kept', async () => {
		storageAnswers((_req, res) => {
			res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(PNG.length) });
			// Cut once the bytes are on their way (a busy machine may not have sent them 20 ms after the write).
			res.write(PNG.subarray(0, 100), () => setTimeout(() => res.destroy(), 20));
		});
		const result = await download();

		expect(result.status).toBe('error');
		expect(storageGets().length).toBeLessThanOrEqual(4);
		expect(result.items).toEqual([]);
	});

	test("a Content-Length smaller than what is sent, ending at size_bytes: the bytes are the record's", async () => {
		storageAnswers((_req, res) => {
			res.writeHead(200, { 'content-type': 'image/png', 'content-length': '10' });
			res.end(PNG);
		});
		const result = await download();

		// Node's HTTP parser keeps to Content-Length: 10 bytes arrive, short of size_bytes.
		expect(result.status).toBe('error');
		expect(result.items).toEqual([]);
	});

	test('a resume answered 206 with a Content-Range from another place: the item fails, nothing partial kept', async () => {
		storageAnswers((req, res) => {
			if (!req.headers.range) {
				res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(PNG.length) });
				return void res.write(PNG.subarray(0, 1000), () => setTimeout(() => res.destroy(), 20));
			}
			res.writeHead(206, { 'content-type': 'image/png', 'content-range': `bytes 0-${PNG.length - 1}/${PNG.length}` });
			res.end(PNG);
		});
		const result = await download();

		expect(result.status).toBe('error');
		expect(result.items).toEqual([]);
		expect(result.error('Node')?.message).toMatch(/start|range|byte/i);
	});

	test('endless bytes past size_bytes: the item fails, the transfer is stopped (bounded bytes read)', async () => {
		let written = 0;
		storageAnswers((_req, res) => {
			res.writeHead(200, { 'content-type': 'image/png' });
			const chunk = Buffer.alloc(64 * 1024, 1);
			const pump = () => {
				while (!res.destroyed && written < 256 * 1024 * 1024) {
					written += chunk.length;
					if (!res.write(chunk)) return void res.once('drain', pump);
				}
				res.end();
			};
			pump();
		});
		const result = await download();

		expect(result.status).toBe('error');
		expect(result.items).toEqual([]);
		// Stopped soon after size_bytes (4 KiB), not after the 256 MiB the server would send.
		expect(written).toBeLessThan(64 * 1024 * 1024);
	}, 60_000);

	test('a gzip bomb (Content-Encoding: gzip, 64 MiB of zeros in 64 KiB): the item fails on size, not after inflating it all', async () => {
		const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
		storageAnswers((_req, res) => {
			res.writeHead(200, { 'content-type': 'image/png', 'content-encoding': 'gzip', 'content-length': String(bomb.length) });
			res.end(bomb);
		});
		const result = await download();

		expect(result.status).toBe('error');
		expect(result.items).toEqual([]);
	}, 60_000);

	test("bytes of exactly size_bytes, gzip-encoded: what the user gets is the record's bytes", async () => {
		const packed = gzipSync(PNG);
		storageAnswers((_req, res) => {
			res.writeHead(200, { 'content-type': 'image/png', 'content-encoding': 'gzip', 'content-length': String(packed.length) });
			res.end(packed);
		});
		const result = await download();

		// Either the bytes are inflated to the record's, or the item fails in words: never the packed bytes as the image.
		if (result.status === 'success') expect((await readBinary(result.items[0]!.binary!.data!)).equals(PNG)).toBe(true);
		else expect(result.error('Node')?.message).toBeTruthy();
	});

	test.each([['../jobs/x'], ['x/../../v1/prompt'], ['%2e%2e%2fjobs'], ['x?token=1']])(
		'an Asset ID that is a path (%s) is refused or kept inside /api/v2/assets/',
		async (assetId) => {
			v2.answer = (_req, res) => envelope(res, 404, 'not_found');
			const result = await download(assetId);

			expect(result.status).toBe('error');
			for (const r of v2.api.seen) expect(r.url).toMatch(/^\/api\/v2\/assets\/[^/?#]+(\/content)?$/);
			expect(visible(result)).not.toContain(API_KEY);
		},
	);

	test('the storage host never sees the key, on any of the tries', async () => {
		storageAnswers((_req, res) => {
			res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(PNG.length) });
			res.end(PNG);
		});
		const result = await download();

		expect(result.status).toBe('success');
		expect(keyBearers(v2.elsewhere)).toEqual([]);
		expect((await readBinary(result.items[0]!.binary!.data!)).equals(PNG)).toBe(true);
	});
});
