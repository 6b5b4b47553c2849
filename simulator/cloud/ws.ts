/**
 * Cloud: the WebSocket at /ws. Every connection of an account receives every message of that
 * account (clientId is ignored, as on the real service). All outgoing messages pass the fault gate
 * (shared/ws-faults.ts).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

import type { WebSocket } from 'ws';

import type { Account, Counters, Faults } from '../shared/core';
import { maskSecret } from '../shared/core';
import { refuseUpgrade, SocketHubBase, type WsHandshake } from '../shared/ws-hub';

export interface SocketHubDeps {
	faults: Faults;
	counters: Counters;
	accountByApiKey(key: string | undefined): Account | undefined;
	/** queue_remaining for the status message sent on connect. */
	queueRemaining(accountId: string): number;
	log(line: string): void;
}

export class SocketHub extends SocketHubBase {
	private readonly byAccount = new Map<string, Set<WebSocket>>();

	constructor(private readonly deps: SocketHubDeps) {
		super(deps.faults);
	}

	protected upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
		const url = new URL(req.url ?? '/', 'http://sim');
		const token = url.searchParams.get('token') ?? undefined;
		const account = this.deps.accountByApiKey(token);
		const shake: WsHandshake = {
			at: Date.now(),
			path: url.pathname,
			clientId: url.searchParams.get('clientId') ?? '',
			token: token === undefined ? '' : maskSecret(token),
			accountId: account?.id,
			accepted: false,
		};
		this.handshakes.push(shake);
		if (url.pathname !== '/ws') return refuseUpgrade(socket, 404, 'Not Found', `No WebSocket endpoint at ${url.pathname}; use /ws.`);
		if (!account)
			return refuseUpgrade(socket, 401, 'Unauthorized', 'Missing or unknown token: pass the API key as the token query parameter.');
		shake.accepted = true;
		this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, account, shake.clientId));
	}

	private accept(ws: WebSocket, account: Account, clientId: string): void {
		this.deps.counters.wsConnections++;
		let set = this.byAccount.get(account.id);
		if (!set) this.byAccount.set(account.id, (set = new Set()));
		set.add(ws);
		ws.on('close', () => set.delete(ws));
		this.deps.log(`WS /ws connected (account ${account.id}, clientId ${clientId || '-'})`);
		this.greet(ws, clientId || randomUUID().replace(/-/g, ''), this.deps.queueRemaining(account.id));
	}

	/** Sends a JSON message (object) or a binary frame (Buffer) to every open socket of the account. */
	emit(accountId: string, message: object | Buffer): void {
		this.send(this.byAccount.get(accountId) ?? [], message);
	}

	async close(): Promise<void> {
		this.byAccount.clear();
		await super.close();
	}
}

/*
 * Binary frames (all integers big-endian, bytes 0-3 always the frame type):
 * - type 1 PREVIEW_IMAGE: bytes 4-7 image_type (1 = JPEG, 2 = PNG), then the image bytes.
 * - type 3 TEXT: bytes 4-7 length N of the node id, then N bytes node id (UTF-8), then the text
 *   (UTF-8) to the end of the frame.
 * - type 4 PREVIEW_IMAGE_WITH_METADATA: bytes 4-7 length M of a JSON metadata header, then M bytes
 *   of UTF-8 JSON ({node_id, prompt_id, display_node_id, parent_node_id, real_node_id,
 *   image_type: "image/png" | "image/jpeg"}), then the image bytes to the end of the frame.
 */
/** Type, then a length-prefixed header, then the rest (layout of types 3 and 4). */
function frame(type: number, header: Buffer, rest: Buffer): Buffer {
	const head = Buffer.alloc(8);
	head.writeUInt32BE(type, 0);
	head.writeUInt32BE(header.length, 4);
	return Buffer.concat([head, header, rest]);
}

export function previewFrame(imageType: 1 | 2, image: Buffer): Buffer {
	const head = Buffer.alloc(8);
	head.writeUInt32BE(1, 0);
	head.writeUInt32BE(imageType, 4);
	return Buffer.concat([head, image]);
}

export function textFrame(nodeId: string, text: string): Buffer {
	return frame(3, Buffer.from(nodeId, 'utf8'), Buffer.from(text, 'utf8'));
}

export function metadataPreviewFrame(metadata: Record<string, unknown>, image: Buffer): Buffer {
	return frame(4, Buffer.from(JSON.stringify(metadata), 'utf8'), image);
}
