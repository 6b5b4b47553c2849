/**
 * Hostile services for the security tests: loopback servers that play a service gone wrong
 * (echoing secrets, redirecting to another host, stalling, sending oversized or forged data).
 * The simulator stays faithful to the real service, so these parts are played here, in one place.
 * A test describes its service's answers with a handler; the behaviours tests share are below.
 */
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

import { WebSocket, WebSocketServer } from 'ws';

import { ToneWav } from '../../simulator/media/formats';
import { startLoopbackServer, type LoopbackServer, type SeenRequest } from './loopback-server';

export type { SeenRequest };

export interface HostileService extends LoopbackServer {
	/** WebSocket connections accepted so far (the address they came to, with its query). */
	sockets: Array<{ url: string; socket: WebSocket }>;
}

export interface HostileOptions {
	/** Accept WebSocket upgrades (any path) and hand each socket to this function. */
	onSocket?: (socket: WebSocket, url: string) => void;
}

/** An HTTP (and, when asked, WebSocket) server on loopback, answering every request with `handle`. */
export async function startHostileService(
	handle: (req: SeenRequest, res: ServerResponse) => void,
	options: HostileOptions = {},
): Promise<HostileService> {
	const base = await startLoopbackServer(handle);
	const sockets: HostileService['sockets'] = [];
	const wss = new WebSocketServer({ noServer: true });
	const server = base.server;
	if (options.onSocket) {
		server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
			wss.handleUpgrade(req, socket, head, (ws) => {
				sockets.push({ url: req.url ?? '/', socket: ws });
				options.onSocket!(ws, req.url ?? '/');
			});
		});
	}
	return {
		...base,
		sockets,
		close: async () => {
			for (const { socket } of sockets) socket.terminate();
			wss.close();
			await base.close();
		},
	};
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
	res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
	res.end(JSON.stringify(body));
}

/** A redirect, with a body (as real servers send) so a client that follows it has something to read. */
export function redirectTo(res: ServerResponse, location: string, status = 302): void {
	sendJson(res, status, { moved: location }, { Location: location });
}

/** The encodings a service may echo a secret in: as is, URL-encoded, JSON-escaped, Base64. */
export function echoForms(secret: string): Record<'plain' | 'urlEncoded' | 'jsonEscaped' | 'base64' | 'base64Url', string> {
	return {
		plain: secret,
		urlEncoded: encodeURIComponent(secret),
		jsonEscaped: JSON.stringify(secret).slice(1, -1).replace(/\//g, '\\/'),
		base64: Buffer.from(secret).toString('base64'),
		base64Url: Buffer.from(secret).toString('base64url'),
	};
}

// --- Cloud (area A) ---

export interface HostileCloudOptions {
	/** The `output` of the one `executed` message each job sends (node "9"), as the service would send it. */
	output: () => Record<string, unknown>;
	/** Answers GET /api/view; the default redirects to `storage` with the file name in the path. */
	view?: (req: SeenRequest, res: ServerResponse) => void;
	/** Where the default view redirects to (a loopback recorder standing for the storage host). */
	storageUrl: string;
	/** Raw frames (text or binary) sent after the `executed` message and before `execution_success`. */
	frames?: (promptId: string) => Array<string | Buffer>;
	/** The job record's outputs by node id (default: node "9" with `output`). */
	recordOutputs?: () => Record<string, unknown>;
}

/**
 * A cloud that runs every submitted job at once: on the WebSocket of the submitting client it sends
 * `execution_start`, one `executed` with the test's output, and `execution_success`; the status
 * and job-record endpoints agree. What it says is up to the test (echoed keys, thousands of files).
 */
export async function startHostileCloud(options: HostileCloudOptions): Promise<HostileService> {
	const clients = new Map<string, WebSocket>();
	let jobs = 0;
	const handle = (req: SeenRequest, res: ServerResponse): void => {
		const path = req.url.split('?')[0]!;
		if (req.method === 'POST' && path === '/api/prompt') {
			const promptId = `hostile-${++jobs}`;
			const clientId = (JSON.parse(req.body || '{}') as { client_id?: string }).client_id ?? '';
			sendJson(res, 200, { prompt_id: promptId, number: jobs, node_errors: {} });
			const socket = clients.get(clientId);
			const send = (type: string, data: Record<string, unknown>) =>
				socket?.send(JSON.stringify({ type, data: { ...data, prompt_id: promptId } }));
			setImmediate(() => {
				send('execution_start', {});
				send('executed', { node: '9', display_node: '9', output: options.output() });
				for (const frame of options.frames?.(promptId) ?? []) socket?.send(frame);
				send('execution_success', {});
			});
			return;
		}
		if (/^\/api\/job\/[^/]+\/status$/.test(path)) return sendJson(res, 200, { status: 'completed' });
		if (path.startsWith('/api/jobs/'))
			return sendJson(res, 200, {
				id: path.slice(10),
				status: 'completed',
				outputs: options.recordOutputs?.() ?? { '9': options.output() },
			});
		if (path === '/api/object_info') return sendJson(res, 200, {});
		if (path === '/api/view') {
			if (options.view) return options.view(req, res);
			const name = new URL(req.url, 'http://x').searchParams.get('filename') ?? '';
			return redirectTo(res, `${options.storageUrl}/files/${encodeURIComponent(name)}?signature=storage-signature`);
		}
		sendJson(res, 404, { error: { type: 'not_found', message: `no route ${path}` } });
	};
	return await startHostileService(handle, {
		onSocket: (socket, url) => {
			const clientId = new URL(url, 'http://x').searchParams.get('clientId') ?? '';
			clients.set(clientId, socket);
		},
	});
}

/** A storage host that records what it is asked for and serves a few PNG-signature bytes. */
export async function startRecordingStorage(): Promise<HostileService> {
	return await startHostileService((_req, res) => {
		res.writeHead(200, { 'Content-Type': 'image/png' });
		res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]));
	});
}

