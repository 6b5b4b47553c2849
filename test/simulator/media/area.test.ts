/**
 * The simulator's media proxy as a client sees it: image and video tasks over time, their status
 * endpoints and notifications, every validation bound of the spec, and the streamed music endpoint.
 */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';

import axios, { type AxiosInstance, type AxiosResponse } from 'axios';

import { picturePng } from '../../../simulator/shared/png';
import { isLoopbackUrl } from '../../../simulator/media/notify';
import type { Simulator } from '../../../simulator/server';
import { decodePng } from '../../support/png';
import { useSimulator } from '../support/simulator';

const IMAGING = '/proxy/imaging/v1/ai';
const TINY_PNG = picturePng(2, 2).toString('base64');
const IMAGE_URL = 'https://images.example.com/in.png';
const PNG_SIGNATURE = '89504e470d0a1a0a';

let sim: Simulator;
let api: AxiosInstance;
let otherApi: AxiosInstance;
let anonymous: AxiosInstance;

const client = (baseURL: string, token?: string): AxiosInstance =>
	axios.create({
		baseURL,
		proxy: false,
		validateStatus: () => true,
		headers: token ? { Authorization: `Bearer ${token}` } : {},
	});

useSimulator(
	{
		imageStepMs: 10,
		videoStepMs: 10,
		notifyAttempts: 4,
		notifyBackoffMs: 10,
		extraAccounts: [{ id: 'other' }],
	},
	(started) => {
		sim = started;
		api = client(sim.registryUrl, sim.accessToken);
		otherApi = client(sim.registryUrl, sim.accounts[1].accessToken);
		anonymous = client(sim.registryUrl);
	},
);

// ---- helpers ----------------------------------------------------------------------------------

// Answers are checked field by field with expect(), so a loose type keeps the assertions readable.
type Json = Record<string, any>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls an image status path until a final status; returns the last answer and every status seen. */
async function pollImage(kind: string, taskId: string, field = 'status'): Promise<{ last: Json; seen: string[] }> {
	const seen: string[] = [];
	for (let i = 0; i < 400; i++) {
		const res = await api.get(`${IMAGING}/${kind}/${taskId}`);
		expect(res.status).toBe(200);
		const status = res.data.data[field] as string;
		if (seen[seen.length - 1] !== status) seen.push(status);
		if (status === 'COMPLETED' || status === 'FAILED') return { last: res.data, seen };
		await sleep(2);
	}
	throw new Error(`image task ${taskId} never finished`);
}

async function pollVideo(taskId: string): Promise<{ last: Json; seen: string[] }> {
	const seen: string[] = [];
	for (let i = 0; i < 400; i++) {
		const res = await api.get(`/proxy/video/tasks/${taskId}/creations`);
		expect(res.status).toBe(200);
		const state = res.data.state as string;
		if (seen[seen.length - 1] !== state) seen.push(state);
		if (state === 'success' || state === 'failed') return { last: res.data, seen };
		await sleep(2);
	}
	throw new Error(`video task ${taskId} never finished`);
}

/** `seen` is an in-order subset of `all` (a poller may miss short-lived states, never reorder them). */
function expectInOrder(seen: string[], all: string[]): void {
	const positions = seen.map((s) => all.indexOf(s));
	expect(positions.every((p) => p >= 0)).toBe(true);
	expect([...positions].sort((a, b) => a - b)).toEqual(positions);
}

/** Fetches a signed URL the way a client must: no credential header. */
async function download(url: string): Promise<AxiosResponse<Buffer>> {
	return axios.get<Buffer>(url, { responseType: 'arraybuffer', proxy: false, validateStatus: () => true });
}

interface Receiver {
	url: string;
	received: Array<{ body: Json; status: number; at: number }>;
	close(): Promise<void>;
}

