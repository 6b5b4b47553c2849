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