// --- Music stream ---
// A music service gone wrong: it stops sending but holds the connection open, or sends events far
// larger than the real service's. Lines are built here; the audio is a real WAV (the simulator's
// tone), so a test can check that what is stored is exactly what was sent.

/** One NDJSON line of the music stream. */
export const musicLine = (event: Record<string, unknown>): string => `${JSON.stringify(event)}\n`;

/** The WAV file of take `streamIndex`: `bytes` long, header included, its tone set by the index. */
export function musicTakeAudio(streamIndex: number, bytes = 16 * 1024): Buffer {
	const wav = new ToneWav(bytes, 16000, 440 + 110 * streamIndex);
	return wav.read(0, wav.totalBytes);
}

/** The `audio_chunk` lines of `audio` for take `streamIndex`, `chunkBytes` of audio per line. */
export function musicChunkLines(streamIndex: number, audio: Buffer, chunkBytes = 4096): string[] {
	const lines: string[] = [];
	for (let at = 0; at < audio.length; at += chunkBytes) {
		lines.push(musicLine({ type: 'audio_chunk', stream_index: streamIndex, data: audio.subarray(at, at + chunkBytes).toString('base64') }));
	}
	return lines;
}

/** A `title` line as the real service sends it. */
export const musicTitleLine = (streamIndex: number, title = `Take ${streamIndex + 1}`): string =>
	musicLine({ type: 'title', title, display_tags: ['calm'], copy_index: streamIndex, prompt_index: 0, stream_index: streamIndex });

export interface MusicAnswer {
	/** Lines written at once, in order; 'no answer': not even the status line (the service never begins to answer). */
	lines: string[] | 'no answer';
	/** Then: end the response, or stall (hold the connection open and send nothing more, until the client closes it). */
	then: 'end' | 'stall';
}

/** Answers a music request with `answer`'s lines, then ends or stalls. */
export function answerMusic(res: ServerResponse, answer: MusicAnswer): void {
	if (answer.lines === 'no answer') return;
	res.writeHead(200, { 'Content-Type': 'application/x-ndjson' });
	for (const line of answer.lines) res.write(line);
	if (answer.then === 'end') res.end();
}

/** A non-audio event of `bytes` characters of JSON (a `detail` text fills it): far beyond any real event. */
export function oversizedMusicLine(type: string, bytes: number): string {
	const bare = JSON.stringify({ type, detail: '' }).length;
	return musicLine({ type, detail: 'x'.repeat(Math.max(0, bytes - bare)) });
}

// --- Notifications ---
// A notification reaches n8n from whoever holds its URL. These play the parts around Host Media's
// "Wait for Notification": an address inside the network that a forged notification names, the
// forgery itself, and a service that has no status path to check a notification against.

