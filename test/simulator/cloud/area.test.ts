/**
 * The simulator's cloud workflow-execution API, seen as a client sees it: REST over axios,
 * the progress stream over a real WebSocket, files through the signed-URL storage host.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';

import axios, { type AxiosResponse } from 'axios';
import WebSocket from 'ws';

import type { Simulator } from '../../../simulator/server';
import { decodePng } from '../../support/png';
import { useSimulator } from '../support/simulator';
import { waitUntil } from '../../support/wait';

type Graph = Record<string, { class_type: string; inputs: Record<string, unknown> }>;
interface Message {
	type: string;
	data: Record<string, any>;
}

const TXT2IMG: Graph = JSON.parse(readFileSync(join(__dirname, '../../fixtures/txt2img-api.json'), 'utf8'));
const txt2img = (): Graph => structuredClone(TXT2IMG);

const SOLO_KEY = 'solo-api-key';
const OTHER_KEY = 'other-api-key';
const BROKE_KEY = 'broke-api-key';
const LAPSED_KEY = 'lapsed-api-key';
const UPLOAD_LIMIT = 4096;

const http = axios.create({ validateStatus: () => true, maxRedirects: 0 });

let sim: Simulator;
const listeners: Listener[] = [];

/** A WebSocket client that records every JSON message and binary frame it receives. */
class Listener {
	readonly json: Message[] = [];
	readonly frames: Buffer[] = [];
	closeCode?: number;

	constructor(readonly ws: WebSocket) {
		ws.on('message', (data: Buffer, isBinary: boolean) => {
			if (isBinary) this.frames.push(data);
			else this.json.push(JSON.parse(data.toString('utf8')) as Message);
		});
		ws.on('close', (code: number) => (this.closeCode = code));
		ws.on('error', () => undefined);
	}

