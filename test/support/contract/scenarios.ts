/**
 * The contract of a ComfyUI-compatible server, as Host Cloud depends on it: a fixed list of
 * scenarios (a run, a cached run, preview frames, refused workflows of each kind, an execution
 * error, the queue with an interrupt, uploads, /view, the empty 200 bodies, the server's controls:
 * stats, models, /free and the history read and deleted) played against a
 * server at a base URL, each recorded as the answers and WebSocket messages a client sees, with
 * what changes from run to run (ids, times, file counters) replaced by placeholders.
 *
 * The same code records the fixtures from the real upstream server (scripts/record-real-server.ts)
 * and plays the simulator's self-hosted flavour in test/simulator/self-hosted/real-server-contract.test.ts,
 * so the two records can only differ where the servers do.
 */
import { picturePng } from '../../../simulator/shared/png';

/** What differs between the servers a scenario runs on: the names each one knows. */
export interface ContractTarget {
	baseUrl: string;
	/** A checkpoint the server lists, so the workflow passes validation, but cannot load. */
	failingCheckpoint: string;
	/** A colour drawn per run, so the first run of the success graph is never served from an earlier run's cache. */
	colour: number;
}

export interface RecordedAnswer {
	request: string;
	status: number;
	contentType: string;
	/** The JSON body (normalised), the text, or for a file its kind and length. */
	body: unknown;
}

export type RecordedMessage = { type: string; data: unknown } | { binary: number; imageType?: number; image?: string };

export interface ScenarioRecord {
	answers: RecordedAnswer[];
	/** The messages of the scenario's jobs, in the order they came (queue `status` messages left out: their timing races the job's). */
	messages?: RecordedMessage[];
}

export type ContractRecord = Record<string, ScenarioRecord>;

export type Graph = Record<string, { class_type: string; inputs: Record<string, unknown> }>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const FILE_COUNTER = /_\d{5}_\./;

/** Replaces what changes between runs: ids, timestamps, file counters, traceback lines. */
export function normalise(value: unknown, key = ''): unknown {
	if (typeof value === 'string') {
		if (UUID.test(value)) return '<id>';
		if (key === 'client_id' || key === 'sid') return '<client_id>';
		return value.replace(FILE_COUNTER, '_<n>_.');
	}
	if (typeof value === 'number' && /timestamp|execution_start_time|number/.test(key)) return '<number>';
	if (Array.isArray(value)) {
		if (key === 'traceback') return value.length ? ['<line>'] : [];
		return value.map((item) => normalise(item));
	}
	if (value && typeof value === 'object') {
		return Object.fromEntries(Object.entries(value).map(([k, v]) => [UUID.test(k) ? '<id>' : k, normalise(v, k)]));
	}
	return value;
}

function imageKind(bytes: Uint8Array): string {
	if (bytes[0] === 0x89 && bytes[1] === 0x50) return 'png';
	if (bytes[0] === 0xff && bytes[1] === 0xd8) return 'jpeg';
	return 'other';
}

/** One WebSocket with every message it receives, kept in order. */
class Listener {
	readonly messages: Array<{ type: string; data: Record<string, unknown> } | { binary: Uint8Array }> = [];
	private socket!: WebSocket;

	constructor(readonly clientId: string) {}