/** A loopback webhook receiver; `answer(n)` picks the status of the n-th request (1-based). */
async function startReceiver(answer: (n: number, body: Json) => number = () => 200): Promise<Receiver> {
	const received: Receiver['received'] = [];
	const server: Server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
			const status = answer(received.length + 1, body);
			received.push({ body, status, at: Date.now() });
			res.writeHead(status, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ ok: status < 300 }));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/hook`,
		received,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return port;
}

function multipart(fields: Record<string, string>): { body: Buffer; headers: Record<string, string> } {
	const boundary = `----simtest${Date.now()}`;
	const parts = Object.entries(fields).map(
		([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
	);
	return {
		body: Buffer.from(`${parts.join('')}--${boundary}--\r\n`),
		headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
	};
}

async function openMusic(fields: Record<string, string>): Promise<AxiosResponse<Readable>> {
	const { body, headers } = multipart(fields);
	return api.post<Readable>('/proxy/music/t2m/generate', body, { headers, responseType: 'stream' });
}

/** Polls every 10 ms until `field` reaches `last`; answers the first answer of each value of `field`, in order. */
async function distinctAnswers(read: () => Promise<Json>, field: string, last: string): Promise<Json[]> {
	const seen: Json[] = [];
	for (;;) {
		const answer = await read();
		if (seen[seen.length - 1]?.[field] !== answer[field]) seen.push(answer);
		if (answer[field] === last) return seen;
		await sleep(10);
	}
}

/** Reads an NDJSON stream line by line; broken lines are counted, not thrown. */
async function readNdjson(
	stream: Readable,
	onEvent: (event: Json) => void = () => undefined,
): Promise<{ events: Json[]; malformed: string[] }> {
	const events: Json[] = [];
	const malformed: string[] = [];
	for await (const line of createInterface({ input: stream, crlfDelay: Infinity })) {
		if (line === '') continue;
		let event: Json;
		try {
			event = JSON.parse(line) as Json;
		} catch {
			malformed.push(line);
			continue;
		}
		onEvent(event);
		if (event.type !== 'audio_chunk') events.push(event);
		else events.push({ type: 'audio_chunk', stream_index: event.stream_index, bytes: Buffer.from(event.data as string, 'base64') });
	}
	return { events, malformed };
}

/** Concatenated audio per stream_index. */
function assemble(events: Json[]): Map<number, Buffer> {
	const parts = new Map<number, Buffer[]>();
	for (const e of events.filter((x) => x.type === 'audio_chunk')) {
		const list = parts.get(e.stream_index as number) ?? [];
		list.push(e.bytes as Buffer);
		parts.set(e.stream_index as number, list);
	}
	return new Map([...parts].map(([i, list]) => [i, Buffer.concat(list)]));
}

function expectPlayableWav(wav: Buffer, sampleRate = 16000): void {
	expect(wav.toString('ascii', 0, 4)).toBe('RIFF');
	expect(wav.readUInt32LE(4)).toBe(wav.length - 8);
	expect(wav.toString('ascii', 8, 12)).toBe('WAVE');
	expect(wav.toString('ascii', 12, 16)).toBe('fmt ');
	expect(wav.readUInt32LE(16)).toBe(16);
	expect(wav.readUInt16LE(20)).toBe(1); // PCM
	expect(wav.readUInt16LE(22)).toBe(1); // mono
	expect(wav.readUInt32LE(24)).toBe(sampleRate);
	expect(wav.readUInt32LE(28)).toBe(sampleRate * 2);
	expect(wav.readUInt16LE(32)).toBe(2);
	expect(wav.readUInt16LE(34)).toBe(16);
	expect(wav.toString('ascii', 36, 40)).toBe('data');
	expect(wav.readUInt32LE(40)).toBe(wav.length - 44);
	// A tone, not silence: the first 1000 samples swing both ways with a clear amplitude.
	let min = 0;
	let max = 0;
	for (let i = 44; i + 1 < Math.min(wav.length, 44 + 2000); i += 2) {
		min = Math.min(min, wav.readInt16LE(i));
		max = Math.max(max, wav.readInt16LE(i));
	}
	expect(max).toBeGreaterThan(5000);
	expect(min).toBeLessThan(-5000);
}

/** Just the IHDR of a PNG of the given size: enough for the upscaler's pixel-limit check. */
function pngHeaderBase64(width: number, height: number): string {
	const header = Buffer.alloc(33);
	Buffer.from(PNG_SIGNATURE, 'hex').copy(header, 0);
	header.writeUInt32BE(13, 8);
	header.write('IHDR', 12, 'ascii');
	header.writeUInt32BE(width, 16);
	header.writeUInt32BE(height, 20);
	header[24] = 8;
	header[25] = 2;
	return header.toString('base64');
}

// ---- auth ---------------------------------------------------------------------------------------

describe('auth', () => {
	const endpoints: Array<[string, string, 'image' | 'video']> = [
		['POST', `${IMAGING}/image-relight`, 'image'],
		['POST', `${IMAGING}/image-upscaler`, 'image'],
		['GET', `${IMAGING}/image-upscaler/abc`, 'image'],
		['GET', `${IMAGING}/image-upscaler-precision-v2/abc`, 'image'],
		['POST', `${IMAGING}/image-style-transfer`, 'image'],
		['GET', `${IMAGING}/image-style-transfer/abc`, 'image'],
		['GET', `${IMAGING}/image-relight/abc`, 'image'],
		['POST', `${IMAGING}/skin-enhancer/creative`, 'image'],
		['GET', `${IMAGING}/skin-enhancer/abc`, 'image'],
		['POST', '/proxy/video/multiframe', 'video'],
		['POST', '/proxy/video/start-end2video', 'video'],
		['POST', '/proxy/video/extend', 'video'],
		['GET', '/proxy/video/tasks/abc/creations', 'video'],
		['POST', '/proxy/music/t2m/generate', 'image'],
	];

	test.each(endpoints)('%s %s answers 401 without a valid bearer token', async (method, path, shape) => {
		for (const http of [anonymous, client(sim.registryUrl, 'wrong-token'), client(sim.registryUrl, sim.apiKey)]) {
			const res = await http.request({ method, url: path, data: {} });
			expect(res.status).toBe(401);
			if (shape === 'image') expect(res.data).toEqual({ error: 'unauthorized', message: expect.stringContaining('Authorization: Bearer') });
			else expect(res.data).toEqual({ message: expect.stringContaining('Authorization: Bearer'), details: 'unauthorized' });
		}
		expect(sim.proxy.imageTasks.size + sim.proxy.videoTasks.size).toBe(0);
	});
});

// ---- image tasks ----------------------------------------------------------------------------------

describe('image tasks', () => {
	const submits: Array<[string, string, string, Json, boolean]> = [
		['relight', 'image-relight', `${IMAGING}/image-relight`, { image: TINY_PNG, style: 'clean' }, false],
		['upscaler', 'image-upscaler', `${IMAGING}/image-upscaler`, { image: TINY_PNG, scale_factor: '4x' }, false],
		['style transfer', 'image-style-transfer', `${IMAGING}/image-style-transfer`, { image: TINY_PNG, reference_image: IMAGE_URL }, true],
		['skin enhancer', 'skin-enhancer', `${IMAGING}/skin-enhancer/creative`, { image: IMAGE_URL, sharpen: 20 }, false],
	];

	test.each(submits)('%s: submit → status polls → COMPLETED with a signed PNG', async (_name, kind, path, body, unwrapped) => {
		const submit = await api.post(path, body);
		expect(submit.status).toBe(200);
		const fields = unwrapped ? submit.data : submit.data.data;
		expect(unwrapped ? submit.data.data : undefined).toBeUndefined();
		expect(fields).toEqual({ generated: [], status: 'CREATED', task_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });

		const { last, seen } = await pollImage(kind, fields.task_id);
		expectInOrder(seen, ['CREATED', 'IN_PROGRESS', 'COMPLETED']);
		expect(last).toEqual({ data: { generated: [expect.any(String)], status: 'COMPLETED', task_id: fields.task_id } });
		expect(sim.proxy.imageTasks.get(fields.task_id)?.history.map((h) => h.status)).toEqual(['CREATED', 'IN_PROGRESS', 'COMPLETED']);

		const url = last.data.generated[0] as string;
		expect(url.startsWith(sim.storageUrl)).toBe(true);
		const file = await download(url);
		expect(file.status).toBe(200);
		expect(file.headers['content-type']).toBe('image/png');
		expect(Buffer.from(file.data).subarray(0, 8).toString('hex')).toBe(PNG_SIGNATURE);
		// A picture to look at: 512×512 with many colours, not a tiny gradient.
		const picture = decodePng(Buffer.from(file.data));
		expect([picture.width, picture.height]).toEqual([512, 512]);
		expect(picture.colours).toBeGreaterThan(1000);
	});

	test('a task goes CREATED → IN_PROGRESS → COMPLETED, generated only at the end', async () => {
		// Steps far longer than a poll, so a busy machine cannot skip a status between two polls.
		sim.options.imageStepMs = 300;
		const { data } = await api.post(`${IMAGING}/image-upscaler`, { image: TINY_PNG });
		const id = data.data.task_id as string;
		const seen = await distinctAnswers(
			async () => (await api.get(`${IMAGING}/image-upscaler/${id}`)).data.data as Json,
			'status',
			'COMPLETED',
		);
		expect(seen.map((answer) => answer.status)).toEqual(['CREATED', 'IN_PROGRESS', 'COMPLETED']);
		expect(seen[1]).toEqual({ generated: [], status: 'IN_PROGRESS', task_id: id });
		expect(seen[2]!.generated).toHaveLength(1);
	});

	test('precision upscaler V2 tasks exist through the seed hook and are polled on their own path', async () => {
		const task = sim.proxy.seedImageTask('image-upscaler-precision-v2');
		const { last, seen } = await pollImage('image-upscaler-precision-v2', task.taskId);
		expectInOrder(seen, ['CREATED', 'IN_PROGRESS', 'COMPLETED']);
		expect(last.data.generated).toHaveLength(1);

		const done = sim.proxy.seedImageTask('image-upscaler-precision-v2', { status: 'COMPLETED' });
		const res = await api.get(`${IMAGING}/image-upscaler-precision-v2/${done.taskId}`);
		expect(res.data.data).toEqual({ generated: [expect.stringContaining('/o/proxy/')], status: 'COMPLETED', task_id: done.taskId });

		// Its submit is not in the spec, so there is none.
		expect((await api.post(`${IMAGING}/image-upscaler-precision-v2`, { image: TINY_PNG })).status).toBe(404);
	});

	test('unknown ids, ids of another kind and tasks of another account answer 404 {error, message}', async () => {
		const { data } = await api.post(`${IMAGING}/image-upscaler`, { image: TINY_PNG });
		const id = data.data.task_id as string;
		for (const kind of ['image-upscaler', 'image-upscaler-precision-v2', 'image-style-transfer', 'image-relight', 'skin-enhancer']) {
			const unknown = await api.get(`${IMAGING}/${kind}/00000000-0000-4000-8000-000000000000`);
			expect(unknown.status).toBe(404);
			expect(unknown.data).toEqual({ error: 'not_found', message: expect.stringContaining('00000000-0000-4000-8000-000000000000') });
		}
		for (const kind of ['image-style-transfer', 'image-relight', 'skin-enhancer', 'image-upscaler-precision-v2']) {
			expect((await api.get(`${IMAGING}/${kind}/${id}`)).status).toBe(404);
		}
		expect((await otherApi.get(`${IMAGING}/image-upscaler/${id}`)).status).toBe(404);
		expect((await api.get(`${IMAGING}/image-upscaler/${id}`)).status).toBe(200);
	});

	test('statusField task_status renames the field in status answers, not in submit answers', async () => {
		sim.proxy.statusField = 'task_status';
		const submit = await api.post(`${IMAGING}/image-relight`, { image: TINY_PNG });
		expect(submit.data.data.status).toBe('CREATED');
		const { last } = await pollImage('image-relight', submit.data.data.task_id, 'task_status');
		expect(last.data).toEqual({ generated: [expect.any(String)], task_status: 'COMPLETED', task_id: submit.data.data.task_id });
		expect(last.data.status).toBeUndefined();
		sim.reset();
		expect(sim.proxy.statusField).toBe('status');
	});

	test('failNextTask makes the next task end FAILED with no images, then is used up', async () => {
		sim.proxy.failNextTask('upstream model crashed');
		const failing = await api.post(`${IMAGING}/skin-enhancer/creative`, { image: TINY_PNG });
		const { last, seen } = await pollImage('skin-enhancer', failing.data.data.task_id);
		expectInOrder(seen, ['CREATED', 'IN_PROGRESS', 'FAILED']);
		expect(last.data).toEqual({ generated: [], status: 'FAILED', task_id: failing.data.data.task_id });

		const next = await api.post(`${IMAGING}/skin-enhancer/creative`, { image: TINY_PNG });
		expect((await pollImage('skin-enhancer', next.data.data.task_id)).last.data.status).toBe('COMPLETED');
	});
});

// ---- video tasks ----------------------------------------------------------------------------------

const frames = (n: number) => Array.from({ length: n }, (_, i) => ({ key_image: IMAGE_URL, duration: 2, prompt: `frame ${i}` }));

describe('video tasks', () => {
	const submits: Array<[string, string, Json, string[]]> = [
		[
			'multiframe',
			'/proxy/video/multiframe',
			{ model: 'videoq2-turbo', start_image: IMAGE_URL, image_settings: frames(3), payload: 'ref-1', resolution: '1080p' },
			['image_settings', 'model', 'payload', 'resolution', 'start_image'],
		],
		[
			'start-end2video',
			'/proxy/video/start-end2video',
			{ model: 'videoq3-pro', images: [IMAGE_URL], duration: 12, prompt: 'a cat surfing', seed: 42, payload: 'ref-2' },
			[
				'aspect_ratio',
				'bgm',
				'duration',
				'images',
				'model',
				'movement_amplitude',
				'off_peak',
				'payload',
				'prompt',
				'resolution',
				'seed',
				'style',
				'watermark',
			],
		],
		[
			'extend',
			'/proxy/video/extend',
			{ model: 'videoq2-pro', video_creation_id: 'c-1', video_url: 'https://videos.example.com/a.mp4', prompt: 'keep going' },
			['duration', 'model', 'payload', 'prompt', 'resolution', 'video_creation_id', 'video_url'],
		],
	];

	test.each(submits)('%s: submit → created, then queueing → processing → success with creations', async (_name, path, body, echoed) => {
		const submit = await api.post(path, body);
		expect(submit.status).toBe(200);
		const answer = submit.data as Json;
		expect(answer).toMatchObject({ task_id: expect.stringMatching(/^\d+$/), state: 'created', credits: expect.any(Number) });
		expect(Number.isInteger(answer.credits)).toBe(true);
		expect(new Date(answer.created_at as string).toISOString()).toBe(answer.created_at);
		for (const name of echoed) expect(answer).toHaveProperty(name);
		for (const [name, value] of Object.entries(body)) expect(answer[name]).toEqual(value);

		const { last, seen } = await pollVideo(answer.task_id);
		expectInOrder(seen, ['created', 'queueing', 'processing', 'success']);
		expect(sim.proxy.videoTasks.get(answer.task_id)?.history.map((h) => h.state)).toEqual(['created', 'queueing', 'processing', 'success']);
		expect(last).toEqual({
			task_id: answer.task_id,
			state: 'success',
			err_code: '',
			credits: answer.credits,
			creations: [{ id: expect.any(String), url: expect.any(String), cover_url: expect.any(String) }],
		});
		const video = await download(last.creations[0].url);
		expect(video.status).toBe(200);
		expect(video.headers['content-type']).toBe('video/mp4');
		expect(Buffer.from(video.data).toString('ascii', 4, 8)).toBe('ftyp');
		const cover = await download(last.creations[0].cover_url);
		expect(Buffer.from(cover.data).subarray(0, 8).toString('hex')).toBe(PNG_SIGNATURE);
	});

	test('creations stay empty while the task runs', async () => {
		sim.options.videoStepMs = 300;
		const { data } = await api.post('/proxy/video/extend', { model: 'videoq2-turbo' });
		const seen = await distinctAnswers(
			async () => (await api.get(`/proxy/video/tasks/${data.task_id}/creations`)).data as Json,
			'state',
			'success',
		);
		expect(seen.map((answer) => answer.state)).toEqual(['created', 'queueing', 'processing', 'success']);
		expect(seen[0]).toEqual({ task_id: data.task_id, state: 'created', err_code: '', credits: data.credits, creations: [] });
		expect(seen.slice(0, 3).every((answer) => answer.creations.length === 0)).toBe(true);
		expect(seen[3]!.creations.length).toBeGreaterThan(0);
	});

	test('defaults are echoed: extend duration 5, a random seed when omitted', async () => {
		const extend = await api.post('/proxy/video/extend', { model: 'videoq2-turbo' });
		expect(extend.data).toMatchObject({ duration: 5, resolution: '720p', payload: '' });
		const startEnd = await api.post('/proxy/video/start-end2video', { model: 'videoq2-pro', images: [IMAGE_URL] });
		expect(Number.isInteger(startEnd.data.seed)).toBe(true);
	});

	test('credits depend on model, duration and resolution; is_rec adds 10; all integers', async () => {
		const credits = async (body: Json) => {
			const res = await api.post('/proxy/video/start-end2video', { images: [IMAGE_URL], ...body });
			expect(res.status).toBe(200);
			expect(Number.isInteger(res.data.credits)).toBe(true);
			return res.data.credits as number;
		};
		const base = await credits({ model: 'videoq2-pro', duration: 4, resolution: '720p' });
		expect(await credits({ model: 'videoq2-pro', duration: 8, resolution: '720p' })).toBeGreaterThan(base);
		expect(await credits({ model: 'videoq2-pro', duration: 4, resolution: '1080p' })).toBeGreaterThan(base);
		expect(await credits({ model: 'videoq2-turbo', duration: 4, resolution: '720p' })).not.toBe(base);
		expect(await credits({ model: 'videoq2-pro', duration: 4, resolution: '720p', is_rec: true })).toBe(base + 10);
		expect(await credits({ model: 'videoq2-pro', duration: 4, resolution: '360p' })).toBeLessThan(base);
	});

	test('failNextTask makes the next video task end failed with err_code and no creations', async () => {
		sim.proxy.failNextTask('AuditSubmitIllegal');
		const { data } = await api.post('/proxy/video/multiframe', { model: 'videoq2-pro', start_image: IMAGE_URL, image_settings: frames(2) });
		const { last, seen } = await pollVideo(data.task_id);
		expectInOrder(seen, ['created', 'queueing', 'processing', 'failed']);
		expect(last).toEqual({ task_id: data.task_id, state: 'failed', err_code: 'AuditSubmitIllegal', credits: data.credits, creations: [] });
	});

	test('unknown ids and tasks of another account answer 404 {message, details}', async () => {
		const unknown = await api.get('/proxy/video/tasks/123/creations');
		expect(unknown.status).toBe(404);
		expect(unknown.data).toEqual({ message: expect.stringContaining('123'), details: 'not_found' });
		const { data } = await api.post('/proxy/video/extend', { model: 'videoq2-pro' });
		expect((await otherApi.get(`/proxy/video/tasks/${data.task_id}/creations`)).status).toBe(404);
	});
});

// ---- validation -----------------------------------------------------------------------------------

type Endpoint = 'relight' | 'upscaler' | 'style' | 'skin' | 'multiframe' | 'startEnd' | 'extend';

const ENDPOINTS: Record<Endpoint, { path: string; shape: 'image' | 'video'; base: Json }> = {
	relight: { path: `${IMAGING}/image-relight`, shape: 'image', base: { image: TINY_PNG } },
	upscaler: { path: `${IMAGING}/image-upscaler`, shape: 'image', base: { image: TINY_PNG } },
	style: { path: `${IMAGING}/image-style-transfer`, shape: 'image', base: { image: TINY_PNG, reference_image: TINY_PNG } },
	skin: { path: `${IMAGING}/skin-enhancer/creative`, shape: 'image', base: { image: TINY_PNG } },
	multiframe: {
		path: '/proxy/video/multiframe',
		shape: 'video',
		base: { model: 'videoq2-pro', start_image: IMAGE_URL, image_settings: frames(2) },
	},
	startEnd: { path: '/proxy/video/start-end2video', shape: 'video', base: { model: 'videoq2-pro', images: [IMAGE_URL] } },
	extend: { path: '/proxy/video/extend', shape: 'video', base: { model: 'videoq2-pro' } },
};

/** [endpoint, what, patch (undefined deletes a base field), offending field or null when accepted]. */
type Case = [Endpoint, string, Json, string | null];

const MAX_PAYLOAD = 1048576;
const emoji = '\u{1F3B5}'; // one character, two UTF-16 code units

const ok = (endpoint: Endpoint, what: string, patch: Json): Case => [endpoint, what, patch, null];
const bad = (endpoint: Endpoint, what: string, patch: Json, field: string): Case => [endpoint, what, patch, field];

/** One past each end rejected, each end accepted. */
function intBounds(endpoint: Endpoint, field: string, min: number, max: number, extra: Json = {}): Case[] {
	return [
		ok(endpoint, `${field}=${min}`, { ...extra, [field]: min }),
		ok(endpoint, `${field}=${max}`, { ...extra, [field]: max }),
		bad(endpoint, `${field}=${min - 1}`, { ...extra, [field]: min - 1 }, field),
		bad(endpoint, `${field}=${max + 1}`, { ...extra, [field]: max + 1 }, field),
		bad(endpoint, `${field} not an integer`, { ...extra, [field]: min + 0.5 }, field),
		bad(endpoint, `${field} as a string`, { ...extra, [field]: String(min) }, field),
	];
}

function enumCases(endpoint: Endpoint, field: string, values: string[], extra: Json = {}): Case[] {
	return [
		...values.map((v) => ok(endpoint, `${field}=${v}`, { ...extra, [field]: v })),
		bad(endpoint, `${field} outside the enum`, { ...extra, [field]: 'not_a_value' }, field),
		bad(endpoint, `${field} in the wrong case`, { ...extra, [field]: values[0].toUpperCase() }, field),
	];
}

function lengthCases(endpoint: Endpoint, field: string, max: number): Case[] {
	return [
		ok(endpoint, `${field} of ${max} characters`, { [field]: 'a'.repeat(max) }),
		bad(endpoint, `${field} of ${max + 1} characters`, { [field]: 'a'.repeat(max + 1) }, field),
	];
}

function boolCases(endpoint: Endpoint, fields: string[]): Case[] {
	return fields.flatMap((field) => [
		ok(endpoint, `${field}=true`, { [field]: true }),
		bad(endpoint, `${field} not a boolean`, { [field]: 'yes' }, field),
	]);
}

const CASES: Case[] = [
	// relight
	bad('relight', 'image missing', { image: undefined }, 'image'),
	ok('relight', 'image as an http URL', { image: 'http://images.example.com/a.jpg' }),
	ok('relight', 'image as a data URL', { image: `data:image/png;base64,${TINY_PNG}` }),
	bad('relight', 'image neither Base64 nor URL', { image: 'not base64!' }, 'image'),
	bad('relight', 'image as an ftp URL', { image: 'ftp://images.example.com/a.png' }, 'image'),
	bad('relight', 'image empty', { image: '' }, 'image'),
	...intBounds('relight', 'light_transfer_strength', 0, 100),
	...enumCases('relight', 'style', [
		'standard',
		'darker_but_realistic',
		'clean',
		'smooth',
		'brighter',
		'contrasted_n_hdr',
		'just_composition',
	]),
	ok('relight', 'lightmap alone', { transfer_light_from_lightmap: IMAGE_URL }),
	ok('relight', 'reference image alone', { transfer_light_from_reference_image: TINY_PNG }),
	bad(
		'relight',
		'lightmap and reference image together',
		{ transfer_light_from_lightmap: IMAGE_URL, transfer_light_from_reference_image: IMAGE_URL },
		'transfer_light_from_lightmap',
	),
	bad('relight', 'lightmap not an image', { transfer_light_from_lightmap: 'nope!' }, 'transfer_light_from_lightmap'),
	...boolCases('relight', ['change_background', 'interpolate_from_original', 'preserve_details']),
	ok('relight', 'advanced_settings complete', {
		advanced_settings: {
			blacks: -5,
			brightness: 10,
			contrast: 0.5,
			saturation: 3,
			whites: 2,
			engine: 'balanced',
			fixed_generation: true,
			transfer_light_a: 'auto',
			transfer_light_b: 'composition',
		},
	}),
	bad('relight', 'advanced_settings not an object', { advanced_settings: 'bright' }, 'advanced_settings'),
	bad(
		'relight',
		'advanced_settings.brightness not a number',
		{ advanced_settings: { brightness: 'high' } },
		'advanced_settings.brightness',
	),
	bad(
		'relight',
		'advanced_settings.fixed_generation not a boolean',
		{ advanced_settings: { fixed_generation: 1 } },
		'advanced_settings.fixed_generation',
	),
	ok('relight', 'prompt emphasis 1', { prompt: 'a sunset, (warm rim light:1)' }),
	ok('relight', 'prompt emphasis 1.4', { prompt: 'a sunset, (warm rim light:1.4)' }),
	bad('relight', 'prompt emphasis 1.5', { prompt: 'a sunset, (warm rim light:1.5)' }, 'prompt'),
	bad('relight', 'prompt emphasis 0.9', { prompt: 'a sunset, (warm rim light:0.9)' }, 'prompt'),
	ok('relight', 'webhook_url on loopback', { webhook_url: 'http://127.0.0.1:9/hook' }),
	bad('relight', 'webhook_url not a URL', { webhook_url: 'call me maybe' }, 'webhook_url'),

	// upscaler
	...['creativity', 'fractality', 'hdr', 'resemblance'].flatMap((f) => intBounds('upscaler', f, -10, 10)),
	...enumCases('upscaler', 'engine', ['automatic', 'partner_illusio', 'partner_sharpy', 'partner_sparkle']),
	...enumCases('upscaler', 'optimized_for', [
		'standard',
		'soft_portraits',
		'hard_portraits',
		'art_n_illustration',
		'videogame_assets',
		'nature_n_landscapes',
		'films_n_photography',
		'3d_renders',
		'science_fiction_n_horror',
	]),
	...enumCases('upscaler', 'scale_factor', ['2x', '4x', '8x', '16x']),
	ok('upscaler', 'result exactly 25.3 Mpx at 2x (2530×2500)', { image: pngHeaderBase64(2530, 2500), scale_factor: '2x' }),
	bad('upscaler', 'result over 25.3 Mpx at 2x (2530×2501)', { image: pngHeaderBase64(2530, 2501), scale_factor: '2x' }, 'image'),
	ok('upscaler', 'result exactly 25.3 Mpx at 4x (1265×1250)', { image: pngHeaderBase64(1265, 1250), scale_factor: '4x' }),
	bad('upscaler', 'result over 25.3 Mpx at 4x (1265×1251)', { image: pngHeaderBase64(1265, 1251), scale_factor: '4x' }, 'image'),
	bad('upscaler', 'default scale 2x applies (2530×2501)', { image: pngHeaderBase64(2530, 2501) }, 'image'),
	bad('upscaler', 'result over 25.3 Mpx at 16x (400×400)', { image: pngHeaderBase64(400, 400), scale_factor: '16x' }, 'image'),
	ok('upscaler', 'URL images are not fetched, so not measured', { image: IMAGE_URL, scale_factor: '16x' }),
	bad('upscaler', 'prompt not a string', { prompt: 5 }, 'prompt'),

	// style transfer
	bad('style', 'image missing', { image: undefined }, 'image'),
	bad('style', 'reference_image missing', { reference_image: undefined }, 'reference_image'),
	ok('style', 'reference_image as a URL', { reference_image: IMAGE_URL }),
	...enumCases('style', 'engine', [
		'balanced',
		'definio',
		'illusio',
		'3d_cartoon',
		'colorful_anime',
		'caricature',
		'real',
		'super_real',
		'softy',
	]),
	...enumCases('style', 'flavor', ['faithful', 'gen_z', 'psychedelia', 'detaily', 'clear', 'donotstyle', 'donotstyle_sharp']),
	...enumCases('style', 'portrait_beautifier', ['beautify_face', 'beautify_face_max'], { is_portrait: true }),
	...enumCases('style', 'portrait_style', ['standard', 'pop', 'super_pop'], { is_portrait: true }),
	ok('style', 'portrait options without is_portrait are accepted (and unused)', {
		portrait_style: 'pop',
		portrait_beautifier: 'beautify_face',
	}),
	ok('style', 'portrait options with is_portrait false are accepted (and unused)', { is_portrait: false, portrait_style: 'super_pop' }),
	...intBounds('style', 'structure_strength', 0, 100),
	...intBounds('style', 'style_strength', 0, 100),
	...boolCases('style', ['is_portrait', 'fixed_generation']),

	// skin enhancer
	ok('skin', 'image as an HTTPS URL', { image: IMAGE_URL }),
	bad('skin', 'image as a plain http URL', { image: 'http://images.example.com/face.jpg' }, 'image'),
	bad('skin', 'image missing', { image: undefined }, 'image'),
	...intBounds('skin', 'sharpen', 0, 100),
	...intBounds('skin', 'smart_grain', 0, 100),

	// multiframe
	bad('multiframe', 'image_settings missing', { image_settings: undefined }, 'image_settings'),
	bad('multiframe', '1 frame', { image_settings: frames(1) }, 'image_settings'),
	ok('multiframe', '2 frames', { image_settings: frames(2) }),
	ok('multiframe', '9 frames', { image_settings: frames(9) }),
	bad('multiframe', '10 frames', { image_settings: frames(10) }, 'image_settings'),
	bad('multiframe', 'image_settings not a list', { image_settings: { key_image: IMAGE_URL } }, 'image_settings'),
	bad(
		'multiframe',
		'frame without key_image',
		{ image_settings: [{ duration: 2, prompt: 'x' }, frames(1)[0]] },
		'image_settings[0].key_image',
	),
	bad(
		'multiframe',
		'frame without duration',
		{ image_settings: [frames(1)[0], { key_image: IMAGE_URL, prompt: 'x' }] },
		'image_settings[1].duration',
	),
	bad(
		'multiframe',
		'frame without prompt',
		{ image_settings: [frames(1)[0], { key_image: IMAGE_URL, duration: 2 }] },
		'image_settings[1].prompt',
	),
	ok('multiframe', 'frame duration 0 (the spec gives no range)', {
		image_settings: [frames(1)[0], { key_image: IMAGE_URL, duration: 0, prompt: 'x' }],
	}),
	bad(
		'multiframe',
		'frame duration 1.5',
		{ image_settings: [frames(1)[0], { key_image: IMAGE_URL, duration: 1.5, prompt: 'x' }] },
		'image_settings[1].duration',
	),
	bad('multiframe', 'frame not an object', { image_settings: [frames(1)[0], 'frame'] }, 'image_settings[1]'),
	bad('multiframe', 'model missing', { model: undefined }, 'model'),
	...enumCases('multiframe', 'model', ['videoq2-pro', 'videoq2-turbo']),
	bad('multiframe', 'model videoq3-pro (not for multiframe)', { model: 'videoq3-pro' }, 'model'),
	...enumCases('multiframe', 'resolution', ['540p', '720p', '1080p']),
	bad('multiframe', 'resolution 360p (not for multiframe)', { resolution: '360p' }, 'resolution'),
	bad('multiframe', 'start_image missing', { start_image: undefined }, 'start_image'),
	bad('multiframe', 'callback_url not a URL', { callback_url: 'not a url' }, 'callback_url'),
	...lengthCases('multiframe', 'payload', MAX_PAYLOAD),

	// start-end2video
	bad('startEnd', 'model missing', { model: undefined }, 'model'),
	...enumCases('startEnd', 'model', [
		'videoq3-pro',
		'videoq2-pro-fast',
		'videoq2-pro',
		'videoq2-turbo',
		'videoq1',
		'videoq1-classic',
		'video2.0',
	]),
	...intBounds('startEnd', 'duration', 1, 16, { model: 'videoq3-pro' }),
	...intBounds('startEnd', 'duration', 1, 10, { model: 'videoq2-pro-fast' }),
	...intBounds('startEnd', 'duration', 1, 8, { model: 'videoq2-pro' }),
	...intBounds('startEnd', 'duration', 1, 8, { model: 'videoq2-turbo' }),
	ok('startEnd', 'videoq1: no range in the spec, 30 s accepted', { model: 'videoq1', duration: 30 }),
	ok('startEnd', 'videoq1: duration 0 (no range in the spec, only int32)', { model: 'videoq1', duration: 0 }),
	bad('startEnd', 'videoq1: duration past int32', { model: 'videoq1', duration: 2147483648 }, 'duration'),
	bad('startEnd', 'video2.0: duration 2.5', { model: 'video2.0', duration: 2.5 }, 'duration'),
	bad('startEnd', 'images missing', { images: undefined }, 'images'),
	bad('startEnd', 'images empty', { images: [] }, 'images'),
	bad('startEnd', 'images with 2 entries', { images: [IMAGE_URL, IMAGE_URL] }, 'images'),
	ok('startEnd', 'images with 1 Base64 entry', { images: [TINY_PNG] }),
	bad('startEnd', 'images entry not an image', { images: ['nope!'] }, 'images[0]'),
	...lengthCases('startEnd', 'prompt', 2000),
	ok('startEnd', 'prompt of 2000 characters outside the BMP', { prompt: emoji.repeat(2000) }),
	bad('startEnd', 'prompt of 2001 characters outside the BMP', { prompt: emoji.repeat(2001) }, 'prompt'),
	...lengthCases('startEnd', 'payload', MAX_PAYLOAD),
	...enumCases('startEnd', 'resolution', ['360p', '540p', '720p', '1080p', '2K']),
	...enumCases('startEnd', 'movement_amplitude', ['auto', 'small', 'medium', 'large']),
	...enumCases('startEnd', 'style', ['general', 'anime']),
	...enumCases('startEnd', 'audio_type', ['all', 'speech_only', 'sound_effect_only'], { audio: true }),
	...intBounds('startEnd', 'wm_position', 1, 4, { watermark: true }),
	ok('startEnd', 'seed at the int32 maximum', { seed: 2147483647 }),
	bad('startEnd', 'seed past the int32 maximum', { seed: 2147483648 }, 'seed'),
	ok('startEnd', 'priority at the int32 minimum', { priority: -2147483648 }),
	bad('startEnd', 'priority past the int32 minimum', { priority: -2147483649 }, 'priority'),
	bad('startEnd', 'priority not an integer', { priority: 1.5 }, 'priority'),
	ok('startEnd', 'meta_data as JSON text', { meta_data: '{"campaign":"spring"}' }),
	bad('startEnd', 'meta_data not JSON', { meta_data: '{campaign: spring' }, 'meta_data'),
	bad('startEnd', 'meta_data as an object', { meta_data: { campaign: 'spring' } }, 'meta_data'),
	...boolCases('startEnd', ['audio', 'bgm', 'enhance', 'is_rec', 'off_peak', 'watermark']),
	bad('startEnd', 'aspect_ratio not a string', { aspect_ratio: 1.77 }, 'aspect_ratio'),
	bad('startEnd', 'voice_id not a string', { voice_id: 7 }, 'voice_id'),
	bad('startEnd', 'wm_url not a URL', { wm_url: 'logo.png' }, 'wm_url'),
	ok('startEnd', 'wm_url as a URL', { wm_url: IMAGE_URL }),

	// extend
	bad('extend', 'model missing', { model: undefined }, 'model'),
	...enumCases('extend', 'model', ['videoq2-pro', 'videoq2-turbo']),
	bad('extend', 'model videoq1 (not for extend)', { model: 'videoq1' }, 'model'),
	...intBounds('extend', 'duration', 1, 7),
	ok('extend', 'images absent', {}),
	ok('extend', 'images with 1 entry', { images: [IMAGE_URL] }),
	bad('extend', 'images empty', { images: [] }, 'images'),
	bad('extend', 'images with 2 entries', { images: [IMAGE_URL, TINY_PNG] }, 'images'),
	...lengthCases('extend', 'prompt', 2000),
	...lengthCases('extend', 'payload', MAX_PAYLOAD),
	...enumCases('extend', 'resolution', ['540p', '720p', '1080p']),
	bad('extend', 'resolution 2K (not for extend)', { resolution: '2K' }, 'resolution'),
	ok('extend', 'video_creation_id with video_url', { video_creation_id: 'c-1', video_url: 'https://videos.example.com/a.mp4' }),
	bad('extend', 'video_creation_id without video_url', { video_creation_id: 'c-1' }, 'video_url'),
	bad('extend', 'video_url without video_creation_id', { video_url: 'https://videos.example.com/a.mp4' }, 'video_creation_id'),
	bad('extend', 'video_url not a URL', { video_creation_id: 'c-1', video_url: 'a.mp4' }, 'video_url'),
	bad('extend', 'callback_url not a URL', { callback_url: 'hook' }, 'callback_url'),
];

describe('validation', () => {
	test.each(CASES)('%s: %s', async (endpoint, _what, patch, field) => {
		const { path, shape, base } = ENDPOINTS[endpoint];
		const body: Json = { ...base, ...patch };
		for (const [key, value] of Object.entries(patch)) if (value === undefined) delete body[key];
		const res = await api.post(path, body);
		if (field === null) {
			expect({ status: res.status, data: res.data }).toEqual({ status: 200, data: expect.anything() });
			return;
		}
		expect(res.status).toBe(400);
		const topField = field.split(/[.[]/)[0];
		if (shape === 'image') {
			expect(res.data).toEqual({ error: 'invalid_field', message: expect.stringContaining(topField) });
		} else {
			expect(res.data).toEqual({ message: expect.stringContaining(topField), details: field });
		}
		// A rejected submit creates no task.
		expect(sim.proxy.imageTasks.size + sim.proxy.videoTasks.size).toBe(0);
	});

	test('messages say what is allowed', async () => {
		const style = await api.post(ENDPOINTS.relight.path, { image: TINY_PNG, style: 'neon' });
		expect(style.data.message).toMatch(/style must be one of standard, darker_but_realistic, .*just_composition; got "neon"/);
		const strength = await api.post(ENDPOINTS.relight.path, { image: TINY_PNG, light_transfer_strength: 101 });
		expect(strength.data.message).toBe('light_transfer_strength must be an integer from 0 to 100; got 101.');
		const duration = await api.post(ENDPOINTS.startEnd.path, { model: 'videoq2-pro', images: [IMAGE_URL], duration: 9 });
		expect(duration.data.message).toBe('duration must be from 1 to 8 seconds for model videoq2-pro; got 9.');
		const frameCount = await api.post(ENDPOINTS.multiframe.path, { ...ENDPOINTS.multiframe.base, image_settings: frames(10) });
		expect(frameCount.data.message).toBe('image_settings must hold 2 to 9 frames; got 10.');
	});

	test('a body that is not a JSON object answers 400 in each shape', async () => {
		for (const endpoint of ['relight', 'extend'] as const) {
			const { path, shape } = ENDPOINTS[endpoint];
			for (const [data, headers] of [
				['{not json', { 'content-type': 'application/json' }],
				[JSON.stringify([1, 2]), { 'content-type': 'application/json' }],
				['', { 'content-type': 'application/json' }],
			] as const) {
				const res = await api.post(path, data, { headers, transformRequest: (d: unknown) => d });
				expect(res.status).toBe(400);
				expect(Object.keys(res.data).sort()).toEqual(shape === 'image' ? ['error', 'message'] : ['details', 'message']);
			}
		}
	});
});

// ---- notifications --------------------------------------------------------------------------------

describe('notifications', () => {
	let receiver: Receiver | undefined;
	afterEach(async () => {
		await receiver?.close();
		receiver = undefined;
	});

	const allDone = (n: number) => (ds: readonly { done: boolean }[]) => ds.length >= n && ds.every((d) => d.done);

	test('image: each status change is POSTed in order; a 409 is retried with back-off until it succeeds', async () => {
		receiver = await startReceiver((n) => (n <= 2 ? 409 : 200));
		const { data } = await api.post(`${IMAGING}/image-upscaler`, { image: TINY_PNG, webhook_url: receiver.url });
		const taskId = data.data.task_id as string;
		const deliveries = await sim.proxy.waitForDeliveries(allDone(2));

		expect(receiver.received.map((r) => [r.body.data.status, r.status])).toEqual([
			['IN_PROGRESS', 409],
			['IN_PROGRESS', 409],
			['IN_PROGRESS', 200],
			['COMPLETED', 200],
		]);
		expect(receiver.received[3].body).toEqual({
			data: { task_id: taskId, status: 'COMPLETED', generated: [expect.stringContaining(sim.storageUrl)] },
		});
		expect(deliveries.map((d) => [d.attempts, d.status, d.delivered])).toEqual([
			[3, 200, true],
			[1, 200, true],
		]);
		// Exponential back-off from notifyBackoffMs (10 ms): 10 ms, then 20 ms.
		const gaps = [receiver.received[1].at - receiver.received[0].at, receiver.received[2].at - receiver.received[1].at];
		expect(gaps[0]).toBeGreaterThanOrEqual(9);
		expect(gaps[1]).toBeGreaterThanOrEqual(19);
	});

	test('image notifications use task_status when that switch is set', async () => {
		receiver = await startReceiver();
		sim.proxy.statusField = 'task_status';
		await api.post(`${IMAGING}/image-style-transfer`, { image: TINY_PNG, reference_image: TINY_PNG, webhook_url: receiver.url });
		await sim.proxy.waitForDeliveries(allDone(2));
		expect(receiver.received.map((r) => r.body.data.task_status)).toEqual(['IN_PROGRESS', 'COMPLETED']);
		expect(receiver.received[0].body.data.status).toBeUndefined();
	});

	test('video: callback bodies carry task_id, state, err_code, creations and the payload', async () => {
		receiver = await startReceiver();
		const { data } = await api.post('/proxy/video/start-end2video', {
			model: 'videoq2-turbo',
			images: [IMAGE_URL],
			callback_url: receiver.url,
			payload: 'order-77',
		});
		await sim.proxy.waitForDeliveries(allDone(3));
		expect(receiver.received.map((r) => r.body.state)).toEqual(['queueing', 'processing', 'success']);
		expect(receiver.received[0].body).toEqual({
			task_id: data.task_id,
			state: 'queueing',
			err_code: '',
			creations: [],
			payload: 'order-77',
		});
		expect(receiver.received[2].body).toEqual({
			task_id: data.task_id,
			state: 'success',
			err_code: '',
			creations: [{ id: expect.any(String), url: expect.any(String), cover_url: expect.any(String) }],
			payload: 'order-77',
		});
	});

	test('video: a failed task notifies failed with its err_code', async () => {
		receiver = await startReceiver();
		sim.proxy.failNextTask();
		await api.post('/proxy/video/extend', { model: 'videoq2-pro', callback_url: receiver.url });
		await sim.proxy.waitForDeliveries(allDone(3));
		expect(receiver.received[2].body).toMatchObject({ state: 'failed', err_code: expect.stringMatching(/\w+/), creations: [] });
	});

	test('a receiver that never accepts gets notifyAttempts attempts, then the delivery is given up', async () => {
		receiver = await startReceiver(() => 500);
		await api.post(`${IMAGING}/skin-enhancer/creative`, { image: TINY_PNG, webhook_url: receiver.url });
		const deliveries = await sim.proxy.waitForDeliveries(allDone(2));
		expect(deliveries.map((d) => [d.attempts, d.status, d.delivered])).toEqual([
			[4, 500, false],
			[4, 500, false],
		]);
		expect(receiver.received).toHaveLength(8);
	});

	test('connection errors are retried too', async () => {
		const url = `http://127.0.0.1:${await closedPort()}/hook`;
		await api.post(`${IMAGING}/image-relight`, { image: TINY_PNG, webhook_url: url });
		const [first] = await sim.proxy.waitForDeliveries(allDone(2));
		expect(first).toMatchObject({ attempts: 4, delivered: false, error: expect.stringContaining('ECONNREFUSED') });
	});

	test('duplicateNotifications sends each notification that many times', async () => {
		receiver = await startReceiver();
		sim.faults.duplicateNotifications = { times: 3 };
		await api.post(`${IMAGING}/image-relight`, { image: TINY_PNG, webhook_url: receiver.url });
		await sim.proxy.waitForDeliveries(allDone(6));
		expect(receiver.received.map((r) => r.body.data.status)).toEqual([
			'IN_PROGRESS',
			'IN_PROGRESS',
			'IN_PROGRESS',
			'COMPLETED',
			'COMPLETED',
			'COMPLETED',
		]);
	});

	test('outOfOrderNotifications holds a task’s notifications and delivers them in reverse once final', async () => {
		receiver = await startReceiver();
		sim.faults.outOfOrderNotifications = true;
		const { data } = await api.post('/proxy/video/multiframe', { ...ENDPOINTS.multiframe.base, callback_url: receiver.url });
		await pollVideo(data.task_id);
		await sim.proxy.waitForDeliveries(allDone(3));
		expect(receiver.received.map((r) => r.body.state)).toEqual(['success', 'processing', 'queueing']);

		await api.post(`${IMAGING}/image-upscaler`, { image: TINY_PNG, webhook_url: receiver.url });
		await sim.proxy.waitForDeliveries(allDone(5));
		expect(receiver.received.slice(3).map((r) => r.body.data.status)).toEqual(['COMPLETED', 'IN_PROGRESS']);
	});

	test('holdFinalStatus stops tasks one step short of final; releaseHeldTasks() finishes them, notified as usual', async () => {
		receiver = await startReceiver();
		sim.proxy.holdFinalStatus = true;
		sim.proxy.failNextTask('Held then failed');
		const failing = (await api.post('/proxy/video/extend', { model: 'videoq2-turbo', callback_url: receiver.url })).data.task_id as string;
		const video = (await api.post('/proxy/video/extend', { model: 'videoq2-turbo', callback_url: receiver.url })).data.task_id as string;
		const image = (await api.post(`${IMAGING}/image-upscaler`, { image: TINY_PNG, webhook_url: receiver.url })).data.data.task_id as string;
		// queueing and processing of each video, IN_PROGRESS of the image; then many more steps pass.
		await sim.proxy.waitForDeliveries(allDone(5));
		await sleep(100);
		expect((await api.get(`/proxy/video/tasks/${video}/creations`)).data).toMatchObject({ state: 'processing', creations: [] });
		expect((await api.get(`${IMAGING}/image-upscaler/${image}`)).data.data).toMatchObject({ status: 'IN_PROGRESS', generated: [] });
		expect(receiver.received).toHaveLength(5);

		expect(sim.proxy.releaseHeldTasks().sort()).toEqual([failing, video, image].sort());
		await sim.proxy.waitForDeliveries(allDone(8));
		const finals = receiver.received.slice(5).map((r) => r.body);
		expect(finals).toEqual(
			expect.arrayContaining([
				expect.objectContaining({ task_id: failing, state: 'failed', err_code: 'Held then failed' }),
				expect.objectContaining({ task_id: video, state: 'success', creations: [expect.objectContaining({ url: expect.any(String) })] }),
				{ data: { task_id: image, status: 'COMPLETED', generated: [expect.stringContaining(sim.storageUrl)] } },
			]),
		);
		expect(sim.proxy.releaseHeldTasks()).toEqual([]);
		sim.reset();
		expect(sim.proxy.holdFinalStatus).toBe(false);
	});

	test('non-loopback URLs are refused and recorded, never sent; loopback names are delivered', async () => {
		receiver = await startReceiver();
		const urls = ['http://example.com/hook', 'https://10.1.2.3/hook', 'http://[2001:db8::1]/hook', 'http://192.168.1.10:5678/webhook'];
		for (const url of urls) await api.post(`${IMAGING}/image-relight`, { image: TINY_PNG, webhook_url: url });
		await api.post(`${IMAGING}/image-relight`, { image: TINY_PNG, webhook_url: receiver.url.replace('127.0.0.1', 'localhost') });
		const deliveries = await sim.proxy.waitForDeliveries(allDone(10));
		const refused = deliveries.filter((d) => d.refused);
		expect(new Set(refused.map((d) => d.url))).toEqual(new Set(urls));
		expect(refused.every((d) => d.attempts === 0 && !d.delivered && /loopback/.test(d.error ?? ''))).toBe(true);
		expect(deliveries.filter((d) => d.delivered).map((d) => d.url)).toEqual([
			expect.stringContaining('localhost'),
			expect.stringContaining('localhost'),
		]);
		expect(receiver.received).toHaveLength(2);
	});

	test.each([
		['http://127.0.0.1:5678/x', true],
		['http://127.9.8.7/x', true],
		['http://127.1/x', true],
		['http://localhost:5678/x', true],
		['http://[::1]:5678/x', true],
		['http://128.0.0.1/x', false],
		['http://0.0.0.0/x', false],
		['http://10.0.0.1/x', false],
		['http://[::ffff:10.0.0.1]/x', false],
		['http://localhost.example.com/x', false],
		['ftp://127.0.0.1/x', false],
		['not a url', false],
	])('isLoopbackUrl(%s) is %s', (url, expected) => {
		expect(isLoopbackUrl(url)).toBe(expected);
	});

	test('reset() cancels back-offs and in-flight deliveries: nothing more reaches the receiver', async () => {
		sim.options.notifyBackoffMs = 30;
		receiver = await startReceiver(() => 503);
		await api.post(`${IMAGING}/image-upscaler`, { image: TINY_PNG, webhook_url: receiver.url });
		await sim.proxy.waitForDeliveries((ds) => ds.length > 0 && ds[0].attempts >= 1 && ds[0].status === 503);
		sim.reset();
		const count = receiver.received.length;
		await sleep(150);
		expect(receiver.received.length).toBe(count);
		expect(sim.proxy.deliveries).toHaveLength(0);
	});

	test('waitForDeliveries rejects on timeout with what was delivered', async () => {
		await expect(sim.proxy.waitForDeliveries((ds) => ds.length > 0, 30)).rejects.toThrow(/timed out after 30 ms; deliveries so far: none/);
	});
});

