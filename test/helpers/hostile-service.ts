/**
 * Hostile services for the security tests: loopback servers that play a service gone wrong
 * (echoing secrets, redirecting to another host, stalling, sending oversized or forged data).
 * The simulator stays faithful to the real service, so these parts are played here, in one place.
 * A test describes its service's answers with a handler; the behaviours tests share are below.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

import { WebSocket, WebSocketServer } from 'ws';

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
				send('execution_success', {});
			});
			return;
		}
		if (/^\/api\/job\/[^/]+\/status$/.test(path)) return sendJson(res, 200, { status: 'completed' });
		if (path.startsWith('/api/jobs/'))
			return sendJson(res, 200, { id: path.slice(10), status: 'completed', outputs: { '9': options.output() } });
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
