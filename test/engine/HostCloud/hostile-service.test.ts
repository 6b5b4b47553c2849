/**
 * Host Cloud against a cloud that misbehaves over the WebSocket and /api/view: it echoes the API
 * key in a job's outputs (in several encodings), hands out a file address that carries the key,
 * or finishes a job with 300 output files. No secret may reach an item, a message or the
 * storage host, and the node must not open a request per file all at once.
 */
import type { ServerResponse } from 'node:http';

import { EngineHarness } from '../../support/engine';
import { txt2img, FAST_WAIT } from '../../support/cloud';
import {
	echoForms,
	redirectTo,
	startHostileCloud,
	startHostileService,
	startRecordingStorage,
	type HostileCloudOptions,
	type HostileService,
	type SeenRequest,
} from '../../support/hostile-service';
import { hostCloudApiCredential } from '../../support/credential-fixtures';

const API_KEY = 'cloud-key-hostile-socket-0123456789';

const harness = new EngineHarness();
let storage: HostileService;
let cloud: HostileService;
let credential: string;
const behaviour: Pick<HostileCloudOptions, 'output' | 'view'> = { output: () => ({}) };

beforeAll(async () => {
	storage = await startRecordingStorage();
	cloud = await startHostileCloud({
		storageUrl: storage.url,
		output: () => behaviour.output(),
		view: (req, res) => (behaviour.view ? behaviour.view(req, res) : defaultView(req, res)),
	});
	credential = harness.addCredential('hostCloudApi', hostCloudApiCredential({ apiKey: API_KEY, baseUrl: cloud.url }));
});

afterEach(() => {
	cloud.seen.length = 0;
	storage.seen.length = 0;
	behaviour.view = undefined;
});

afterAll(async () => {
	await cloud.close();
	await storage.close();
});

function defaultView(req: SeenRequest, res: ServerResponse): void {
	const name = new URL(req.url, 'http://x').searchParams.get('filename') ?? '';
	redirectTo(res, `${storage.url}/files/${encodeURIComponent(name)}?signature=storage-signature`);
}

const execute = (parameters: Record<string, unknown> = {}) =>
	harness.runNode({
		type: 'hostCloud',
		parameters: {
			resource: 'workflow',
			operation: 'execute',
			workflow: JSON.stringify(txt2img()),
			waitOptions: FAST_WAIT,
			...parameters,
		} as never,
		credentials: { hostCloudApi: credential },
	});

function expectNoSecret(value: unknown): void {
	const text = JSON.stringify(value);
	for (const [form, echoed] of Object.entries(echoForms(API_KEY))) {
		expect({ form, found: text.includes(echoed.slice(2, -2)) }).toEqual({ form, found: false });
	}
}

describe('what the WebSocket says is redacted before it reaches an item', () => {
	it('an `executed` output echoing the API key (as is, URL-encoded, JSON-escaped, Base64) leaves no trace of it', async () => {
		const forms = echoForms(API_KEY);
		behaviour.output = () => ({
			images: [{ filename: 'echo.png', subfolder: '', type: 'output', note: `key ${forms.plain}`, encoded: forms.urlEncoded }],
			text: [`{"key":"${forms.jsonEscaped}"}`, `Basic ${Buffer.from(`user:${API_KEY}`).toString('base64')}`, forms.base64Url],
		});
		const result = await execute({ additionalFields: { includeRawOutputs: true } });
		expect(result.status).toBe('success');
		const json = result.items[0]!.json as Record<string, any>;
		expect(json.images).toHaveLength(1);
		expect(json.images[0]).toMatchObject({ filename: 'echo.png', note: 'key ***', encoded: '***' });
		expect(json.outputs['9'].text[0]).toBe('{"key":"***"}');
		expectNoSecret(result.run.data);
	});
});