// ---- music --------------------------------------------------------------------------------------

describe('music', () => {
	test('streams titles, duration, interleaved audio chunks forming a playable WAV per stream, then complete', async () => {
		const res = await openMusic({ prompt: 'calm lofi piano with rain', duration: '30' });
		expect(res.status).toBe(200);
		expect(res.headers['content-type']).toBe('application/x-ndjson');
		const { events, malformed } = await readNdjson(res.data);
		expect(malformed).toEqual([]);

		const titles = events.filter((e) => e.type === 'title');
		expect(titles).toEqual(
			[0, 1].map((i) => ({
				type: 'title',
				title: expect.any(String),
				display_tags: expect.arrayContaining([expect.any(String)]),
				copy_index: i,
				prompt_index: 0,
				stream_index: i,
			})),
		);
		const duration = events.find((e) => e.type === 'duration');
		expect(events[events.length - 1]).toEqual({ type: 'complete' });
		const order = events.map((e) => e.type);
		expect(order.indexOf('duration')).toBeGreaterThan(order.lastIndexOf('title'));
		expect(order.indexOf('audio_chunk')).toBeGreaterThan(order.indexOf('duration'));

		// Chunks of the two streams interleave.
		const chunkStreams = events.filter((e) => e.type === 'audio_chunk').map((e) => e.stream_index);
		expect(chunkStreams.slice(0, 4)).toEqual([0, 1, 0, 1]);

		const wavs = assemble(events);
		expect([...wavs.keys()]).toEqual([0, 1]);
		for (const wav of wavs.values()) {
			expect(wav.length).toBe(64 * 1024);
			expectPlayableWav(wav);
			expect(duration?.duration_sec).toBeCloseTo((wav.length - 44) / 32000, 3);
		}
	});

	test('stream count, sizes and chunking follow the music options', async () => {
		Object.assign(sim.proxy.music, { streams: 3, audioBytesPerStream: 10_001, chunkBytes: 1000 });
		const { events } = await readNdjson((await openMusic({ prompt: 'drums' })).data);
		expect(events.filter((e) => e.type === 'title')).toHaveLength(3);
		const chunks = events.filter((e) => e.type === 'audio_chunk');
		expect(chunks.every((c) => (c.bytes as Buffer).length <= 1000)).toBe(true);
		for (const wav of assemble(events).values()) {
			expect(wav.length).toBe(10_000); // whole 16-bit samples only
			expectPlayableWav(wav);
		}
		sim.reset();
		expect(sim.proxy.music.streams).toBe(2);
	});

	test('malformedNdjson inserts that many broken lines in the next stream only; the audio stays whole', async () => {
		sim.faults.malformedNdjson = { count: 3 };
		const first = await readNdjson((await openMusic({ prompt: 'jazz' })).data);
		expect(first.malformed).toHaveLength(3);
		for (const wav of assemble(first.events).values()) expectPlayableWav(wav);
		expect(first.events[first.events.length - 1].type).toBe('complete');

		const second = await readNdjson((await openMusic({ prompt: 'jazz' })).data);
		expect(second.malformed).toHaveLength(0);
	});

	test('musicError ends the next stream with an error event after some chunks, without complete', async () => {
		sim.faults.musicError = { code: 'CONTENT_POLICY', message: 'The prompt was rejected by the content policy.' };
		const { events } = await readNdjson((await openMusic({ prompt: 'a song about anything' })).data);
		expect(events.filter((e) => e.type === 'audio_chunk').length).toBeGreaterThan(0);
		expect(events[events.length - 1]).toEqual({
			type: 'error',
			code: 'CONTENT_POLICY',
			message: 'The prompt was rejected by the content policy.',
		});
		expect(events.some((e) => e.type === 'complete')).toBe(false);

		const next = await readNdjson((await openMusic({ prompt: 'again' })).data);
		expect(next.events[next.events.length - 1].type).toBe('complete');
	});

	test('musicError still ends a one-chunk stream with the error event', async () => {
		Object.assign(sim.proxy.music, { streams: 1, audioBytesPerStream: 1000, chunkBytes: 4096 });
		sim.faults.musicError = { code: 'GEN_FAILED', message: 'Generation failed.' };
		const { events } = await readNdjson((await openMusic({ prompt: 'short' })).data);
		expect(events.map((e) => e.type)).toEqual(['title', 'duration', 'audio_chunk', 'error']);
	});

	test.each([
		[{ duration: '10' }, 'prompt'],
		[{ prompt: '   ' }, 'prompt'],
		[{ prompt: 'song', duration: '1.5' }, 'duration'],
		[{ prompt: 'song', duration: 'long' }, 'duration'],
	])('rejects %j naming %s', async (fields, field) => {
		const { body, headers } = multipart(fields as Record<string, string>);
		const res = await api.post('/proxy/music/t2m/generate', body, { headers });
		expect(res.status).toBe(400);
		expect(res.data).toEqual({ error: 'invalid_field', message: expect.stringContaining(field) });
		expect(sim.proxy.musicStats.started).toBe(0);
	});

	test('accepts any whole-number duration (the spec shows no bounds) and no duration; rejects a non-multipart body', async () => {
		for (const duration of ['1', '0', '-3', undefined]) {
			const fields: Record<string, string> = duration === undefined ? { prompt: 'song' } : { prompt: 'song', duration };
			const res = await openMusic(fields);
			expect(res.status).toBe(200);
			await readNdjson(res.data);
		}
		const json = await api.post('/proxy/music/t2m/generate', { prompt: 'song' });
		expect(json.status).toBe(400);
		expect(json.data.message).toMatch(/multipart\/form-data/);
	});

	test('a slow reader holds generation back (backpressure)', async () => {
		// Far more than the socket buffers and the client's stream take in (19 MiB seen on a loaded
		// machine): a simulator that wrote without waiting for them to drain would send it all at once.
		const stream = 128 * 1024 * 1024;
		Object.assign(sim.proxy.music, { streams: 1, audioBytesPerStream: stream, chunkBytes: 64 * 1024 });
		const res = await openMusic({ prompt: 'long ambient drone' });
		res.data.pause();
		// Until the buffers are full, however long a busy machine takes to fill them: no more is sent for half a second.
		let sent = -1;
		while (sim.proxy.musicStats.audioBytesSent !== sent) {
			sent = sim.proxy.musicStats.audioBytesSent;
			await sleep(500);
		}
		expect(sent).toBeGreaterThan(0);
		expect(sent).toBeLessThan(stream / 2);
		res.data.destroy();
	});

	test('a stream cut by reset() counts in none of the stats after it, even though it ends after the reset', async () => {
		Object.assign(sim.proxy.music, { chunkDelayMs: 20, audioBytesPerStream: 4 * 1024 * 1024 });
		const res = await openMusic({ prompt: 'cut by a reset' });
		const closed = new Promise((resolve) => res.data.on('close', resolve));
		res.data.resume();
		while (sim.proxy.musicStats.audioBytesSent === 0) await sleep(5);
		sim.proxy.reset();
		await closed;
		await sleep(50);
		expect(sim.proxy.musicStats).toEqual({ started: 0, completed: 0, aborted: 0, audioBytesSent: 0 });
		// A stream started after the reset counts as before.
		await readNdjson((await openMusic({ prompt: 'after the reset' })).data);
		expect(sim.proxy.musicStats).toMatchObject({ started: 1, completed: 1, aborted: 0 });
	});

	// Measured in a fresh process (support/music-stream-memory.ts, with --expose-gc): in a shared Jest
	// worker V8's heap grows by tens of MB or more before collecting, whatever the stream's size. What
	// is held after forced collections is counted, not resident memory, which a busy machine raises.
	test('a 64 MiB stream: the process holds well under half of it at any time (fresh process)', async () => {
		const root = join(__dirname, '..', '..', '..');
		const { stdout } = await promisify(execFile)(
			process.execPath,
			[join(root, 'node_modules/tsx/dist/cli.mjs'), join(__dirname, '../support/music-stream-memory.ts')],
			{
				cwd: root,
				env: { ...process.env, NODE_OPTIONS: '--experimental-websocket --expose-gc', BENCH_RETAINED_EVERY_MIB: '8', MUSIC_MIB: '64' },
				timeout: 120_000,
			},
		);
		const size = 64 * 1024 * 1024;
		const figures = JSON.parse(stdout.trim().split('\n').pop()!) as Json;
		expect(figures).toMatchObject({ audioBytes: size, riffSize: size - 8, dataSize: size - 44, lastEvent: 'complete' });
		// Sampled each time 8 MiB more came in: several samples inside the stream, however fast the machine.
		expect(figures.retainedSamples).toBeGreaterThanOrEqual(6);
		expect(figures.retainedMiBMax).toBeLessThan(32);
	}, 150_000);
});
