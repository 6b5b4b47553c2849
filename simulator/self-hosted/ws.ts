/**
 * Self-hosted: the WebSocket at /ws (and /api/ws). Unlike the cloud, a socket is known by its
 * clientId, and a job's messages go to the socket whose clientId is the prompt's client_id. What
 * goes where follows the upstream server:
 * - `status` (queue changes) goes to every socket; the greeting only to the new one;
 * - execution_start, execution_cached, executing, executed, execution_success, execution_error go
 *   to the client's socket, and to nobody when the prompt had no client_id;
 * - progress, progress_state, execution_interrupted and preview frames go to the client's socket,
 *   and to every socket when the prompt had no client_id;
 * - text frames (type 3) go to every socket.
 * One socket per clientId: a second connection with the same id takes over, and when any socket
 * of that id closes the id is forgotten (so a newer socket of the same id stops receiving).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

import type { WebSocket } from 'ws';

import type { Job } from '../cloud/types';
import type { Counters, Faults } from '../shared/core';
import { type ProxyRefusal, refuseUpgradeByProxy } from './gate';
import { refuseUpgrade, SocketHubBase, type WsHandshake } from '../shared/ws-hub';

export interface ClientSocketHubDeps {
	faults: Faults;
	counters: Counters;
	/** The reverse proxy's verdict on an upgrade request. */
	refusal(req: IncomingMessage): ProxyRefusal | undefined;
	queueRemaining(): number;
	/** The job running for this client id, if any (a reconnecting client is told its current node). */
	runningFor(clientId: string): Job | undefined;
	/** Account id shown in handshake records. */
	accountId: string;
	log(line: string): void;
}

type Audience = 'everyone' | 'client' | 'client-or-everyone';

const CLIENT_OR_EVERYONE = new Set(['progress', 'progress_state', 'execution_interrupted']);
const TEXT_FRAME = 3;

function audienceOf(message: object | Buffer): Audience {
	if (Buffer.isBuffer(message)) return message.readUInt32BE(0) === TEXT_FRAME ? 'everyone' : 'client-or-everyone';
	const type = (message as { type?: string }).type ?? '';
	if (type === 'status') return 'everyone';
	return CLIENT_OR_EVERYONE.has(type) ? 'client-or-everyone' : 'client';
}

export class ClientSocketHub extends SocketHubBase {
	private readonly byClient = new Map<string, WebSocket>();

	constructor(private readonly deps: ClientSocketHubDeps) {
		super(deps.faults);
	}

	protected upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
		const url = new URL(req.url ?? '/', 'http://sim');
		const shake: WsHandshake = {
			at: Date.now(),
			path: url.pathname,
			clientId: url.searchParams.get('clientId') ?? '',
			token: '',
			accountId: this.deps.accountId,
			accepted: false,
		};
		this.handshakes.push(shake);
		const refusal = this.deps.refusal(req);
		if (refusal) return refuseUpgradeByProxy(socket, refusal);
		if (url.pathname !== '/ws' && url.pathname !== '/api/ws') {
			return refuseUpgrade(socket, 404, 'Not Found', `No WebSocket endpoint at ${url.pathname}; use /ws.`);
		}
		shake.accepted = true;
		this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, shake.clientId || randomUUID().replace(/-/g, '')));
	}

	private accept(ws: WebSocket, sid: string): void {
		this.deps.counters.wsConnections++;
		this.byClient.set(sid, ws);
		ws.on('close', () => this.byClient.delete(sid));
		this.deps.log(`WS /ws connected (clientId ${sid})`);
		this.greet(ws, sid, this.deps.queueRemaining());
		const running = this.deps.runningFor(sid);
		if (running?.currentNode !== undefined) ws.send(JSON.stringify({ type: 'executing', data: { node: running.currentNode } }));
	}

	/** Sends a JSON message (object) or a binary frame (Buffer) of `job` (absent: a queue status) to its audience. */
	emit(message: object | Buffer, job?: Job): void {
		this.send(this.recipients(message, job), message);
	}

	private recipients(message: object | Buffer, job?: Job): WebSocket[] {
		const everyone = [...this.byClient.values()];
		const audience = job ? audienceOf(message) : 'everyone';
		if (audience === 'everyone') return everyone;
		if (job?.clientId !== undefined) {
			const socket = this.byClient.get(job.clientId);
			return socket ? [socket] : [];
		}
		return audience === 'client-or-everyone' ? everyone : [];
	}

	async close(): Promise<void> {
		this.byClient.clear();
		await super.close();
	}
}

/**
 * The few fields where the upstream server's messages differ from the cloud's, applied to what the
 * shared runner sends: the end-of-run `executing` has no display_node, execution_error lists
 * each input's values and the run's node ids, and progress_state leaves out nodes that have not started.
 */
export function upstreamShape(message: object | Buffer, job?: Job): object | Buffer {
	if (Buffer.isBuffer(message)) return message;
	const { type, data } = message as { type: string; data: Record<string, unknown> };
	if (type === 'executing' && data.node === null) {
		const { display_node: _dropped, ...rest } = data;
		return { type, data: rest };
	}
	if (type === 'execution_error') {
		// Upstream lists each input's values (a list per input) and the ids of the nodes of the run, last first.
		const inputs = Object.entries((data.current_inputs ?? {}) as Record<string, unknown>).map(([name, value]) => [name, [value]]);
		const outputs = Array.isArray(data.current_outputs) ? data.current_outputs : [...(job?.order ?? [])].reverse();
		// Python's traceback.format_exception_only ends the message with a newline.
		const said =
			typeof data.exception_message === 'string' && !data.exception_message.endsWith('\n')
				? `${data.exception_message}\n`
				: data.exception_message;
		return { type, data: { ...data, exception_message: said, current_inputs: Object.fromEntries(inputs), current_outputs: outputs } };
	}
	if (type === 'progress_state') {
		const nodes = Object.entries((data.nodes ?? {}) as Record<string, { state?: string }>).filter(([, node]) => node.state !== 'pending');
		return { type, data: { ...data, nodes: Object.fromEntries(nodes) } };
	}
	return message;
}
