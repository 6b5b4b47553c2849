/**
 * What both flavours' WebSocket hubs share: the upgrade hook, the handshake record, the greeting,
 * sending through the fault gate (ws-faults.ts), and ending sockets. Each flavour decides who may
 * connect and who hears a message.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';

import { WebSocket, WebSocketServer } from 'ws';

import type { Faults } from './core';
import { WsFaultGate } from './ws-faults';

/** One upgrade attempt (the front door's request log does not see upgrades). */
export interface WsHandshake {
	at: number;
	path: string;
	clientId: string;
	/** The token as the request log would show it: masked. */
	token: string;
	accountId?: string;
	accepted: boolean;
}

/** Answers an HTTP upgrade with a plain status and closes the socket. */
export function refuseUpgrade(socket: Duplex, status: number, reason: string, message: string): void {
	const body = JSON.stringify({ error: { type: reason.toLowerCase().replace(/ /g, '_'), message } });
	socket.end(
		`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
	);
}

export abstract class SocketHubBase {
	protected readonly wss = new WebSocketServer({ noServer: true });
	readonly handshakes: WsHandshake[] = [];
	private readonly gate: WsFaultGate;

	constructor(faults: Faults) {
		this.gate = new WsFaultGate(faults);
	}

	attach(server: Server): void {
		server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
			socket.on('error', () => socket.destroy());
			this.upgrade(req, socket, head);
		});
	}

	protected abstract upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;

	/** The first message of a connection, outside the fault gate: a client that reconnects always gets its sid. */
	protected greet(ws: WebSocket, sid: string, queueRemaining: number): void {
		ws.on('error', () => ws.terminate());
		ws.send(JSON.stringify({ type: 'status', data: { status: { exec_info: { queue_remaining: queueRemaining } }, sid } }));
	}

	/** Sends a JSON message (object) or a binary frame (Buffer) to those of `sockets` that are open. */
	protected send(sockets: Iterable<WebSocket>, message: object | Buffer): void {
		const open = [...sockets].filter((ws) => ws.readyState === WebSocket.OPEN);
		if (open.length === 0 || !this.gate.passes(() => this.terminateAll())) return;
		const binary = Buffer.isBuffer(message);
		const payload = binary ? message : JSON.stringify(message);
		for (const ws of open) ws.send(payload, { binary });
	}

	/** Abrupt end (no close frame): the client sees code 1006. */
	terminateAll(): void {
		for (const ws of this.wss.clients) ws.terminate();
	}

	openSockets(): number {
		let n = 0;
		for (const ws of this.wss.clients) if (ws.readyState === WebSocket.OPEN) n++;
		return n;
	}

	/** Forgets handshakes and fault state; open connections stay open (they are not state). */
	reset(): void {
		this.handshakes.length = 0;
		this.gate.reset();
	}

	async close(): Promise<void> {
		this.terminateAll();
		await new Promise<void>((resolve) => this.wss.close(() => resolve()));
	}
}