	async open(baseUrl: string): Promise<void> {
		this.socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/ws?clientId=${this.clientId}`);
		this.socket.binaryType = 'arraybuffer';
		this.socket.onmessage = (event: MessageEvent) => {
			if (typeof event.data === 'string') this.messages.push(JSON.parse(event.data));
			else this.messages.push({ binary: new Uint8Array(event.data as ArrayBuffer) });
		};
		await new Promise((resolve, reject) => {
			this.socket.onopen = resolve;
			this.socket.onerror = reject;
		});
	}

	close(): void {
		this.socket.close();
	}

	/** Waits for the job's end message. */
	async ended(promptId: string, seconds = 60): Promise<void> {
		const ends = ['execution_success', 'execution_error', 'execution_interrupted'];
		for (const until = Date.now() + seconds * 1000; Date.now() < until; await pause(20)) {
			if (this.messages.some((m) => 'type' in m && ends.includes(m.type) && m.data?.prompt_id === promptId)) {
				// The last `executing {node: null}` follows the end message.
				await pause(300);
				return;
			}
		}
		throw new Error(`job ${promptId} did not end within ${seconds} s`);
	}

	/** The messages of these jobs from `from` on: their own, and the binary frames between. */
	of(promptIds: string[], from = 0): RecordedMessage[] {
		return this.messages.slice(from).flatMap((message): RecordedMessage[] => {
			if ('binary' in message) {
				const view = new DataView(message.binary.buffer, message.binary.byteOffset);
				const type = view.getUint32(0);
				return type === 1 || type === 4
					? [{ binary: type, imageType: view.getUint32(4), image: imageKind(message.binary.subarray(8)) }]
					: [{ binary: type }];
			}
			if (message.type === 'status' || !promptIds.includes(String(message.data?.prompt_id))) return [];
			return [{ type: message.type, data: normalise(message.data) }];
		});
	}
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function answer(baseUrl: string, method: string, path: string, body?: unknown): Promise<{ record: RecordedAnswer; json: any }> {
	const init: RequestInit = { method, redirect: 'manual' };
	if (body instanceof FormData) init.body = body;
	else if (typeof body === 'string') init.body = body;
	else if (body !== undefined) {
		init.body = JSON.stringify(body);
		init.headers = { 'content-type': 'application/json' };
	}
	const res = await fetch(baseUrl + path, init);
	const contentType = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
	const bytes = new Uint8Array(await res.arrayBuffer());
	let json: any;
	let recorded: unknown;
	if (contentType === 'application/json') {
		json = JSON.parse(new TextDecoder().decode(bytes));
		recorded = normalise(json);
	} else if (contentType.startsWith('image/')) {
		recorded = { file: imageKind(bytes) };
	} else {
		recorded = new TextDecoder().decode(bytes);
	}
	const request = `${method} ${path.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/gi, '<id>').replace(FILE_COUNTER, '_<n>_.')}`;
	return { record: { request, status: res.status, contentType, body: recorded }, json };
}

export const emptyImage = (colour: number, extra: Record<string, unknown> = {}): Graph[string] => ({
	class_type: 'EmptyImage',
	inputs: { width: 64, height: 48, batch_size: 1, color: colour, ...extra },
});

export const save = (from: string, prefix = 'contract'): Graph[string] => ({
	class_type: 'SaveImage',
	inputs: { images: [from, 0], filename_prefix: prefix },
});

/** A chain of blurs over a large image: slow on a CPU server; on the simulator every node takes nodeMs. */
export function slowGraph(colour: number, blurs: number, prefix: string): Graph {
	const graph: Graph = { '1': emptyImage(colour, { width: 1536, height: 1536 }) };
	let previous = '1';
	for (let i = 0; i < blurs; i++) {
		const id = String(100 + i);
		graph[id] = { class_type: 'ImageBlur', inputs: { image: [previous, 0], blur_radius: 6, sigma: 3 } };
		previous = id;
	}
	graph['999'] = save(previous, prefix);
	return graph;
}

/**
 * A /system_stats answer with each device's name, type and index as placeholders: which device a
 * server has differs per machine (the fixtures' server runs on a CPU, whose index is null; a GPU's
 * is a number), while the fields a device has do not.
 */
function deviceless({ record }: { record: RecordedAnswer }): RecordedAnswer {
	const body = record.body as { devices?: unknown };
	if (!Array.isArray(body?.devices)) return record;
	const devices = body.devices.map((device: Record<string, unknown>) => ({
		...device,
		name: '<device>',
		type: '<device>',
		index: '<device>',
	}));
	return { ...record, body: { ...body, devices } };
}

/** Refused workflows, one per kind of error the server reports. */
function refusals(): Record<string, unknown> {
	const txt2img = (ckpt: string, latent: Record<string, unknown>): Graph => ({
		'4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: ckpt } },
		'5': { class_type: 'EmptyLatentImage', inputs: latent },
		'8': { class_type: 'VAEDecode', inputs: { samples: ['5', 0], vae: ['4', 2] } },
		'9': save('8'),
	});
	return {
		'value-not-in-list-and-missing-input': { prompt: txt2img('no-such-model.safetensors', { width: 64, height: 64 }) },
		'value-above-max': { prompt: { '1': emptyImage(1, { width: 99999999 }), '2': save('1') } },
		'value-below-min': { prompt: { '1': emptyImage(1, { height: 0 }), '2': save('1') } },
		'value-of-wrong-type': { prompt: { '1': emptyImage(1, { width: 'wide' }), '2': save('1') } },
		'link-of-wrong-type': {
			prompt: { '1': { class_type: 'EmptyLatentImage', inputs: { width: 64, height: 64, batch_size: 1 } }, '2': save('1') },
		},
		'link-to-missing-node': { prompt: { '1': emptyImage(1), '2': save('7') } },
		'image-not-uploaded': {
			prompt: { '1': { class_type: 'LoadImage', inputs: { image: 'no-such-upload.png' } }, '2': save('1') },
		},
		'unknown-class': { prompt: { '1': { class_type: 'NoSuchNode', inputs: {} }, '2': save('1') } },
		'no-outputs': { prompt: { '1': emptyImage(1) } },
		'no-prompt': {},
		'prompt-not-an-object': { prompt: 'a red fox' },
		'body-not-json': '{"prompt": ',
	};
}

async function upload(baseUrl: string, path: string, fields: Record<string, string>): Promise<RecordedAnswer> {
	const form = new FormData();
	form.append('image', new Blob([picturePng(8, 8)], { type: 'image/png' }), 'contract-upload.png');
	for (const [name, value] of Object.entries(fields)) form.append(name, value);
	return (await answer(baseUrl, 'POST', path, form)).record;
}

/** Plays every scenario against the server at `target.baseUrl`, one after the other. */
export async function playContract(target: ContractTarget): Promise<ContractRecord> {
	const base = target.baseUrl.replace(/\/+$/, '');
	const listener = new Listener(`contract-${Date.now()}`);
	await listener.open(base);
	const client_id = listener.clientId;
	const record: ContractRecord = {};
	const submit = async (prompt: Graph, path = '/prompt') => {
		const submitted = await answer(base, 'POST', path, { prompt, client_id });
		if (submitted.record.status !== 200) throw new Error(`submit answered ${submitted.record.status}: ${JSON.stringify(submitted.json)}`);
		return { ...submitted, promptId: String(submitted.json.prompt_id) };
	};
	try {
		// A run, its history entry, its file through /view (and /api/view), then the same graph again (cached).
		const graph = { '1': emptyImage(target.colour), '2': save('1') };
		let from = listener.messages.length;
		const run = await submit(graph);
		await listener.ended(run.promptId);
		const history = await answer(base, 'GET', `/history/${run.promptId}`);
		const file = history.json[run.promptId].outputs['2'].images[0];
		const query = `filename=${encodeURIComponent(file.filename)}&subfolder=${encodeURIComponent(file.subfolder)}&type=${file.type}`;
		record['success'] = {
			answers: [
				run.record,
				history.record,
				(await answer(base, 'GET', `/view?${query}`)).record,
				(await answer(base, 'GET', `/api/view?${query}`)).record,
			],
			messages: listener.of([run.promptId], from),
		};
		from = listener.messages.length;
		const again = await submit(graph, '/api/prompt');
		await listener.ended(again.promptId);
		record['cached-run'] = {
			answers: [again.record, (await answer(base, 'GET', `/api/history/${again.promptId}`)).record],
			messages: listener.of([again.promptId], from),
		};

		// Preview frames: SaveImageWebsocket sends each image as a binary frame.
		from = listener.messages.length;
		const preview = await submit({
			'1': emptyImage(target.colour + 1, { width: 16, height: 16, batch_size: 2 }),
			'2': { class_type: 'SaveImageWebsocket', inputs: { images: ['1', 0] } },
		});
		await listener.ended(preview.promptId);
		record['preview-frames'] = {
			answers: [preview.record, (await answer(base, 'GET', `/history/${preview.promptId}`)).record],
			messages: listener.of([preview.promptId], from),
		};

		// Refused workflows.
		for (const [name, body] of Object.entries(refusals())) {
			record[`refused:${name}`] = { answers: [(await answer(base, 'POST', '/prompt', body)).record] };
		}

		// An execution error: the checkpoint passes validation, then fails to load.
		from = listener.messages.length;
		const failing = await submit({
			'4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: target.failingCheckpoint } },
			'5': { class_type: 'EmptyLatentImage', inputs: { width: 64, height: 64, batch_size: 1 } },
			'8': { class_type: 'VAEDecode', inputs: { samples: ['5', 0], vae: ['4', 2] } },
			'9': save('8'),
		});
		await listener.ended(failing.promptId);
		record['execution-error'] = {
			answers: [failing.record, (await answer(base, 'GET', `/history/${failing.promptId}`)).record],
			messages: listener.of([failing.promptId], from),
		};

		// The queue: A runs, B waits; B is deleted, deleting A does nothing, A is interrupted.
		from = listener.messages.length;
		const slowA = await submit(slowGraph(target.colour + 2, 60, 'contract-a'));
		const slowB = await submit(slowGraph(target.colour + 3, 3, 'contract-b'));
		await pause(1500);
		const queue = await answer(base, 'GET', '/queue');
		const deleted = await answer(base, 'POST', '/queue', { delete: [slowB.promptId] });
		const runningDelete = await answer(base, 'POST', '/queue', { delete: [slowA.promptId] });
		const interrupted = await answer(base, 'POST', '/interrupt', { prompt_id: slowA.promptId });
		await listener.ended(slowA.promptId);
		record['queue-and-interrupt'] = {
			answers: [
				slowA.record,
				queue.record,
				deleted.record,
				runningDelete.record,
				interrupted.record,
				(await answer(base, 'GET', `/history/${slowA.promptId}`)).record,
				(await answer(base, 'GET', `/history/${slowB.promptId}`)).record,
				(await answer(base, 'GET', '/queue')).record,
			],
			messages: listener.of([slowA.promptId, slowB.promptId], from).filter((m) => !('type' in m) || m.type !== 'progress_state'),
		};

		// Uploads, a missing file, the small reads.
		record['uploads'] = {
			answers: [
				await upload(base, '/upload/image', { type: 'input', overwrite: 'true' }),
				await upload(base, '/api/upload/mask', {
					type: 'input',
					original_ref: JSON.stringify({ filename: 'contract-upload.png', subfolder: '', type: 'input' }),
				}),
			],
		};
		record['reads'] = {
			answers: [
				(await answer(base, 'GET', '/view?filename=no-such-file.png&type=output')).record,
				(await answer(base, 'GET', '/history/00000000-0000-4000-8000-000000000000')).record,
				(await answer(base, 'GET', '/prompt')).record,
				(await answer(base, 'POST', '/interrupt')).record,
				(await answer(base, 'GET', '/object_info/EmptyImage')).record,
				(await answer(base, 'GET', '/object_info/SaveImage')).record,
				(await answer(base, 'GET', '/object_info/NoSuchNode')).record,
			],
		};
		// The server's own controls: stats, the model folders (one unknown), memory, and the history read and deleted.
		const kept = await submit({ '1': emptyImage(target.colour + 4), '2': save('1', 'contract-kept') });
		await listener.ended(kept.promptId);
		const dropped = await submit({ '1': emptyImage(target.colour + 5), '2': save('1', 'contract-dropped') });
		await listener.ended(dropped.promptId);
		record['server-controls'] = {
			answers: [
				deviceless(await answer(base, 'GET', '/system_stats')),
				(await answer(base, 'GET', '/api/models')).record,
				(await answer(base, 'GET', '/models/checkpoints')).record,
				(await answer(base, 'GET', '/api/models/no-such-folder')).record,
				(await answer(base, 'GET', '/embeddings')).record,
				(await answer(base, 'GET', '/extensions')).record,
				(await answer(base, 'POST', '/free', { unload_models: true, free_memory: false })).record,
				(await answer(base, 'POST', '/api/free', { free_memory: true })).record,
				(await answer(base, 'POST', '/free', 'not json')).record,
				(await answer(base, 'GET', '/history?max_items=1')).record,
				(await answer(base, 'POST', '/api/history', { delete: [dropped.promptId, '00000000-0000-4000-8000-000000000000'] })).record,
				(await answer(base, 'GET', `/history/${dropped.promptId}`)).record,
				(await answer(base, 'GET', '/history?max_items=1')).record,
				(await answer(base, 'POST', '/history', { clear: true })).record,
				(await answer(base, 'GET', '/api/history')).record,
			],
		};
	} finally {
		listener.close();
	}
	return record;
}
