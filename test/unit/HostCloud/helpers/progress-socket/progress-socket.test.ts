/**
 * The progress socket (`progress-socket/progress-socket.ts`) when the runtime's WebSocket client
 * refuses to make a socket at all (an address it cannot use): the connect fails like any other
 * that could not open, and is tried again later; it never rejects (a rejected connect that nobody
 * awaits would be an unhandled rejection in n8n's process).
 */
import { JobSocket, type SocketListener } from '../../../../../nodes/HostCloud/helpers/progress-socket/progress-socket';

function listener(): SocketListener & { changes: number } {
	const events = {
		changes: 0,
		wantsPreview: false,
		watches: () => true,
		onJobMessage: () => undefined,
		onPreview: () => undefined,
		onLost: () => undefined,
		onChange: () => {
			events.changes++;
		},
	};
	return events;
}

test('a socket the runtime will not make is a failed connect, tried again later', async () => {
	// The WHATWG client throws at once for an address with a fragment.
	const socket = new JobSocket('ws://127.0.0.1:9/ws#not-a-socket-address', { secrets: [] });
	const reader = listener();
	socket.listen(reader);

	await expect(socket.connect()).resolves.toBe(false);
	expect(socket.open).toBe(false);
	expect(socket.shortTries).toBe(1);
	expect(socket.reconnectAt).toBeGreaterThan(0);
	expect(reader.changes).toBe(1);
	// Nothing is left under way: the next connect tries again (and fails the same way).
	expect(socket.connectUnderWay).toBeUndefined();
	await expect(socket.connect()).resolves.toBe(false);
	expect(socket.shortTries).toBe(2);
	socket.close();
});
