/**
 * The process's shared progress socket (`jobs/socket-share.ts`) against the simulator's WebSocket
 * on loopback: runs with the same credential share one connection and its client id; a run that
 * restarts it (it never told of a job's end) tells every other run that messages may have been
 * missed; a run's silence is its own; it closes with its last run, and the next run opens another.
 */
import axios from 'axios';

import { shareJobSocket, type ShareEvents } from '../../nodes/HostCloud/helpers/jobs/socket-share';
import { startSimulator, type Simulator } from '../../simulator/server';
import { txt2img, waitUntil } from '../helpers/cloud';

let sim: Simulator;
beforeAll(async () => {
	sim = await startSimulator({ nodeMs: 5 });
});
afterEach(() => sim.reset());
afterAll(async () => {
	await sim.close();
});

const address = (apiKey = sim.apiKey) => ({
	urlFor: (clientId: string) => `${sim.wsBaseUrl}/ws?clientId=${clientId}&token=${apiKey}`,
	headers: {},
	secrets: [apiKey],
});

function listener(): ShareEvents & { lost: number } {
	const events = {
		lost: 0,
		watches: () => false,
		onJobMessage: () => undefined,
		onPreview: () => undefined,
		onLost: () => {
			events.lost++;
		},
		onChange: () => undefined,
	};
	return events;
}

const settings = { keepPreview: false };

test('runs with one credential share one connection and its client id; it closes with the last', async () => {
	const [a, b] = [shareJobSocket(address(), settings, listener()), shareJobSocket(address(), settings, listener())];
	expect(await Promise.all([a.connect(), b.connect()])).toEqual([true, true]);
	expect(a.clientId).toBe(b.clientId);
	expect(sim.counters.wsConnections).toBe(1);
	expect(sim.cloud.wsHandshakes[0]!.clientId).toBe(a.clientId);

	a.close();
	expect(b.open).toBe(true);
	b.close();
	await waitUntil(() => sim.cloud.openSockets() === 0, 5000);

	const c = shareJobSocket(address(), settings, listener());
	expect(await c.connect()).toBe(true);
	expect(c.clientId).not.toBe(a.clientId);
	expect(sim.counters.wsConnections).toBe(2);
	c.close();
});

test('another key has a connection of its own', async () => {
	const a = shareJobSocket(address(), settings, listener());
	const b = shareJobSocket(address(`${sim.apiKey}-other`), settings, listener());
	await Promise.all([a.connect(), b.connect()]);
	expect(a.clientId).not.toBe(b.clientId);
	expect(sim.cloud.wsHandshakes).toHaveLength(2);
	a.close();
	b.close();
});

test('a restart tells the other runs that messages may have been missed, not the run that asked', async () => {
	const [eventsA, eventsB] = [listener(), listener()];
	const [a, b] = [shareJobSocket(address(), settings, eventsA), shareJobSocket(address(), settings, eventsB)];
	await a.connect();
	a.restart();
	expect(eventsB.lost).toBe(1);
	expect(eventsA.lost).toBe(0);
	expect(b.open).toBe(false);
	expect(b.connectDue(Date.now())).toBe(true);
	expect(await b.connect()).toBe(true);
	expect(a.open).toBe(true);
	expect(sim.counters.wsConnections).toBe(2);
	a.close();
	b.close();
});

test('a run judges silence for itself: its own submit restarts its count, and any frame ends it', async () => {
	const [a, b] = [shareJobSocket(address(), settings, listener()), shareJobSocket(address(), settings, listener())];
	await a.connect();
	const later = Date.now() + 60_000;
	b.beginSubmission();
	b.endSubmission();
	expect(a.fellSilent(later, 1000)).toBe(true);
	expect(a.trusted).toBe(false);
	expect(b.trusted).toBe(true);
	expect(b.fellSilent(Date.now() + 500, 1000)).toBe(false);
	// Any frame ends it: a job of the account is told of on every socket.
	await axios.post(`${sim.baseUrl}/api/prompt`, { prompt: txt2img() }, { headers: { 'X-API-Key': sim.apiKey } });
	await waitUntil(() => a.trusted, 5000);
	a.close();
	b.close();
});