	static async open(token = sim.apiKey, clientId: string = randomUUID()): Promise<Listener> {
		const ws = new WebSocket(`${sim.wsBaseUrl}/ws?clientId=${clientId}&token=${encodeURIComponent(token)}`);
		const listener = new Listener(ws);
		listeners.push(listener);
		await new Promise<void>((resolve, reject) => {
			ws.once('open', () => resolve());
			ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade answered ${res.statusCode}`)));
		});
		await waitUntil(() => listener.json.length > 0); // the greeting
		return listener;
	}

	of(promptId: string): Message[] {
		return this.json.filter((m) => m.data?.prompt_id === promptId);
	}

	/** Resolves with the job's terminal message (success, error or interruption). */
	async end(promptId: string): Promise<Message> {
		const terminal = new Set(['execution_success', 'execution_error', 'execution_interrupted']);
		return waitUntil(() => this.of(promptId).find((m) => terminal.has(m.type)));
	}
}

/** A cloud REST call with the API key (`null`: no X-API-Key header at all). */
const api = (method: 'GET' | 'POST', path: string, data?: unknown, key: string | null = sim.apiKey, params?: Record<string, string>) =>
	http.request({ method, url: `${sim.baseUrl}${path}`, data, params, headers: key === null ? {} : { 'X-API-Key': key } });

async function submit(prompt: unknown, extra: Record<string, unknown> = {}, key = sim.apiKey): Promise<string> {
	const res = await api('POST', '/api/prompt', { prompt, ...extra }, key);
	expect(res.status).toBe(200);
	return res.data.prompt_id as string;
}

async function statusOf(id: string, key = sim.apiKey): Promise<string> {
	return (await api('GET', `/api/job/${id}/status`, undefined, key)).data.status as string;
}

/** /api/view with the client's defaults (subfolder "", type output), then the signed URL without credentials. */
async function download(ref: Record<string, unknown>, key = sim.apiKey): Promise<Buffer> {
	const params = { filename: String(ref.filename), subfolder: String(ref.subfolder ?? ''), type: String(ref.type ?? 'output') };
	const redirect = await api('GET', '/api/view', undefined, key, params);
	expect(redirect.status).toBe(302);
	const file = await http.get(redirect.headers.location as string, { responseType: 'arraybuffer' });
	expect(file.status).toBe(200);
	return Buffer.from(file.data as ArrayBuffer);
}

function uploadForm(bytes: Buffer, filename = 'cat.png', fields: Record<string, string> = { type: 'input', overwrite: 'true' }): FormData {
	const form = new FormData();
	form.append('image', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), filename);
	for (const [name, value] of Object.entries(fields)) form.append(name, value);
	return form;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

useSimulator(
	{
		nodeMs: 5,
		uploadLimitBytes: UPLOAD_LIMIT,
		extraAccounts: [
			{ id: 'solo', apiKey: SOLO_KEY, parallelLimit: 1 },
			{ id: 'other', apiKey: OTHER_KEY },
			{ id: 'broke', apiKey: BROKE_KEY, credits: 0 },
			{ id: 'lapsed', apiKey: LAPSED_KEY, subscriptionActive: false },
		],
	},
	(started) => (sim = started),
	() => {
		for (const l of listeners.splice(0)) l.ws.terminate();
	},
);

describe('text-to-image end to end', () => {
	test('runs the standard graph over a real WebSocket and serves its image through a signed URL', async () => {
		const ws = await Listener.open();
		expect(ws.json[0]).toMatchObject({ type: 'status', data: { status: { exec_info: { queue_remaining: 0 } } } });
		expect(typeof ws.json[0].data.sid).toBe('string');

		const id = await submit(txt2img(), { client_id: 'my-client' });
		expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
		expect((await ws.end(id)).type).toBe('execution_success');
		await waitUntil(() => ws.of(id).some((m) => m.type === 'executing' && m.data.node === null));

		const mine = ws.of(id);
		const types = mine.map((m) => m.type);
		expect(types[0]).toBe('execution_start');
		expect(mine.find((m) => m.type === 'execution_cached')?.data.nodes).toEqual([]);
		const executing = mine.filter((m) => m.type === 'executing').map((m) => m.data.node);
		expect(executing).toEqual(['4', '5', '6', '7', '3', '8', '9', null]);
		const progress = mine.filter((m) => m.type === 'progress' && m.data.node === '3');
		expect(progress.length).toBeGreaterThanOrEqual(2);
		expect(progress.at(-1)?.data).toMatchObject({ value: 20, max: 20 });
		const state = mine.find((m) => m.type === 'progress_state');
		expect(state?.data.nodes['4']).toMatchObject({ node_id: '4', state: expect.any(String) });
		expect(types.slice(-2)).toEqual(['execution_success', 'executing']);
		// every JSON message except status carries a prompt_id
		expect(ws.json.filter((m) => m.type !== 'status').every((m) => typeof m.data.prompt_id === 'string')).toBe(true);

		const executed = mine.find((m) => m.type === 'executed');
		expect(executed?.data.node).toBe('9');
		const ref = executed?.data.output.images[0];
		expect(ref).toEqual({ filename: expect.stringMatching(/^lighthouse_\d{5}_\.png$/), subfolder: '', type: 'output' });

		expect(await statusOf(id)).toBe('completed');
		const job = sim.cloud.jobs.get(id);
		expect(job?.startedAt).toBeGreaterThanOrEqual(job?.submittedAt ?? Infinity);
		expect(job?.finishedAt).toBeGreaterThanOrEqual(job?.startedAt ?? Infinity);
		expect(job?.clientId).toBe('my-client');

		const redirect = await api('GET', '/api/view', undefined, sim.apiKey, { filename: ref.filename, subfolder: '', type: 'output' });
		expect(redirect.status).toBe(302);
		const location = String(redirect.headers.location);
		expect(location.startsWith(sim.storageUrl)).toBe(true);

		const withKey = await http.get(location, { headers: { 'X-API-Key': sim.apiKey } });
		expect(withKey.status).toBe(400);
		expect(sim.counters.storageCredentialAttempts).toBe(1);
		const file = await http.get(location, { responseType: 'arraybuffer' });
		expect(file.status).toBe(200);
		expect(file.headers['content-type']).toBe('image/png');
		expect(Buffer.from(file.data).subarray(0, 8)).toEqual(PNG_SIGNATURE);
		expect(sim.counters.storageCredentialAttempts).toBe(1);
	});

	test('sends binary previews: type 1 (JPEG), type 3 (text) and type 4 (metadata header + PNG)', async () => {
		const ws = await Listener.open();
		const id = await submit(txt2img());
		await ws.end(id);
		const byType = (t: number) => ws.frames.filter((f) => f.readUInt32BE(0) === t);

		const preview = byType(1)[0];
		expect(preview.readUInt32BE(4)).toBe(1);
		expect(preview.subarray(8, 10)).toEqual(Buffer.from([0xff, 0xd8]));
		expect(preview.subarray(-2)).toEqual(Buffer.from([0xff, 0xd9]));

		const text = byType(3)[0];
		const idLength = text.readUInt32BE(4);
		expect(text.subarray(8, 8 + idLength).toString()).toBe('3');
		expect(text.subarray(8 + idLength).toString()).toMatch(/Sampling 20 steps/);

		const meta = byType(4)[0];
		const metaLength = meta.readUInt32BE(4);
		expect(JSON.parse(meta.subarray(8, 8 + metaLength).toString())).toMatchObject({ node_id: '3', prompt_id: id, image_type: 'image/png' });
		expect(meta.subarray(8 + metaLength, 16 + metaLength)).toEqual(PNG_SIGNATURE);
	});

	test('a second connection of the same user receives the same messages; other users none', async () => {
		const first = await Listener.open(sim.apiKey, 'client-a');
		const second = await Listener.open(sim.apiKey, 'client-b');
		const stranger = await Listener.open(OTHER_KEY);
		const id = await submit(txt2img());
		await first.end(id);
		await waitUntil(() => second.json.length === first.json.length && second.frames.length === first.frames.length);
		expect(second.json.slice(1)).toEqual(first.json.slice(1)); // greetings differ only in sid
		expect(second.json[0].data.sid).toBe('client-b');
		expect(stranger.json.filter((m) => m.type !== 'status')).toHaveLength(0);
		expect(sim.cloud.openSockets()).toBe(3);
		expect(sim.counters.wsConnections).toBe(3);
	});

	test('interleaves messages of another job of the same user, which clients must filter out', async () => {
		const ws = await Listener.open();
		const id = await submit(txt2img());
		await ws.end(id);
		const others = ws.json.filter((m) => m.type !== 'status' && m.data.prompt_id !== id);
		expect(new Set(others.map((m) => m.data.prompt_id)).size).toBe(1);
		expect(others.map((m) => m.type)).toEqual(['executing', 'executed', 'execution_error']);
		expect(others[1].data.output.images[0].filename).toMatch(/\.png$/);
		expect(await statusOf(id)).toBe('completed');

		sim.options.interleaveOtherJobs = false;
		const quiet = await Listener.open();
		const id2 = await submit(txt2img());
		await quiet.end(id2);
		expect(quiet.json.filter((m) => m.type !== 'status' && m.data.prompt_id !== id2)).toHaveLength(0);
	});
});

describe('authentication and account checks', () => {
	test('REST calls without or with an unknown X-API-Key get 401 with an error body', async () => {
		for (const key of [null, 'wrong-key']) {
			for (const [method, path] of [
				['GET', '/api/object_info'],
				['POST', '/api/prompt'],
				['GET', '/api/queue'],
				['POST', '/api/interrupt'],
			] as const) {
				const res = await api(method, path, method === 'POST' ? {} : undefined, key);
				expect(res.status).toBe(401);
				expect(res.data.error).toEqual(expect.objectContaining({ type: expect.any(String), message: expect.stringMatching(/API key/) }));
			}
		}
	});

	test('a WebSocket with a wrong token is refused with HTTP 401; other paths get 404', async () => {
		await expect(Listener.open('wrong-key')).rejects.toThrow('401');
		const other = new WebSocket(`${sim.wsBaseUrl}/socket?token=${sim.apiKey}`);
		other.on('error', () => undefined);
		const status = await new Promise<number>((resolve) => other.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
		expect(status).toBe(404);
		expect(sim.counters.wsConnections).toBe(0);
		expect(sim.cloud.wsHandshakes.map((h) => h.accepted)).toEqual([false, false]);
		expect(JSON.stringify(sim.cloud.wsHandshakes)).not.toContain(sim.apiKey);
	});

	test('submits answer 402 without credits and 429 with an inactive subscription', async () => {
		const broke = await api('POST', '/api/prompt', { prompt: txt2img() }, BROKE_KEY);
		expect(broke.status).toBe(402);
		expect(broke.data.error.message).toMatch(/credits/);
		const lapsed = await api('POST', '/api/prompt', { prompt: txt2img() }, LAPSED_KEY);
		expect(lapsed.status).toBe(429);
		expect(lapsed.data.error.message).toMatch(/subscription is inactive/);
		expect(sim.cloud.jobs.size).toBe(0);
	});
});

describe('workflow validation (400)', () => {
	const broken = (edit: (g: Graph) => void): Graph => {
		const g = txt2img();
		edit(g);
		return g;
	};
	const cases: Array<[string, unknown, RegExp]> = [
		['no prompt', { extra_data: {} }, /No prompt provided/],
		['prompt not an object', { prompt: ['4', '5'] }, /object keyed by node id/],
		[
			'node without class_type',
			{ prompt: broken((g) => delete (g['5'] as Partial<Graph[string]>).class_type) },
			/missing the class_type property.*Node ID '#5'/,
		],
		[
			'node without inputs',
			{ prompt: broken((g) => delete (g['5'] as Partial<Graph[string]>).inputs) },
			/Node 5 \(EmptyLatentImage\) has no inputs/,
		],
		['unknown class', { prompt: broken((g) => (g['8'].class_type = 'MysteryNode')) }, /node MysteryNode does not exist/],
		[
			'missing required input',
			{ prompt: broken((g) => delete g['3'].inputs.seed) },
			/"3":\{"errors":\[\{"type":"required_input_missing","message":"Required input is missing","details":"seed"/,
		],
		[
			'link to a missing node',
			{ prompt: broken((g) => (g['8'].inputs.samples = ['99', 0])) },
			/"type":"exception_during_validation","message":"Exception when validating node","details":"'99'"/,
		],
		[
			'link to a missing output',
			{ prompt: broken((g) => (g['8'].inputs.vae = ['4', 7])) },
			/"details":"tuple index out of range","extra_info":\{"exception_type":"IndexError"/,
		],
		[
			'link of the wrong type',
			{ prompt: broken((g) => (g['8'].inputs.vae = ['4', 1])) },
			/"details":"vae, received_type\(CLIP\) mismatch input_type\(VAE\)"/,
		],
		[
			'value not in a list',
			{ prompt: broken((g) => (g['3'].inputs.sampler_name = 'warp')) },
			/"details":"sampler_name: 'warp' not in \['euler'/,
		],
		[
			'number out of range',
			{ prompt: broken((g) => (g['3'].inputs.steps = 0)) },
			/"message":"Value 0 smaller than min of 1","details":"steps"/,
		],
		['no output node', { prompt: broken((g) => delete g['9']) }, /Prompt has no outputs/],
		['a cycle', { prompt: broken((g) => (g['3'].inputs.latent_image = ['3', 0])) }, /has a cycle/],
		[
			'UI-format export',
			{ prompt: { nodes: [{ id: 1, type: 'KSampler' }], links: [[1, 1, 0, 2, 0, 'MODEL']] } },
			/UI-format workflow export/,
		],
		['UI-format export as the body', { nodes: [], links: [], version: 0.4 }, /UI-format workflow export/],
	];
	// Worded as the upstream server words it: the kind in message, the facts in details and extra_info.
	test.each(cases)('%s', async (_name, body, words) => {
		const res = await api('POST', '/api/prompt', body);
		expect(res.status).toBe(400);
		expect(JSON.stringify(res.data)).toMatch(words);
		expect(sim.cloud.jobs.size).toBe(0);
	});

	test('node_errors name the node and input', async () => {
		const g = txt2img();
		delete g['3'].inputs.seed;
		const res = await api('POST', '/api/prompt', { prompt: g });
		expect(res.data.error.type).toBe('prompt_outputs_failed_validation');
		expect(res.data.node_errors['3']).toMatchObject({
			class_type: 'KSampler',
			errors: [{ type: 'required_input_missing', extra_info: { input_name: 'seed' } }],
		});
	});

	test('a body that is not JSON is a 400', async () => {
		const res = await http.post(`${sim.baseUrl}/api/prompt`, '{"prompt": ', {
			headers: { 'X-API-Key': sim.apiKey, 'Content-Type': 'application/json' },
		});
		expect(res.status).toBe(400);
	});
});

describe('node catalogue', () => {
	test('GET /api/object_info lists node definitions in the usual shape', async () => {
		const res = await api('GET', '/api/object_info');
		expect(res.status).toBe(200);
		const defs = res.data as Record<string, any>;
		for (const name of [
			'CheckpointLoaderSimple',
			'CLIPTextEncode',
			'EmptyLatentImage',
			'KSampler',
			'VAEDecode',
			'SaveImage',
			'PreviewImage',
			'LoadImage',
			'LoadImageMask',
			'SaveVideo',
			'VHS_VideoCombine',
			'SaveAudio',
			'PartnerImageGenerate',
		]) {
			expect(defs[name]).toMatchObject({
				name,
				display_name: expect.any(String),
				category: expect.any(String),
				output_node: expect.any(Boolean),
			});
			expect(Array.isArray(defs[name].output)).toBe(true);
			expect(defs[name].output_name).toHaveLength(defs[name].output.length);
		}
		expect(defs.KSampler.input.required.seed[0]).toBe('INT');
		expect(defs.KSampler.input.required.sampler_name[0]).toContain('euler');
		expect(defs.CheckpointLoaderSimple.output).toEqual(['MODEL', 'CLIP', 'VAE']);
		expect(defs.SaveImage.output_node).toBe(true);
		expect(defs.VHS_VideoCombine.input.optional.audio).toEqual(['AUDIO']);
		expect(defs.PartnerImageGenerate.api_node).toBe(true);
		expect(defs.KSampler.api_node).toBeUndefined();
		const one = await api('GET', '/api/object_info/KSampler');
		expect(Object.keys(one.data)).toEqual(['KSampler']);
	});
});

describe('output files', () => {
	const mediaGraph = (): Graph => ({
		...txt2img(),
		'10': { class_type: 'CreateVideo', inputs: { images: ['8', 0], fps: 24 } },
		'11': { class_type: 'SaveVideo', inputs: { video: ['10', 0], filename_prefix: 'video/clip', format: 'auto', codec: 'auto' } },
		'12': {
			class_type: 'VHS_VideoCombine',
			inputs: {
				images: ['8', 0],
				frame_rate: 8,
				loop_count: 0,
				filename_prefix: 'anim/loop',
				format: 'video/h264-mp4',
				pingpong: false,
				save_output: true,
			},
		},
		'13': { class_type: 'EmptyLatentAudio', inputs: { seconds: 5, batch_size: 1 } },
		'14': { class_type: 'VAEDecodeAudio', inputs: { samples: ['13', 0], vae: ['4', 2] } },
		'15': { class_type: 'SaveAudio', inputs: { audio: ['14', 0], filename_prefix: 'audio/song' } },
	});

	test('video, gifs and audio references (some without subfolder or type) lead to valid files', async () => {
		const ws = await Listener.open();
		const id = await submit(mediaGraph());
		expect((await ws.end(id)).type).toBe('execution_success');
		const outputs = Object.fromEntries(
			ws
				.of(id)
				.filter((m) => m.type === 'executed')
				.map((m) => [m.data.node, m.data.output]),
		);

		const video = outputs['11'].video[0];
		expect(video).toEqual({ filename: expect.stringMatching(/\.mp4$/) });
		expect((await download(video)).subarray(4, 8).toString()).toBe('ftyp');

		const gif = outputs['12'].gifs[0];
		expect(gif).toMatchObject({ subfolder: 'anim', type: 'output', format: 'video/h264-mp4' });
		expect((await download(gif)).subarray(4, 8).toString()).toBe('ftyp');

		const audio = outputs['15'].audio[0];
		expect(audio).toEqual({ filename: expect.stringMatching(/\.wav$/), subfolder: 'audio' });
		const wav = await download(audio);
		expect([wav.subarray(0, 4).toString(), wav.subarray(8, 12).toString()]).toEqual(['RIFF', 'WAVE']);

		// A picture to look at: 512×512, many colours (not an 8×8 dot).
		const picture = decodePng(await download(outputs['9'].images[0]));
		expect([picture.width, picture.height]).toEqual([512, 512]);
		expect(picture.colours).toBeGreaterThan(1000);
	});

	test('a batch of 2 gives two images; PreviewImage files have type temp', async () => {
		const g = txt2img();
		g['5'].inputs.batch_size = 2;
		g['20'] = { class_type: 'PreviewImage', inputs: { images: ['8', 0] } };
		const ws = await Listener.open();
		const id = await submit(g);
		await ws.end(id);
		const job = sim.cloud.jobs.get(id);
		expect(job?.outputs['9'].images).toHaveLength(2);
		const preview = job?.outputs['20'].images[0] as Record<string, unknown>;
		expect(preview.type).toBe('temp');
		expect((await download(preview)).subarray(0, 8)).toEqual(PNG_SIGNATURE);
		// The two images of the batch are different pictures.
		const [first, second] = await Promise.all((job?.outputs['9'].images as Array<Record<string, unknown>>).map((image) => download(image)));
		expect(first!.equals(second!)).toBe(false);
		const asOutput = await api('GET', '/api/view', undefined, sim.apiKey, { filename: String(preview.filename) });
		expect(asOutput.status).toBe(404);
	});

	test('/api/view answers 404 for unknown files and for another account', async () => {
		const missing = await api('GET', '/api/view', undefined, sim.apiKey, { filename: 'nope.png', subfolder: '', type: 'output' });
		expect(missing.status).toBe(404);
		const ws = await Listener.open();
		const id = await submit(txt2img());
		await ws.end(id);
		const ref = sim.cloud.jobs.get(id)?.outputs['9'].images[0] as Record<string, string>;
		const foreign = await api('GET', '/api/view', undefined, OTHER_KEY, { filename: ref.filename });
		expect(foreign.status).toBe(404);
	});

	test('setOutputSize makes later outputs large synthetic streams with the right header', async () => {
		const size = 3 * 1024 * 1024 + 5;
		sim.cloud.setOutputSize(size);
		const ws = await Listener.open();
		const id = await submit(txt2img());
		await ws.end(id);
		const ref = sim.cloud.jobs.get(id)?.outputs['9'].images[0] as Record<string, string>;
		const redirect = await api('GET', '/api/view', undefined, sim.apiKey, { filename: ref.filename });
		const res: AxiosResponse<Readable> = await http.get(redirect.headers.location as string, { responseType: 'stream' });
		expect(Number(res.headers['content-length'])).toBe(size);
		let total = 0;
		let head = Buffer.alloc(0);
		for await (const chunk of res.data) {
			if (head.length < 8) head = Buffer.concat([head, chunk as Buffer]).subarray(0, 8);
			total += (chunk as Buffer).length;
		}
		expect(total).toBe(size);
		expect(head).toEqual(PNG_SIGNATURE);
	});
});

describe('parallel limit and queue', () => {
	test('with limit 1, four jobs run one after another in submit order', async () => {
		// A job (7 nodes) outlasts the submits and status reads below, even on a busy machine (at 100 ms a
		// node the first job had ended by then, beside two CPU-bound processes at load 10).
		sim.options.nodeMs = 300;
		const ws = await Listener.open(SOLO_KEY);
		const ids: string[] = [];
		for (let i = 0; i < 4; i++) ids.push(await submit(txt2img(), {}, SOLO_KEY));
		expect(await statusOf(ids[0], SOLO_KEY)).toBe('in_progress');
		expect(await statusOf(ids[1], SOLO_KEY)).toBe('pending');
		const queue = await api('GET', '/api/queue', undefined, SOLO_KEY);
		expect(queue.data.queue_running.map((e: unknown[]) => e[1])).toEqual([ids[0]]);
		expect(queue.data.queue_pending.map((e: unknown[]) => e[1])).toEqual(ids.slice(1));

		await ws.end(ids[3]);
		const jobs = ids.map((id) => sim.cloud.jobs.get(id));
		expect(jobs.every((j) => j?.status === 'completed')).toBe(true);
		for (let i = 1; i < 4; i++) expect(jobs[i]?.startedAt).toBeGreaterThanOrEqual(jobs[i - 1]?.finishedAt ?? Infinity);
		const starts = ws.json.filter((m) => m.type === 'execution_start').map((m) => m.data.prompt_id);
		expect(starts).toEqual(ids);
	});

	test('with limit 3, a fourth job waits', async () => {
		sim.options.nodeMs = 100;
		const ids: string[] = [];
		for (let i = 0; i < 4; i++) ids.push(await submit(txt2img()));
		const statuses = await Promise.all(ids.map((id) => statusOf(id)));
		expect(statuses).toEqual(['in_progress', 'in_progress', 'in_progress', 'pending']);
	});

	test('queue delete cancels pending and running jobs; interrupt stops the running one', async () => {
		sim.options.nodeMs = 100;
		const ws = await Listener.open(SOLO_KEY);
		const [a, b, c] = [await submit(txt2img(), {}, SOLO_KEY), await submit(txt2img(), {}, SOLO_KEY), await submit(txt2img(), {}, SOLO_KEY)];

		const delPending = await api('POST', '/api/queue', { delete: [b] }, SOLO_KEY);
		expect(delPending.status).toBe(200);
		expect(delPending.data).toEqual({ deleted: [b] });
		expect(await statusOf(b, SOLO_KEY)).toBe('cancelled');
		expect((await ws.end(b)).type).toBe('execution_interrupted');
		expect(await statusOf(a, SOLO_KEY)).toBe('in_progress');

		await waitUntil(() => ws.of(a).some((m) => m.type === 'executing' && m.data.node === '5'));
		const delRunning = await api('POST', '/api/queue', { delete: [a, 'not-a-job'] }, SOLO_KEY);
		expect(delRunning.data).toEqual({ deleted: [a] });
		const interrupted = await ws.end(a);
		expect(interrupted).toMatchObject({ type: 'execution_interrupted', data: { prompt_id: a, node_id: expect.any(String) } });
		expect(await statusOf(a, SOLO_KEY)).toBe('cancelled');
		expect(await statusOf(c, SOLO_KEY)).toBe('in_progress');

		const stop = await api('POST', '/api/interrupt', undefined, SOLO_KEY);
		expect(stop.status).toBe(200);
		expect(stop.data).toEqual({ interrupted: [c] });
		expect((await ws.end(c)).type).toBe('execution_interrupted');
		expect(await statusOf(c, SOLO_KEY)).toBe('cancelled');
		expect(ws.of(c).some((m) => m.type === 'execution_success')).toBe(false);
		const queue = await api('GET', '/api/queue', undefined, SOLO_KEY);
		expect(queue.data).toEqual({ queue_running: [], queue_pending: [] });
	});

	test('clear cancels pending jobs only; another account cannot touch them', async () => {
		sim.options.nodeMs = 100;
		const [d, e] = [await submit(txt2img(), {}, SOLO_KEY), await submit(txt2img(), {}, SOLO_KEY)];
		const foreign = await api('POST', '/api/queue', { delete: [d, e] }, OTHER_KEY);
		expect(foreign.data).toEqual({ deleted: [] });
		expect((await api('POST', '/api/interrupt', undefined, OTHER_KEY)).data).toEqual({ interrupted: [] });
		const clear = await api('POST', '/api/queue', { clear: true }, SOLO_KEY);
		expect(clear.data).toEqual({ deleted: [e] });
		expect([await statusOf(d, SOLO_KEY), await statusOf(e, SOLO_KEY)]).toEqual(['in_progress', 'cancelled']);
		const bad = await api('POST', '/api/queue', { delete: 'x' }, SOLO_KEY);
		expect(bad.status).toBe(400);
	});
});

describe('job status and records', () => {
	test('status and job record are 404 for unknown ids and for other accounts', async () => {
		expect((await api('GET', `/api/job/${randomUUID()}/status`)).status).toBe(404);
		expect((await api('GET', `/api/jobs/${randomUUID()}`)).status).toBe(404);
		const id = await submit(txt2img());
		expect((await api('GET', `/api/job/${id}/status`, undefined, OTHER_KEY)).status).toBe(404);
		expect((await api('GET', `/api/jobs/${id}`, undefined, OTHER_KEY)).status).toBe(404);
	});

	test('GET /api/jobs/{id} has outputs once terminal, and none when the switch is off', async () => {
		sim.options.nodeMs = 100;
		const ws = await Listener.open();
		const id = await submit(txt2img());
		const early = await api('GET', `/api/jobs/${id}`);
		expect(early.data).toMatchObject({
			id,
			prompt_id: id,
			status: expect.stringMatching(/pending|in_progress/),
			created_at: expect.any(String),
		});
		expect(early.data).not.toHaveProperty('outputs');
		await ws.end(id);
		const done = await api('GET', `/api/jobs/${id}`);
		expect(done.data.status).toBe('completed');
		expect(done.data.outputs['9'].images[0]).toMatchObject({ filename: expect.stringMatching(/\.png$/), type: 'output' });

		sim.options.jobsEndpointOutputs = false;
		const off = await api('GET', `/api/jobs/${id}`);
		expect(off.data.status).toBe('completed');
		expect(off.data).not.toHaveProperty('outputs');
	});
});

describe('execution failures', () => {
	const partnerGraph = (): Graph => ({
		'1': { class_type: 'PartnerImageGenerate', inputs: { prompt: 'a red fox', width: 1024, height: 1024, seed: 7 } },
		'2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'partner' } },
	});

	test('a partner node without api_key_host_org fails with InsufficientFundsError', async () => {
		const ws = await Listener.open();
		const id = await submit(partnerGraph());
		const end = await ws.end(id);
		expect(end.type).toBe('execution_error');
		expect(end.data).toMatchObject({
			prompt_id: id,
			node_id: '1',
			node_type: 'PartnerImageGenerate',
			exception_type: 'InsufficientFundsError',
		});
		expect(end.data.exception_message).toMatch(/api_key_host_org/);
		expect(Array.isArray(end.data.traceback) && end.data.traceback.every((l: unknown) => typeof l === 'string')).toBe(true);
		expect(await statusOf(id)).toBe('failed');
		const record = await api('GET', `/api/jobs/${id}`);
		expect(record.data.execution_error.exception_type).toBe('InsufficientFundsError');

		const wrong = await submit(partnerGraph(), { extra_data: { api_key_host_org: 'someone-elses-key' } });
		expect((await ws.end(wrong)).type).toBe('execution_error');
	});

	test('with the account key in api_key_host_org it succeeds, and the key is never echoed', async () => {
		sim.options.nodeMs = 100; // long enough for the queue listing to see it running
		const ws = await Listener.open();
		const submitted = await api('POST', '/api/prompt', {
			prompt: partnerGraph(),
			extra_data: { api_key_host_org: sim.apiKey, note: 'hi' },
		});
		const id = submitted.data.prompt_id as string;
		expect(JSON.stringify(submitted.data)).not.toContain(sim.apiKey);
		const queue = await api('GET', '/api/queue');
		expect(queue.data.queue_running.map((e: unknown[]) => e[1])).toContain(id);
		expect(JSON.stringify(queue.data)).not.toContain(sim.apiKey);
		expect((await ws.end(id)).type).toBe('execution_success');
		expect(sim.cloud.jobs.get(id)?.extraDataKeys).toEqual(['api_key_host_org', 'note']);
		expect(JSON.stringify((await api('GET', `/api/jobs/${id}`)).data)).not.toContain(sim.apiKey);
		expect(JSON.stringify(ws.json)).not.toContain(sim.apiKey);
		expect(ws.frames.some((f) => f.readUInt32BE(0) === 3 && f.toString('utf8', 8).includes('partner'))).toBe(true);
	});

	test.each([
		'ValidationError',
		'ModelDownloadError',
		'ImageDownloadError',
		'OOMError',
		'InsufficientFundsError',
		'InactiveSubscriptionError',
	])('failNextJob reports %s on the next job only', async (exceptionType) => {
		const ws = await Listener.open();
		sim.cloud.failNextJob({ exception_type: exceptionType, exception_message: `injected ${exceptionType}`, nodeId: '3' });
		const failing = await submit(txt2img());
		const next = await submit(txt2img());
		const end = await ws.end(failing);
		expect(end.data).toMatchObject({
			node_id: '3',
			node_type: 'KSampler',
			exception_type: exceptionType,
			exception_message: `injected ${exceptionType}`,
		});
		expect(end.data.executed).toEqual(['4', '5', '6', '7']);
		expect(await statusOf(failing)).toBe('failed');
		expect((await ws.end(next)).type).toBe('execution_success');
	});

	test('failNextJob without nodeId fails at the last node; an unavailable model fails with ModelDownloadError', async () => {
		const ws = await Listener.open();
		sim.cloud.failNextJob({ exception_type: 'OOMError', exception_message: 'CUDA out of memory' });
		const id = await submit(txt2img());
		expect((await ws.end(id)).data).toMatchObject({ node_id: '9', exception_type: 'OOMError' });
		expect(ws.of(id).some((m) => m.type === 'executed')).toBe(false);

		const g = txt2img();
		g['4'].inputs.ckpt_name = 'sd_xl_turbo_1.0_fp16.safetensors';
		const model = await submit(g);
		expect((await ws.end(model)).data).toMatchObject({ node_id: '4', exception_type: 'ModelDownloadError' });
	});
});

describe('uploads', () => {
	const bytes = Buffer.concat([PNG_SIGNATURE, Buffer.from('pretend image data')]);

	test('the same bytes get the same content-addressed name; the file is viewable as input', async () => {
		const first = await http.post(`${sim.baseUrl}/api/upload/image`, uploadForm(bytes, 'Cat.PNG'), {
			headers: { 'X-API-Key': sim.apiKey },
		});
		expect(first.status).toBe(200);
		expect(first.data).toEqual({ name: expect.stringMatching(/^[0-9a-f]{64}\.png$/), subfolder: '', type: 'input' });
		const again = await http.post(`${sim.baseUrl}/api/upload/image`, uploadForm(bytes, 'other-name.png'), {
			headers: { 'X-API-Key': sim.apiKey },
		});
		expect(again.data.name).toBe(first.data.name);
		const different = await http.post(`${sim.baseUrl}/api/upload/image`, uploadForm(Buffer.concat([bytes, Buffer.from('!')])), {
			headers: { 'X-API-Key': sim.apiKey },
		});
		expect(different.data.name).not.toBe(first.data.name);

		expect(await download({ filename: first.data.name, type: 'input' })).toEqual(bytes);
		expect(await download({ filename: first.data.name, subfolder: 'clipspace', type: 'input' })).toEqual(bytes);
		const info = await api('GET', '/api/object_info/LoadImage');
		expect(info.data.LoadImage.input.required.image[0]).toContain(first.data.name);
	});

	test('uploads beyond the limit get 413, uploads without an image part 400', async () => {
		const big = await http.post(`${sim.baseUrl}/api/upload/image`, uploadForm(Buffer.alloc(UPLOAD_LIMIT + 1)), {
			headers: { 'X-API-Key': sim.apiKey },
		});
		expect(big.status).toBe(413);
		const form = new FormData();
		form.append('type', 'input');
		const none = await http.post(`${sim.baseUrl}/api/upload/image`, form, { headers: { 'X-API-Key': sim.apiKey } });
		expect(none.status).toBe(400);
		expect(none.data.error.message).toMatch(/image/);
		const notMultipart = await api('POST', '/api/upload/image', { image: 'x' });
		expect(notMultipart.status).toBe(400);
		expect((await http.post(`${sim.baseUrl}/api/upload/image`, uploadForm(bytes))).status).toBe(401);
		expect(sim.cloud.uploads).toHaveLength(0);
	});

	test('mask uploads take original_ref (subfolder ignored) and answer a flat name', async () => {
		const original = await http.post(`${sim.baseUrl}/api/upload/image`, uploadForm(bytes), { headers: { 'X-API-Key': sim.apiKey } });
		const maskBytes = Buffer.concat([PNG_SIGNATURE, Buffer.from('mask')]);
		const fields = {
			type: 'input',
			subfolder: 'clipspace',
			original_ref: JSON.stringify({ filename: original.data.name, subfolder: '', type: 'input' }),
		};
		const mask = await http.post(`${sim.baseUrl}/api/upload/mask`, uploadForm(maskBytes, 'mask.png', fields), {
			headers: { 'X-API-Key': sim.apiKey },
		});
		expect(mask.status).toBe(200);
		expect(mask.data).toEqual({ name: expect.stringMatching(/^[0-9a-f]{64}\.png$/), subfolder: '', type: 'input' });
		const orphan = await http.post(
			`${sim.baseUrl}/api/upload/mask`,
			uploadForm(maskBytes, 'mask.png', { type: 'input', original_ref: JSON.stringify({ filename: 'never-uploaded.png' }) }),
			{ headers: { 'X-API-Key': sim.apiKey } },
		);
		expect(orphan.status).toBe(404);
		const noRef = await http.post(`${sim.baseUrl}/api/upload/mask`, uploadForm(maskBytes, 'mask.png', { type: 'input' }), {
			headers: { 'X-API-Key': sim.apiKey },
		});
		expect(noRef.status).toBe(400);
	});

	test('LoadImage runs with an uploaded name and is a 400 with an unknown one', async () => {
		const uploaded = await http.post(`${sim.baseUrl}/api/upload/image`, uploadForm(bytes), { headers: { 'X-API-Key': sim.apiKey } });
		const graph = (image: string): Graph => ({
			'1': { class_type: 'LoadImage', inputs: { image } },
			'2': { class_type: 'LoadImageMask', inputs: { image, channel: 'alpha' } },
			'3': { class_type: 'PreviewImage', inputs: { images: ['1', 0] } },
		});
		const ws = await Listener.open();
		const id = await submit(graph(uploaded.data.name));
		expect((await ws.end(id)).type).toBe('execution_success');
		const unknown = await api('POST', '/api/prompt', { prompt: graph('missing.png') });
		expect(unknown.status).toBe(400);
		expect(unknown.data.node_errors['1'].errors[0]).toMatchObject({
			type: 'custom_validation_failed',
			details: 'image - Invalid image file: missing.png',
		});
	});
});

describe('fault switches', () => {
	test('dropWebSocket ends every socket abruptly after N messages; the job still finishes', async () => {
		const a = await Listener.open();
		const b = await Listener.open();
		sim.faults.dropWebSocket = { afterMessages: 3 };
		const id = await submit(txt2img());
		await waitUntil(() => a.closeCode !== undefined && b.closeCode !== undefined);
		expect([a.closeCode, b.closeCode]).toEqual([1006, 1006]);
		expect(a.json.length + a.frames.length).toBe(1 + 3);
		expect(b.json.length + b.frames.length).toBe(1 + 3);
		expect(sim.faults.dropWebSocket).toBeUndefined();
		await waitUntil(() => sim.cloud.jobs.get(id)?.status === 'completed');
		expect(await statusOf(id)).toBe('completed');
		const again = await Listener.open();
		expect(again.json[0].type).toBe('status');
		expect(sim.counters.wsConnections).toBe(3);
	});

	test('silenceWebSocket drops (not delays) the messages of its window; the job still finishes', async () => {
		// The window opens at execution_cached, sent in the same turn as node 4's "executing": a window
		// of 50 ms had ended between the two on a loaded machine (the process waited for a core). A node
		// takes 400 ms, so node 9 (the seventh) comes 2.4 s after the start, long after the window.
		sim.options.nodeMs = 400;
		const ws = await Listener.open();
		sim.faults.silenceWebSocket = { afterMessages: 2, ms: 1000 };
		const id = await submit(txt2img());
		expect((await ws.end(id)).type).toBe('execution_success');
		const mine = ws.of(id).map((m) => m.type);
		expect(mine[0]).toBe('execution_start');
		expect(mine).not.toContain('execution_cached');
		const executing = ws
			.of(id)
			.filter((m) => m.type === 'executing')
			.map((m) => m.data.node);
		expect(executing).not.toContain('4');
		expect(executing).toContain('9');
		expect(sim.faults.silenceWebSocket).toBeUndefined();
		expect(await statusOf(id)).toBe('completed');
	});

	test('redirectWithoutLocation answers 302 without Location, then is used up', async () => {
		const ws = await Listener.open();
		const id = await submit(txt2img());
		await ws.end(id);
		const ref = sim.cloud.jobs.get(id)?.outputs['9'].images[0] as Record<string, string>;
		sim.faults.redirectWithoutLocation = { count: 1 };
		const bad = await api('GET', '/api/view', undefined, sim.apiKey, { filename: ref.filename });
		expect(bad.status).toBe(302);
		expect(bad.headers.location).toBeUndefined();
		const good = await api('GET', '/api/view', undefined, sim.apiKey, { filename: ref.filename });
		expect(good.headers.location).toMatch(/^http:\/\/localhost:/);
		expect(sim.faults.redirectWithoutLocation).toBeUndefined();

		sim.faults.expiredSignedUrls = true;
		const expired = await api('GET', '/api/view', undefined, sim.apiKey, { filename: ref.filename });
		expect((await http.get(expired.headers.location as string)).status).toBe(403);
	});

	test('reset() stops running jobs: no more messages, no jobs left', async () => {
		sim.options.nodeMs = 20;
		const ws = await Listener.open();
		const id = await submit(txt2img());
		await waitUntil(() => ws.of(id).some((m) => m.type === 'executing'));
		sim.reset();
		const seen = ws.json.length;
		await new Promise((r) => setTimeout(r, 80));
		expect(ws.json.length).toBe(seen);
		expect(sim.cloud.jobs.size).toBe(0);
		expect((await api('GET', `/api/job/${id}/status`)).status).toBe(404);
	});
});