/** What an internal address answers: bytes no workflow may ever receive. */
export const INTERNAL_BODY = 'internal address: this must never reach a workflow';

/** A loopback server standing in for an address inside the network (a metadata service, an admin page); `seen` records every request. */
export async function startInternalAddress(): Promise<HostileService> {
	return await startHostileService((_req, res) => {
		res.writeHead(200, { 'Content-Type': 'image/png' });
		res.end(INTERNAL_BODY);
	});
}

/** A task notification rewritten to name `url` as every result (image `generated`, video `creations`), task and status kept. */
export function withResultUrl(notification: unknown, url: string): unknown {
	const body = JSON.parse(JSON.stringify(notification)) as Record<string, unknown>;
	const task = (typeof body.data === 'object' && body.data !== null ? body.data : body) as Record<string, unknown>;
	if ('state' in task) task.creations = [{ id: 'forged', url, cover_url: url }];
	else task.generated = [url];
	return body;
}

/** The file a service without status paths serves as a task's result. */
export const RESULT_FILE = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom-result-file')]);

/**
 * A media proxy with no status path (the spec shows none for relight, skin enhancer and video):
 * every submit answers a new task, every GET under /proxy answers 404, and `/files/result.mp4`
 * serves RESULT_FILE. Submits are answered as the spec shows them (video at the top level, image in `data{}`).
 */
export async function startServiceWithoutStatusPaths(): Promise<HostileService> {
	let tasks = 0;
	return await startHostileService((req, res) => {
		const path = req.url.split('?')[0]!;
		if (req.method === 'GET' && path === '/files/result.mp4') {
			res.writeHead(200, { 'Content-Type': 'video/mp4' });
			res.end(RESULT_FILE);
			return;
		}
		if (req.method === 'GET') return sendJson(res, 404, { message: `Not found: ${path}` });
		const number = String(++tasks).padStart(12, '0');
		if (path.startsWith('/proxy/video/')) return sendJson(res, 200, { task_id: `9${number}`, state: 'created', credits: 20 });
		sendJson(res, 200, { data: { task_id: `00000000-0000-4000-8000-${number}`, status: 'CREATED', generated: [] } });
	});
}

// --- Answers about another task ---
// A gateway in front of the media proxy that mixes its tasks up, as a cache keyed wrongly would:
// its answers are the service's own, well formed and true, but about another task.

/** The task id of a media status read (`GET …/imaging/v1/ai/{type}/{id}`, `GET /proxy/video/tasks/{id}/creations`), with its place in the path. */
const STATUS_READ = /^(\/proxy\/imaging\/v1\/ai\/[^/]+\/|\/proxy\/video\/tasks\/)([^/?]+)(\/creations)?$/;

export interface MixedUpGateway extends HostileService {
	/** While set, a status read of any other task reads this task's status instead (the path is all that changes). */
	decoy?: string;
	/** Status reads answered with the decoy's status so far. */
	mixedUp: number;
}

/**
 * A gateway forwarding every request to `target` (the simulator's media proxy) as it came, except
 * that while `decoy` is set a status read of another task is forwarded as a read of the decoy.
 */
export async function startMixedUpGateway(target: string): Promise<MixedUpGateway> {
	const gateway: MixedUpGateway = Object.assign(
		await startHostileService((req, res) => {
			const [path, query] = req.url.split('?') as [string, string | undefined];
			const read = req.method === 'GET' ? STATUS_READ.exec(path) : null;
			let url = req.url;
			if (read && gateway.decoy && read[2] !== gateway.decoy) {
				gateway.mixedUp++;
				url = `${read[1]}${gateway.decoy}${read[3] ?? ''}${query === undefined ? '' : `?${query}`}`;
			}
			const { host: _host, 'content-length': _length, ...headers } = req.headers;
			const forwarded = httpRequest(
				`${target}${url}`,
				{ method: req.method, headers: { ...headers, 'content-length': String(Buffer.byteLength(req.body)) } },
				(answer) => {
					res.writeHead(answer.statusCode ?? 502, answer.headers);
					answer.pipe(res);
				},
			);
			forwarded.on('error', () => res.destroy());
			forwarded.end(req.body);
		}),
		{ mixedUp: 0 },
	);
	return gateway;
}
