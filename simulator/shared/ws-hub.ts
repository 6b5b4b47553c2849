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
	/** Messages held back by the chaos fault `delayExecuted`, released together when the timer fires. */
	private held?: { queue: Array<{ sockets: WebSocket[]; payload: string | Buffer; binary: boolean }>; timer: NodeJS.Timeout };

	constructor(private readonly faults: Faults) {
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
		const chaos = this.faults.chaos;
		if (chaos?.roll('dropSocket')) return this.terminateAll();
		const binary = Buffer.isBuffer(message);
		const payload = binary ? message : JSON.stringify(message);
		const times = chaos?.roll('duplicateMessage') ? 2 : 1;
		if (!binary && (message as { type?: unknown }).type === 'executed' && chaos?.roll('delayExecuted') && !this.held) {
			this.held = { queue: [], timer: setTimeout(() => this.release(), chaos.delayMs) };
		}
		for (let i = 0; i < times; i++) {
			// A socket delivers in order: while one message is held back, those after it wait behind it.
			if (this.held) this.held.queue.push({ sockets: open, payload, binary });
			else for (const ws of open) ws.send(payload, { binary });
		}
	}

	/** Sends the messages held back by a delay, in order, to those of their sockets still open. */
	private release(): void {
		const held = this.held;
		this.held = undefined;
		for (const { sockets, payload, binary } of held?.queue ?? []) {
			for (const ws of sockets) if (ws.readyState === WebSocket.OPEN) ws.send(payload, { binary });
		}
	}

	private dropHeld(): void {
		if (this.held) clearTimeout(this.held.timer);
		this.held = undefined;
	}

	/** Abrupt end (no close frame): the client sees code 1006. */
	terminateAll(): void {
		this.dropHeld();
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
		this.dropHeld();
	}

	async close(): Promise<void> {
		this.terminateAll();
		await new Promise<void>((resolve) => this.wss.close(() => resolve()));
	}
}
