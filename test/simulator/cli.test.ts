/**
 * `npm run simulator` as a newcomer runs it: one JSON line with every URL and secret, then a
 * readable line per request, and a standard text-to-image graph served end to end.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import axios from 'axios';
import WebSocket from 'ws';

import { spawnCli } from './support/cli-process';

const ROOT = join(__dirname, '..', '..');

interface Banner {
	baseUrl: string;
	wsBaseUrl: string;
	registryUrl: string;
	storageUrl: string;
	apiKey: string;
	accessToken: string;
}

interface Cli<T> {
	child: ChildProcessWithoutNullStreams;
	banner: T;
	/** Everything written to stderr so far (the request log). */
	log(): string;
}

/** Starts `npm run simulator -- ...args` as a child process and reads its first line. */
async function startCli<T>(args: string[]): Promise<Cli<T>> {
	const child = spawnCli(args);
	let logLines = '';
	child.stderr.on('data', (chunk: Buffer) => (logLines += chunk.toString()));
	const banner = await new Promise<T>((resolve, reject) => {
		let out = '';
		child.stdout.on('data', (chunk: Buffer) => {
			out += chunk.toString();
			const newline = out.indexOf('\n');
			if (newline !== -1) resolve(JSON.parse(out.slice(0, newline)) as T);
		});
		child.on('exit', (code) => reject(new Error(`simulator exited with ${code}: ${logLines}`)));
	});
	return { child, banner, log: () => logLines };
}

async function stopCli(cli: Cli<unknown> | undefined): Promise<void> {
	if (!cli) return;
	const exited = new Promise((resolve) => cli.child.on('exit', resolve));
	cli.child.kill('SIGTERM');
	await exited;
}

describe('npm run simulator', () => {
	let cli: Cli<Banner>;
	let banner: Banner;

	beforeAll(async () => {
		cli = await startCli<Banner>(['--port', '0', '--node-ms', '5']);
		banner = cli.banner;
	}, 30000);

	afterAll(() => stopCli(cli));

	it('prints one JSON line with the URLs and the default secrets', () => {
		expect(banner).toEqual({
			baseUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
			wsBaseUrl: expect.stringMatching(/^ws:\/\/127\.0\.0\.1:\d+$/),
			registryUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
			storageUrl: expect.stringMatching(/^http:\/\/localhost:\d+$/),
			apiKey: 'sim-api-key',
			accessToken: 'sim-access-token',
		});
	});

	it('serves the standard text-to-image graph: executed image, 302 view, storage refusing credentials', async () => {
		const graph = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/txt2img-api.json'), 'utf8'));
		const socket = new WebSocket(`${banner.wsBaseUrl}/ws?clientId=cli-test&token=${banner.apiKey}`);
		const messages: Array<{ type: string; data: Record<string, unknown> }> = [];
		socket.on('message', (data, isBinary) => {
			if (!isBinary) messages.push(JSON.parse(data.toString()));
		});
		await new Promise((resolve) => socket.once('open', resolve));

		const submit = await axios.post(`${banner.baseUrl}/api/prompt`, { prompt: graph }, { headers: { 'X-API-Key': banner.apiKey } });
		const promptId = submit.data.prompt_id as string;
		await new Promise<void>((resolve, reject) => {
			const deadline = Date.now() + 10000;
			const check = () => {
				if (messages.some((m) => m.type === 'execution_success' && m.data.prompt_id === promptId)) return resolve();
				if (Date.now() > deadline) return reject(new Error('no execution_success'));
				setTimeout(check, 20);
			};
			check();
		});
		socket.close();

		const executed = messages.find((m) => m.type === 'executed' && m.data.prompt_id === promptId);
		const image = (executed?.data.output as { images: Array<{ filename: string; subfolder?: string; type?: string }> }).images[0]!;
		expect(image.filename).toMatch(/^lighthouse.*\.png$/);

		const view = await axios.get(`${banner.baseUrl}/api/view`, {
			params: { filename: image.filename, subfolder: image.subfolder ?? '', type: image.type ?? 'output' },
			headers: { 'X-API-Key': banner.apiKey },
			maxRedirects: 0,
			validateStatus: () => true,
		});
		expect(view.status).toBe(302);
		const signed = view.headers.location as string;
		expect(signed.startsWith(banner.storageUrl)).toBe(true);

		const refused = await axios.get(signed, { headers: { 'X-API-Key': banner.apiKey }, validateStatus: () => true });
		expect(refused.status).toBeGreaterThanOrEqual(400);
		const served = await axios.get(signed, { responseType: 'arraybuffer' });
		expect(served.status).toBe(200);
		expect(Buffer.from(served.data).subarray(1, 4).toString()).toBe('PNG');

		// The readable request log names what was asked for, and the secret never appears in it.
		const logLines = cli.log();
		expect(logLines).toMatch(/POST \/api\/prompt → 200/);
		expect(logLines).toMatch(/GET \/api\/view → 302/);
		expect(logLines).not.toContain(banner.apiKey);
	});
});

describe('npm run simulator -- --flavour self-hosted', () => {
	interface SelfHostedBanner {
		flavour: string;
		baseUrl: string;
		wsUrl: string;
		proxyAuth: { header: string; value: string };
	}
	let cli: Cli<SelfHostedBanner>;

	beforeAll(async () => {
		cli = await startCli<SelfHostedBanner>(['--flavour', 'self-hosted', '--node-ms', '2', '--proxy-header', 'X-Proxy-Token: cli-secret']);
	}, 30000);

	afterAll(() => stopCli(cli));

	it('says the flavour and gives the server URL, the socket URL and what the proxy wants (no API key)', () => {
		expect(cli.banner).toEqual({
			flavour: 'self-hosted',
			baseUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
			wsBaseUrl: expect.stringMatching(/^ws:\/\/127\.0\.0\.1:\d+$/),
			wsUrl: expect.stringMatching(/^ws:\/\/127\.0\.0\.1:\d+\/ws$/),
			registryUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
			storageUrl: expect.stringMatching(/^http:\/\/localhost:\d+$/),
			accessToken: 'sim-access-token',
			proxyAuth: { header: 'X-Proxy-Token', value: 'cli-secret' },
		});
	});

	it('runs the standard graph: history, then the file straight from /view; 401 without the proxy header', async () => {
		const http = axios.create({ baseURL: cli.banner.baseUrl, headers: { 'X-Proxy-Token': 'cli-secret' }, validateStatus: () => true });
		expect((await axios.get(`${cli.banner.baseUrl}/queue`, { validateStatus: () => true })).status).toBe(401);
		const graph = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/txt2img-api.json'), 'utf8'));
		const promptId = (await http.post('/prompt', { prompt: graph })).data.prompt_id as string;
		let entry: { outputs: Record<string, { images: Array<Record<string, string>> }> } | undefined;
		for (const until = Date.now() + 10000; !entry && Date.now() < until; await new Promise((r) => setTimeout(r, 20))) {
			entry = (await http.get(`/history/${promptId}`)).data[promptId];
		}
		const view = await http.get('/view', { params: entry?.outputs['9'].images[0], responseType: 'arraybuffer' });
		expect(view.status).toBe(200);
		expect(Buffer.from(view.data).subarray(1, 4).toString()).toBe('PNG');
		// The log line comes through the child's stderr a moment later.
		for (const until = Date.now() + 5000; !/GET \/view → 200/.test(cli.log()) && Date.now() < until;)
			await new Promise((r) => setTimeout(r, 10));
		expect(cli.log()).toMatch(/GET \/view → 200/);
		expect(cli.log()).not.toContain('cli-secret');
	});
});
