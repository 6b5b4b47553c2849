/**
 * Opening one progress WebSocket within a time limit: the handshake's events until it is open,
 * closed, failed or out of time, whichever comes first; after that, its socket's events go to
 * its owner (`progress-socket.ts`). The time limit is the package's `pause` with an
 * AbortController (no setTimeout in community nodes).
 */
import { pause } from '../../../shared/waits/pause';
import type { RuntimeWebSocket, RuntimeWebSocketClass } from './runtime-websocket';

/** What the opening of one socket tells its owner. */
export interface OpeningEvents {
	/** It opened: answers whether to keep it (false, as when the owner closed for good meanwhile: it is closed, and the opening failed). */
	opened(socket: RuntimeWebSocket): boolean;
	/** A frame came on it. */
	frame(socket: RuntimeWebSocket, data: unknown): void;
	/** After the opening ended, it closed (`error` false) or reported an error (true: it may still be open). */
	ended(socket: RuntimeWebSocket, error: boolean): void;
	/** The opening ended, open or not (called before `attempt` resolves). */
	settled(attempt: Promise<boolean>, ok: boolean): void;
	/** After `attempt` resolved: something a waiting loop should look at changed. */
	changed(): void;
}

export interface SocketOpening {
	/** True once the socket is open, false when it could not be opened in time. */
	attempt: Promise<boolean>;
	/** The socket being opened; undefined when the runtime could not even make one (the opening has ended then). */
	socket?: RuntimeWebSocket;
}

/** Makes a socket for `url` and opens it within `timeoutMs`, telling `events` what happens. */
export function openSocket(
	Socket: RuntimeWebSocketClass,
	url: string,
	headers: Record<string, string>,
	timeoutMs: number,
	events: OpeningEvents,
): SocketOpening {
	let resolve!: (ok: boolean) => void;
	const attempt = new Promise<boolean>((done) => (resolve = done));
	const timer = new AbortController();
	let settled = false;
	const finish = (ok: boolean) => {
		if (settled) return;
		settled = true;
		timer.abort();
		events.settled(attempt, ok);
		resolve(ok);
		events.changed();
	};
	let socket: RuntimeWebSocket;
	try {
		socket = Object.keys(headers).length > 0 ? new Socket(url, { headers }) : new Socket(url);
		socket.binaryType = 'arraybuffer';
	} catch {
		// An address or header the runtime refuses: a failed opening, retried later like any other.
		finish(false);
		return { attempt };
	}
	handleOpening(socket, events, () => settled, finish);
	pause(timeoutMs, timer.signal).then(
		() => {
			if (settled) return;
			socket.onclose = null;
			socket.close();
			finish(false);
		},
		() => undefined,
	);
	return { attempt, socket };
}

/** The socket's handlers: during the opening they end it; after, they tell the owner. */
function handleOpening(socket: RuntimeWebSocket, events: OpeningEvents, isSettled: () => boolean, finish: (ok: boolean) => void): void {
	socket.onopen = () => {
		if (events.opened(socket)) {
			finish(true);
			return;
		}
		socket.close();
		finish(false);
	};
	socket.onmessage = (event) => events.frame(socket, event.data);
	socket.onclose = () => {
		if (!isSettled()) finish(false);
		else events.ended(socket, false);
	};
	socket.onerror = () => {
		// A refused handshake may end with an error and no close event.
		if (!isSettled()) {
			socket.onclose = null;
			finish(false);
		} else events.ended(socket, true);
	};
}
