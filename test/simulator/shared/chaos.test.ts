/**
 * The chaos faults (simulator/shared/chaos.ts): the seeded source and its counters, and each media and
 * registry fault kind over real HTTP on loopback: the fault happens where it should, is counted,
 * and the simulator answers properly again once it is over.
 */
import { request } from 'node:http';

import axios, { type AxiosInstance } from 'axios';

import { ChaosFaults, type ChaosKind, type ChaosRates } from '../../../simulator/shared/chaos';
import { DEFAULT_PUBLISHING_TOKEN } from '../../../simulator/registry/area';
import type { Simulator } from '../../../simulator/server';
import { waitUntil } from '../../support/wait';
import { useSimulator } from '../support/simulator';

const IMAGING = '/proxy/imaging/v1/ai';
const IMAGE_URL = 'https://images.example.com/in.png';
const ZIP = Buffer.concat([Buffer.from('PK\x05\x06', 'latin1'), Buffer.alloc(18)]);

let sim: Simulator;
let api: AxiosInstance;

useSimulator({ imageStepMs: 10, videoStepMs: 10 }, (started) => {
	sim = started;
	api = axios.create({
		baseURL: sim.registryUrl,
		proxy: false,
		validateStatus: () => true,
		headers: { Authorization: `Bearer ${sim.accessToken}` },
	});
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Turns one kind of fault on at `rate` (the others off); answers the source, to read its counters. */
function chaosOf(rates: ChaosRates, timings?: { hangMs?: number }): ChaosFaults {
	const chaos = new ChaosFaults(7, rates, timings);
	sim.faults.chaos = chaos;
	return chaos;
}

/** Only `kind` was injected, `times` times. */
function expectOnly(chaos: ChaosFaults, kind: ChaosKind, times: number): void {
	const others = Object.entries(chaos.injected).filter(([name, n]) => name !== kind && n !== 0);
	expect({ [kind]: chaos.injected[kind], others }).toEqual({ [kind]: times, others: [] });
}

async function upscaleTask(): Promise<string> {
	const res = await api.post(`${IMAGING}/image-upscaler`, { image: IMAGE_URL, scale_factor: '2x' });
	expect(res.status).toBe(200);
	return res.data.data.task_id as string;
}

async function videoTask(): Promise<string> {
	const res = await api.post('/proxy/video/start-end2video', { model: 'videoq2-turbo', images: [IMAGE_URL], prompt: 'waves' });
	expect(res.status).toBe(200);
	return res.data.task_id as string;
}

const imageStatus = (taskId: string) => api.get(`${IMAGING}/image-upscaler/${taskId}`);
const videoStatus = (taskId: string) => api.get(`/proxy/video/tasks/${taskId}/creations`);

/** A music stream read raw: every byte that arrived, and how the connection ended. */
function rawMusic(): Promise<{ text: string; ended: 'end' | 'error' }> {
	const body = '--b\r\nContent-Disposition: form-data; name="prompt"\r\n\r\ncalm piano\r\n--b--\r\n';
	return new Promise((resolve, reject) => {
		const req = request(
			`${sim.registryUrl}/proxy/music/t2m/generate`,
			{
				method: 'POST',
				headers: { authorization: `Bearer ${sim.accessToken}`, 'content-type': 'multipart/form-data; boundary=b' },
			},
			(res) => {
				const chunks: Buffer[] = [];
				res.on('data', (chunk: Buffer) => chunks.push(chunk));
				res.on('end', () => resolve({ text: Buffer.concat(chunks).toString('utf8'), ended: 'end' }));
				res.on('error', () => resolve({ text: Buffer.concat(chunks).toString('utf8'), ended: 'error' }));
			},
		);
		req.on('error', reject);
		req.end(body);
	});
}

/** The lines of a stream that parse, and its last piece when it does not end with a newline. */
function splitLines(text: string): { events: Array<Record<string, unknown>>; unterminated: string } {
	const lines = text.split('\n');
	const unterminated = lines.pop() ?? '';
	return { events: lines.filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>), unterminated };
}

/** A published version's signed upload URL. */
async function uploadUrl(version: string): Promise<string> {
	sim.registry.seedPublisher({ id: 'acme' });
	const res = await api.post('/publishers/acme/nodes/my-node/versions', {
		node: { name: 'My Node' },
		node_version: { version },
		personal_access_token: DEFAULT_PUBLISHING_TOKEN,
	});
	expect(res.status).toBe(201);
	return res.data.signedUrl as string;
}

const put = (url: string) =>
	axios.put(url, ZIP, { proxy: false, validateStatus: () => true, headers: { 'Content-Type': 'application/zip' } }).then(
		(res) => ({ status: res.status, error: undefined as string | undefined }),
		(error: { code?: string }) => ({ status: undefined, error: error.code }),
	);

describe('ChaosFaults', () => {
	const sequence = (chaos: ChaosFaults, kind: ChaosKind, n: number) => Array.from({ length: n }, () => chaos.roll(kind));

	it('replays the same faults from the same seed, and others from another seed', () => {
		const rates = { status5xx: 0.3 };
		const first = sequence(new ChaosFaults(42, rates), 'status5xx', 200);
		expect(sequence(new ChaosFaults(42, rates), 'status5xx', 200)).toEqual(first);
		expect(sequence(new ChaosFaults(43, rates), 'status5xx', 200)).not.toEqual(first);
		// About the rate, not all or nothing.
		const hits = first.filter(Boolean).length;
		expect(hits).toBeGreaterThan(30);
		expect(hits).toBeLessThan(90);
	});

	it('never injects a kind at rate 0 (nor draws a number for it), always one at rate 1, and counts by kind', () => {
		const chaos = new ChaosFaults(1, { taskStatus5xx: 1, taskStatus429: 0 });
		const plain = new ChaosFaults(1, {});
		expect(sequence(chaos, 'taskStatus429', 50).some(Boolean)).toBe(false);
		expect(sequence(chaos, 'uploadReset', 50).some(Boolean)).toBe(false);
		// Kinds at rate 0 drew nothing: the sequence is where a fresh source starts.
		expect(chaos.random()).toBe(plain.random());
		expect(sequence(chaos, 'taskStatus5xx', 50).every(Boolean)).toBe(true);
		expect(chaos.injected).toMatchObject({ taskStatus5xx: 50, taskStatus429: 0, uploadReset: 0 });
		expect(Object.values(chaos.injected).reduce((a, b) => a + b, 0)).toBe(50);
		// A run's figures report the kinds it gives a rate, 0 included.
		expect(chaos.injectedAtRate()).toEqual({ taskStatus5xx: 50, taskStatus429: 0 });
	});

	it('holds a timed-out status read longer than the nodes ever wait for one, unless told otherwise', () => {
		expect(new ChaosFaults(1, {}).hangMs).toBeGreaterThan(30_000);
		expect(new ChaosFaults(1, {}, { hangMs: 100, delayMs: 5 })).toMatchObject({ hangMs: 100, delayMs: 5 });
	});
});

describe('media task status reads', () => {
	it('taskStatus5xx answers 503 in each path shape, then the status again', async () => {
		const image = await upscaleTask();
		const video = await videoTask();
		const chaos = chaosOf({ taskStatus5xx: 1 });
		const [imageFault, videoFault] = [await imageStatus(image), await videoStatus(video)];
		expect(imageFault.status).toBe(503);
		expect(imageFault.data).toEqual({ error: 'service_unavailable', message: expect.stringMatching(/temporarily unavailable/) });
		expect(videoFault.status).toBe(503);
		expect(videoFault.data).toMatchObject({ message: expect.stringMatching(/temporarily unavailable/) });
		expectOnly(chaos, 'taskStatus5xx', 2);
		// A submit is not a status read.
		await upscaleTask();
		expectOnly(chaos, 'taskStatus5xx', 2);
		delete sim.faults.chaos;
		expect((await imageStatus(image)).data.data.task_id).toBe(image);
		expect((await videoStatus(video)).data.task_id).toBe(video);
	});

	it('taskStatus429 answers 429 without a Retry-After (the spec shows none), then the status again', async () => {
		const image = await upscaleTask();
		const chaos = chaosOf({ taskStatus429: 1 });
		const fault = await imageStatus(image);
		expect(fault.status).toBe(429);
		expect(fault.headers['retry-after']).toBeUndefined();
		expect(fault.data).toEqual({ error: 'too_many_requests', message: expect.any(String) });
		expectOnly(chaos, 'taskStatus429', 1);
		delete sim.faults.chaos;
		expect((await imageStatus(image)).status).toBe(200);
	});

	it('taskStatusTimeout holds the read until the client gives up, and lets it go at once then', async () => {
		const image = await upscaleTask();
		await waitUntil(() => sim.proxy.imageTasks.get(image)!.status === 'COMPLETED');
		const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
		const before = timers();
		const chaos = chaosOf({ taskStatusTimeout: 1 });
		// The client's own timeout ends the read (ECONNABORTED), not the 35 s hold.
		const timedOut = await api.get(`${IMAGING}/image-upscaler/${image}`, { timeout: 150 }).catch((error: { code?: string }) => error.code);
		expect(timedOut).toBe('ECONNABORTED');
		expectOnly(chaos, 'taskStatusTimeout', 1);
		// The held read lets its 35 s timer go with the client: nothing of it stays open.
		await waitUntil(() => timers() <= before, 10_000);
		delete sim.faults.chaos;
		expect((await imageStatus(image)).status).toBe(200);
	});

	it('taskStatusTimeout is bounded: without a client timeout the connection is dropped after hangMs, with no answer', async () => {
		const video = await videoTask();
		chaosOf({ taskStatusTimeout: 1 }, { hangMs: 200 });
		const started = Date.now();
		const dropped = await videoStatus(video).then(
			(res) => `answered ${res.status}`,
			(error: { code?: string }) => error.code,
		);
		expect(dropped).toBe('ECONNRESET');
		expect(Date.now() - started).toBeGreaterThanOrEqual(190);
		delete sim.faults.chaos;
		expect((await videoStatus(video)).status).toBe(200);
	});

	it('a reset drops the reads it holds', async () => {
		const image = await upscaleTask();
		chaosOf({ taskStatusTimeout: 1 });
		const held = imageStatus(image).catch((error: { code?: string }) => error.code);
		await waitUntil(() => sim.requestsTo('GET', `${IMAGING}/image-upscaler/`).length === 1);
		await sleep(20);
		sim.reset();
		expect(await held).toBe('ECONNRESET');
	});
});

describe('media tasks that never finish', () => {
	it('taskNeverFinishes leaves an image task IN_PROGRESS and a video task processing; later tasks finish', async () => {
		const chaos = chaosOf({ taskNeverFinishes: 1 });
		const image = await upscaleTask();
		const video = await videoTask();
		expectOnly(chaos, 'taskNeverFinishes', 2);
		delete sim.faults.chaos;
		await sleep(150);
		expect((await imageStatus(image)).data.data).toMatchObject({ status: 'IN_PROGRESS', generated: [] });
		expect((await videoStatus(video)).data).toMatchObject({ state: 'processing', creations: [] });
		expect(sim.proxy.imageTasks.get(image)!.history.map((h) => h.status)).toEqual(['CREATED', 'IN_PROGRESS']);

		const later = await upscaleTask();
		await waitUntil(() => sim.proxy.imageTasks.get(later)!.status === 'COMPLETED', 30_000);
		expect((await imageStatus(later)).data.data.generated).toHaveLength(1);
	});
});

describe('music streams', () => {
	it('musicCutMidLine ends the answer in the middle of a line that is not audio, with no complete', async () => {
		const chaos = chaosOf({ musicCutMidLine: 1 });
		const { text, ended } = await rawMusic();
		expectOnly(chaos, 'musicCutMidLine', 1);
		expect(ended).toBe('end');
		const { events, unterminated } = splitLines(text);
		expect(unterminated).not.toBe('');
		expect(() => JSON.parse(unterminated)).toThrow();
		expect(unterminated).not.toMatch(/^\{"type":"audio_chunk"/);
		expect(events.some((event) => event.type === 'complete')).toBe(false);
		expect(sim.proxy.musicStats).toMatchObject({ started: 1, completed: 0, aborted: 1 });

		delete sim.faults.chaos;
		const whole = await rawMusic();
		expect(splitLines(whole.text)).toMatchObject({ unterminated: '' });
		expect(splitLines(whole.text).events.at(-1)).toEqual({ type: 'complete' });
	});

	it('musicCutMidChunk resets the connection inside an audio chunk’s data', async () => {
		const chaos = chaosOf({ musicCutMidChunk: 1 });
		const { text, ended } = await rawMusic();
		expectOnly(chaos, 'musicCutMidChunk', 1);
		expect(ended).toBe('error');
		const { events, unterminated } = splitLines(text);
		expect(unterminated).toMatch(/^\{"type":"audio_chunk","stream_index":\d+,"data":"[A-Za-z0-9+/]+$/);
		expect(events.some((event) => event.type === 'complete')).toBe(false);
		expect(sim.proxy.musicStats).toMatchObject({ started: 1, completed: 0, aborted: 1 });

		delete sim.faults.chaos;
		expect(splitLines((await rawMusic()).text).events.at(-1)).toEqual({ type: 'complete' });
	});

	it('the cut falls in different places from run to run of the seeded sequence', async () => {
		chaosOf({ musicCutMidChunk: 1 });
		const cuts = new Set<string>();
		for (let run = 0; run < 6; run++) cuts.add(splitLines((await rawMusic()).text).unterminated.slice(-12));
		expect(cuts.size).toBeGreaterThan(1);
	});
});

describe('archive uploads', () => {
	it('upload5xx answers the first PUT of an upload URL 503 and stores nothing; the retry is stored', async () => {
		const url = await uploadUrl('1.0.0');
		const chaos = chaosOf({ upload5xx: 1 });
		expect(await put(url)).toEqual({ status: 503, error: undefined });
		expect(sim.registry.archiveFor('acme', 'my-node', '1.0.0')).toBeUndefined();
		expect(sim.registry.versions.get([...sim.registry.versions.keys()][0]!)!.status).toBe('NodeVersionStatusPending');
		expect(await put(url)).toEqual({ status: 200, error: undefined });
		expectOnly(chaos, 'upload5xx', 1);
		expect(sim.registry.archiveFor('acme', 'my-node', '1.0.0')?.bytes.equals(ZIP)).toBe(true);
		expect([...sim.registry.versions.values()][0]!.status).toBe('NodeVersionStatusActive');
	});

	it('uploadReset drops the first PUT without an answer and stores nothing; the retry is stored', async () => {
		const url = await uploadUrl('1.0.0');
		const chaos = chaosOf({ uploadReset: 1 });
		expect(await put(url)).toEqual({ status: undefined, error: 'ECONNRESET' });
		expect(sim.registry.archiveFor('acme', 'my-node', '1.0.0')).toBeUndefined();
		expect(await put(url)).toEqual({ status: 200, error: undefined });
		expectOnly(chaos, 'uploadReset', 1);
		expect(sim.registry.archiveFor('acme', 'my-node', '1.0.0')?.bytes.equals(ZIP)).toBe(true);
	});

	it('a PUT with a bad signature is refused as before and is not the URL’s first try', async () => {
		const url = await uploadUrl('1.0.0');
		const chaos = chaosOf({ upload5xx: 1 });
		expect((await put(url.replace(/signature=[0-9a-f]/, 'signature=x'))).status).toBe(403);
		expect(await put(url)).toEqual({ status: 503, error: undefined });
		expectOnly(chaos, 'upload5xx', 1);
	});
});