describe('a file address that carries a secret is refused', () => {
	it.each([
		['as is', (key: string) => key],
		['URL-encoded', (key: string) => encodeURIComponent(key)],
		['Base64', (key: string) => Buffer.from(key).toString('base64')],
		[
			'with every byte percent-encoded',
			(key: string) => [...Buffer.from(key)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join(''),
		],
		['with only its dashes as %2D', (key: string) => key.replace(/-/g, '%2D')],
		['percent-encoded twice', (key: string) => encodeURIComponent(encodeURIComponent(key)).replace(/-/g, '%252D')],
	])('a Location with the API key %s: the item fails, nothing is fetched, and the key is not shown', async (_form, encode) => {
		behaviour.output = () => ({ images: [{ filename: 'a.png', subfolder: '', type: 'output' }] });
		behaviour.view = (_req, res) => redirectTo(res, `${storage.url}/files/a.png?token=${encode(API_KEY)}`);
		const result = await execute({ downloadFiles: true });
		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toMatch(
			/redirect \(HTTP 302\) while getting the address of output file "a\.png" of job hostile-\d+ whose address contains a secret of the credential; it was not used, and nothing was fetched/,
		);
		expect(storage.seen).toHaveLength(0);
		expectNoSecret(result.run.data);
	});
});

describe('a storage host that redirects a download in a loop', () => {
	it('fails the item saying so, after one chain of redirects, never retried as a network failure', async () => {
		const loop = await startHostileService((req, res) => redirectTo(res, `/again${req.url.length}`));
		try {
			behaviour.output = () => ({ images: [{ filename: 'a.png', subfolder: '', type: 'output' }] });
			behaviour.view = (_req, res) => redirectTo(res, `${loop.url}/files/a.png?signature=s`);
			const result = await execute({ downloadFiles: true });
			expect(result.status).toBe('error');
			expect(result.error('Node')?.message).toMatch(
				/^Could not download output file "a\.png" of job hostile-\d+: the storage host redirected the download too many times \(a redirect loop\), so nothing was downloaded/,
			);
			// One chain (n8n follows at most 21 redirects), not four.
			expect(loop.seen.length).toBeGreaterThan(1);
			expect(loop.seen.length).toBeLessThanOrEqual(22);
			expect(cloud.seen.filter((req) => req.url.startsWith('/api/view'))).toHaveLength(1);
		} finally {
			await loop.close();
		}
	});
});

describe('300 output files', () => {
	it('are looked up a few at a time, with every URL in its place', async () => {
		// Fifty times the window of 6: as many as it takes to show the window holds. Each lookup goes
		// through n8n's request helper at a few ms of CPU; 1,500 of them were 3 % of the suite's CPU.
		const count = 300;
		behaviour.output = () => ({
			images: Array.from({ length: count }, (_, i) => ({ filename: `f${i}.png`, subfolder: '', type: 'output' })),
		});
		let inFlight = 0;
		let most = 0;
		behaviour.view = (req, res) => {
			inFlight++;
			most = Math.max(most, inFlight);
			setTimeout(() => {
				inFlight--;
				defaultView(req, res);
			}, 2);
		};
		const result = await execute();
		expect(result.status).toBe('success');
		const images = (result.items[0]!.json as { images: Array<{ filename: string; url: string }> }).images;
		expect(images).toHaveLength(count);
		images.forEach((image, i) => {
			expect(image.filename).toBe(`f${i}.png`);
			expect(image.url).toBe(`${storage.url}/files/f${i}.png?signature=storage-signature`);
		});
		expect(cloud.seen.filter((req) => req.url.startsWith('/api/view'))).toHaveLength(count);
		expect(most).toBeGreaterThan(1);
		expect(most).toBeLessThanOrEqual(6);
		// Real lookups through n8n's request helper are CPU-bound: 1,500 took over 30 s on two cores with
		// other processes busy beside the suite. The bound is for a hang, not a speed.
	}, 120_000);
});

describe('several jobs in one run, their files downloaded', () => {
	it('look files up and download them at most 6 requests at a time in all, across the jobs', async () => {
		const jobs = 4;
		const filesPerJob = 30;
		behaviour.output = () => ({
			images: Array.from({ length: filesPerJob }, (_, i) => ({ filename: `g${i}.png`, subfolder: '', type: 'output' })),
		});
		// Lookups (at the cloud) and downloads (at the storage) counted together while each is answered.
		let inFlight = 0;
		let most = 0;
		const answerLater = (res: ServerResponse, answer: () => void) => {
			inFlight++;
			most = Math.max(most, inFlight);
			res.on('close', () => inFlight--);
			setTimeout(answer, 5);
		};
		const counting = await startHostileService((_req, res) =>
			answerLater(res, () => {
				res.writeHead(200, { 'Content-Type': 'image/png' });
				res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]));
			}),
		);
		behaviour.view = (req, res) =>
			answerLater(res, () => {
				const name = new URL(req.url, 'http://x').searchParams.get('filename') ?? '';
				redirectTo(res, `${counting.url}/files/${encodeURIComponent(name)}?signature=storage-signature`);
			});
		try {
			const result = await harness.runNode(
				{
					type: 'hostCloud',
					parameters: { resource: 'workflow', operation: 'execute', workflow: JSON.stringify(txt2img()), waitOptions: FAST_WAIT } as never,
					credentials: { hostCloudApi: credential },
				},
				Array.from({ length: jobs }, (_, index) => ({ json: { index } })),
			);
			expect(result.status).toBe('success');
			expect(result.items).toHaveLength(jobs);
			expect(result.items.every((item) => Object.keys(item.binary ?? {}).length === filesPerJob)).toBe(true);
			expect(cloud.seen.filter((req) => req.url.startsWith('/api/view'))).toHaveLength(jobs * filesPerJob);
			expect(counting.seen).toHaveLength(jobs * filesPerJob);
			expect(most).toBeGreaterThan(1);
			expect(most).toBeLessThanOrEqual(6);
		} finally {
			await counting.close();
		}
	}, 120_000);
});

describe('a storage host that breaks off a file', () => {
	it('fails the item with a message that says the download broke off, and keeps nothing partial', async () => {
		const broken = await startHostileService((_req, res) => {
			res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': '100000' });
			res.write(Buffer.alloc(5000, 1), () => res.destroy());
		});
		behaviour.view = (_req, res) => redirectTo(res, `${broken.url}/files/cut.png?signature=storage-signature`);
		try {
			const result = await harness.runNode({
				type: 'hostCloud',
				parameters: { resource: 'file', operation: 'downloadOutput', filename: 'cut.png' } as never,
				credentials: { hostCloudApi: credential },
			});
			expect(result.status).toBe('error');
			expect(result.error('Node')?.message).toMatch(
				/^The download of output file "cut\.png" broke off before the whole file arrived: the storage host closed the connection early$/,
			);
			expect(result.items).toEqual([]);
		} finally {
			await broken.close();
		}
	});
});
