/**
 * `npm run simulator` as a newcomer runs it: one JSON line with every URL and secret, then a
 * readable line per request, and a standard text-to-image graph served end to end.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import axios from 'axios';
import WebSocket from 'ws';

const ROOT = join(__dirname, '..', '..');

interface Banner {
	baseUrl: string;
	wsBaseUrl: string;
	registryUrl: string;
	storageUrl: string;
	apiKey: string;
	accessToken: string;
}

describe('npm run simulator', () => {
	let child: ChildProcessWithoutNullStreams;
	let banner: Banner;
	let logLines = '';

	beforeAll(async () => {
		child = spawn(
			process.execPath,
			[join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, 'simulator/cli.ts'), '--port', '0', '--node-ms', '5'],
			{
				cwd: ROOT,
			},
		);
		child.stderr.on('data', (chunk: Buffer) => (logLines += chunk.toString()));
		banner = await new Promise<Banner>((resolve, reject) => {
			let out = '';
			child.stdout.on('data', (chunk: Buffer) => {
				out += chunk.toString();
				const newline = out.indexOf('\n');
				if (newline !== -1) resolve(JSON.parse(out.slice(0, newline)) as Banner);
			});
			child.on('exit', (code) => reject(new Error(`simulator exited with ${code}: ${logLines}`)));
		});
	}, 30000);

	afterAll(async () => {
		const exited = new Promise((resolve) => child.on('exit', resolve));
		child.kill('SIGTERM');
		await exited;
	});

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
		expect(logLines).toMatch(/POST \/api\/prompt → 200/);
		expect(logLines).toMatch(/GET \/api\/view → 302/);
		expect(logLines).not.toContain(banner.apiKey);
	});
});
