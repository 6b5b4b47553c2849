/**
 * A signed storage host whose answer to a download is a success status but not the file: a
 * redirect that names no address, "not modified", "no content", or a part of the file. The node
 * did not ask for any of these (no conditional, no range), so none is the file: the item fails
 * saying what the host answered, and no file is passed on as whole.
 */
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';

import { REQUEST_TIME_LIMIT } from '../../../nodes/shared/transport/transport';
import { EngineHarness } from '../../support/engine';
import { sendJson, startHostileService, type HostileService, type SeenRequest } from '../../support/hostile-service';
import { hostCloudApiCredential } from '../../support/credential-fixtures';

const harness = new EngineHarness();
let service: HostileService;
let storage: HostileService;
let cloud: string;
let storageAnswer: (req: SeenRequest, res: ServerResponse) => void = (_req, res) => res.end();

const DEFAULTS = { ...REQUEST_TIME_LIMIT };

beforeAll(async () => {
	storage = await startHostileService((req, res) => storageAnswer(req, res));
	service = await startHostileService((req, res) =>
		req.url.startsWith('/api/view')
			? sendJson(res, 302, {}, { Location: `${storage.url}/o/out.png?signature=abc` })
			: sendJson(res, 404, {}),
	);
	cloud = harness.addCredential('hostCloudApi', hostCloudApiCredential({ apiKey: 'cloud-key-storage-0123456789', baseUrl: service.url }));
});

beforeEach(() => {
	REQUEST_TIME_LIMIT.ms = 1000;
	REQUEST_TIME_LIMIT.readMs = 3000;
	storage.seen.length = 0;
});

afterEach(() => Object.assign(REQUEST_TIME_LIMIT, DEFAULTS));

afterAll(async () => {
	await service.close();
	await storage.close();
});

async function downloadOutput() {
	const result = await harness.runNode({
		type: 'hostCloud',
		parameters: { resource: 'file', operation: 'downloadOutput', filename: 'out.png' } as never,
		credentials: { hostCloudApi: cloud },
		continueOnFail: true,
	});
	return result.items[0]!;
}

const PNG_HEAD = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe('a storage answer that is not the file is no file', () => {
	it.each([
		['a redirect that names no address (HTTP 302 without Location)', 302],
		['"not modified" (HTTP 304)', 304],
		['"no content" (HTTP 204)', 204],
		['"multiple choices" (HTTP 300) without Location', 300],
	])('%s fails the item, naming the status; nothing is passed on as the file', async (_name, status) => {
		storageAnswer = (_req, res) => {
			res.writeHead(status, { 'Content-Type': 'image/png' });
			res.end(status === 204 || status === 304 ? undefined : Buffer.concat([PNG_HEAD, Buffer.from('<html>moved</html>')]));
		};
		const item = await downloadOutput();
		expect(item.binary).toBeUndefined();
		expect(String(item.json.error)).toMatch(
			new RegExp(`^Could not download output file "out\\.png" \\(HTTP ${status}\\): the host answered`),
		);
		expect(storage.seen).toHaveLength(1);
	});

	it('a part of the file (HTTP 206, Content-Range of 16 bytes of 1000) fails the item: nothing partial is passed on', async () => {
		storageAnswer = (_req, res) => {
			res.writeHead(206, { 'Content-Type': 'image/png', 'Content-Range': 'bytes 0-15/1000' });
			res.end(Buffer.concat([PNG_HEAD, Buffer.alloc(8)]));
		};
		const item = await downloadOutput();
		expect(item.binary).toBeUndefined();
		expect(String(item.json.error)).toBe('Could not download output file "out.png" (HTTP 206): the host sent only a part of the file');
	});

	it('a body shorter than its Content-Length (the connection closed early) is no file', async () => {
		storageAnswer = (_req, res) => {
			res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': '1000' });
			res.write(PNG_HEAD);
			setImmediate(() => res.destroy());
		};
		const item = await downloadOutput();
		expect(item.binary).toBeUndefined();
		expect(String(item.json.error)).toMatch(/broke off/);
	});

	it('a chunked body cut before its last chunk (the connection closed early) is no file', async () => {
		storageAnswer = (_req, res) => {
			res.writeHead(200, { 'Content-Type': 'image/png' });
			res.write(PNG_HEAD);
			setImmediate(() => res.socket?.destroy());
		};
		const item = await downloadOutput();
		expect(item.binary).toBeUndefined();
		expect(String(item.json.error)).toMatch(/broke off/);
	});

	it('a host that compresses when offered, and whose answer is cut short, passes no file', async () => {
		const file = Buffer.concat([PNG_HEAD, randomBytes(64 * 1024)]);
		storageAnswer = (req, res) => {
			// As CDNs do: compressed only for a client that says it takes it. n8n's client would unpack
			// a gzip body cut short (its Content-Length that of the cut part) as a smaller file.
			if (/gzip/.test(String(req.headers['accept-encoding']))) {
				const cut = gzipSync(file).subarray(0, 32 * 1024);
				res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Encoding': 'gzip', 'Content-Length': String(cut.length) });
				res.end(cut);
				return;
			}
			res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': String(file.length) });
			res.write(file.subarray(0, 32 * 1024));
			setImmediate(() => res.destroy());
		};
		const item = await downloadOutput();
		expect(item.binary).toBeUndefined();
		expect(String(item.json.error)).toMatch(/^The download of output file "out\.png" broke off before the whole file arrived/);
	});
});
