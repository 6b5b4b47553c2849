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
