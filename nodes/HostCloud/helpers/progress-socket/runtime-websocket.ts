/**
 * The runtime's WebSocket client (the WHATWG one Node 22+ has built in; Node 20 has it behind
 * --experimental-websocket). Community packages may not bring their own, and @types/node 20 does
 * not declare it, so the few members this package uses are declared here.
 */

/** A message event: text frames carry a string, binary frames an ArrayBuffer (binaryType 'arraybuffer'). */
export interface SocketMessageEvent {
	data: unknown;
}

export interface SocketCloseEvent {
	code: number;
	reason: string;
}

export interface RuntimeWebSocket {
	binaryType: string;
	readonly readyState: number;
	onopen: ((event: unknown) => void) | null;
	onmessage: ((event: SocketMessageEvent) => void) | null;
	onclose: ((event: SocketCloseEvent) => void) | null;
	onerror: ((event: unknown) => void) | null;
	close(code?: number, reason?: string): void;
}

/** Node's client (undici) takes headers for the upgrade request; the browser's has no such option. */
export type RuntimeWebSocketClass = new (url: string, init?: { headers?: Record<string, string> }) => RuntimeWebSocket;

/** readyState of an open socket, and of one whose connection is closed. */
export const SOCKET_OPEN = 1;
export const SOCKET_CLOSED = 3;

declare const WebSocket: RuntimeWebSocketClass | undefined;

/** The runtime's WebSocket class, or undefined where there is none (the node then polls). */
export function runtimeWebSocket(): RuntimeWebSocketClass | undefined {
	return typeof WebSocket === 'undefined' ? undefined : WebSocket;
}
