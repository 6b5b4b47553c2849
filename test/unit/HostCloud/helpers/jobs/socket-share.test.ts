/**
 * The process's shared progress socket (`jobs/socket-share.ts`) against the simulator's WebSocket
 * on loopback: runs with the same credential share one connection and its client id; a run that
 * restarts it (it never told of a job's end) tells every other run that messages may have been
 * missed; a run's silence is its own; it closes with its last run, and the next run opens another.
 */
import { createServer, type AddressInfo, type Socket } from 'node:net';

import axios from 'axios';
import { type WebSocket, WebSocketServer } from 'ws';

import { shareJobSocket, type ShareEvents } from '../../../../../nodes/HostCloud/helpers/jobs/socket-share';
import { startSimulator, type Simulator } from '../../../../../simulator/server';
import { txt2img, waitUntil } from '../../../../support/cloud';

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
	await waitUntil(() => sim.cloud.openSockets() === 0, 30_000);

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
	await waitUntil(() => a.trusted, 30_000);
	a.close();
	b.close();
});

describe('messages kept for submits under way', () => {
	let server: WebSocketServer;
	let url: string;
	beforeAll(async () => {
		server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
		await new Promise((resolve) => server.once('listening', resolve));
		url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
	});
	afterAll(async () => {
		await new Promise((resolve) => server.close(resolve));
	});

	/** A share of a socket to the test server; `send` sends frames to it and waits until they have all been read. */
	async function connected() {
		let markers = 0;
		const events = { ...listener(), watches: (id: string) => id === 'marker', onJobMessage: () => void markers++ };
		const share = shareJobSocket({ urlFor: (clientId) => `${url}/ws?clientId=${clientId}`, headers: {}, secrets: [] }, settings, events);
		const client = new Promise<WebSocket>((resolve) => server.once('connection', resolve));
		expect(await share.connect()).toBe(true);
		const socket = await client;
		const send = async (frames: string[]) => {
			const expected = markers + 1;
			for (const frame of [...frames, message('executing', 'marker')]) socket.send(frame);
			await waitUntil(() => markers === expected, 60_000);
		};
		return { share, send };
	}
	const message = (type: string, promptId: string, extra: Record<string, unknown> = {}) =>
		JSON.stringify({ type, data: { prompt_id: promptId, ...extra } });

	test('a job whose messages all stayed is whole; one some of whose messages were dropped for newer ones is not', async () => {
		const { share, send } = await connected();
		const early = share.beginSubmission();
		await send([message('executed', 'mine', { node: '9', output: { images: [] } })]);
		const late = share.beginSubmission();
		await send(Array.from({ length: 5000 }, (_, i) => message('executing', `other-${i}`, { node: '3' })));
		expect(share.takeKept('mine', early)).toEqual({ messages: [], whole: false });
		// A submit that began after the drop trusts what is kept for it.
		const later = share.beginSubmission();
		const kept = share.takeKept('other-4999', later);
		expect(kept).toMatchObject({ whole: true, messages: [expect.objectContaining({ type: 'executing' })] });
		// One that began before it does not, whatever was dropped.
		expect(share.takeKept('other-4998', late).whole).toBe(false);
		for (let i = 0; i < 3; i++) share.endSubmission();
		share.close();
	}, 30_000);

	test('the store is bounded by size too: 32 MiB', async () => {
		const { share, send } = await connected();
		const mark = share.beginSubmission();
		await send([message('executed', 'mine', { node: '9', output: { images: [] } })]);
		const big = 'x'.repeat(12 * 1024 * 1024);
		await send([1, 2, 3].map((i) => message('executed', `big-${i}`, { node: '9', output: { text: [big] } })));
		expect(share.takeKept('mine', mark)).toEqual({ messages: [], whole: false });
		expect(share.takeKept('big-3', mark).messages).toHaveLength(1);
		share.endSubmission();
		share.close();
	}, 30_000);

	test('a job whose first messages were dropped under a long flood is never handed over as whole', async () => {
		const { share, send } = await connected();
		const mark = share.beginSubmission();
		await send([message('executed', 'mine', { node: '9', output: { images: [{ filename: 'first.png' }] } })]);
		for (let batch = 0; batch < 15; batch++)
			await send(Array.from({ length: 1000 }, (_, i) => message('executing', `other-${batch}-${i}`, { node: '3' })));
		await send([
			message('executed', 'mine', { node: '10', output: { images: [{ filename: 'second.png' }] } }),
			message('execution_success', 'mine'),
		]);
		const kept = share.takeKept('mine', mark);
		expect(kept.messages.map((kept) => kept.type)).toEqual(['executed', 'execution_success']);
		expect(kept.whole).toBe(false);
		share.endSubmission();
		share.close();
	}, 60_000);

	test('a frame that is not JSON is logged without its text (the service may echo the key)', async () => {
		const key = 'sk-SECRETKEY1234567890';
		const warned: string[] = [];
		const logger = { warn: (line: string) => void warned.push(line), debug: () => undefined } as never;
		const lost = listener();
		const share = shareJobSocket(
			{ urlFor: (c) => `${url}/ws?clientId=${c}&token=${key}`, headers: {}, secrets: [key] },
			settings,
			lost,
			logger,
		);
		const client = new Promise<WebSocket>((resolve) => server.once('connection', resolve));
		await share.connect();
		(await client).send(`${key} echoed`);
		await waitUntil(() => warned.length > 0, 30_000);
		expect(warned[0]).toMatch(/is not valid JSON/);
		expect(warned.join('\n')).not.toContain(key.slice(0, 6));
		// It may have been any job's `executed`: a gap for every run.
		expect(lost.lost).toBe(1);
		share.close();
	}, 30_000);
});

test('while another run’s connect is under way, a run waits for it to end rather than looking again at once', async () => {
	// Accepts the connection and never answers the upgrade (a stalled proxy).
	const held: Socket[] = [];
	const stalled = createServer((socket) => void held.push(socket));
	await new Promise<void>((resolve) => stalled.listen(0, '127.0.0.1', resolve));
	try {
		const port = (stalled.address() as AddressInfo).port;
		const stalledAddress = { urlFor: (c: string) => `ws://127.0.0.1:${port}/ws?clientId=${c}`, headers: {}, secrets: [] };
		const changed = listener();
		let changes = 0;
		const b = shareJobSocket(stalledAddress, { keepPreview: false, connectTimeoutMs: 500 }, { ...changed, onChange: () => void changes++ });
		const a = shareJobSocket(stalledAddress, { keepPreview: false, connectTimeoutMs: 500 }, listener());
		const connecting = a.connect();
		await waitUntil(() => held.length === 1, 30_000);
		expect(b.connectDue(Date.now())).toBe(false);
		expect(b.nextCheckAt(30_000)).toBe(Number.POSITIVE_INFINITY);
		expect(await connecting).toBe(false);
		// Its end is news to every run: each looks again (and reconnects after the back-off).
		expect(changes).toBe(1);
		expect(b.nextCheckAt(30_000)).toBeGreaterThan(Date.now());
		a.close();
		b.close();
	} finally {
		for (const socket of held) socket.destroy();
		await new Promise((resolve) => stalled.close(resolve));
	}
}, 20_000);

test('self-hosted: after a restart the server still sends the shared client id its jobs’ messages', async () => {
	// Upstream ComfyUI forgets a client id when any socket of it closes: the old one must be gone before the new one opens.
	const selfHosted = await startSimulator({ flavour: 'self-hosted', nodeMs: 5 });
	try {
		for (let round = 0; round < 3; round++) {
			let heard = 0;
			let watched = '';
			const events = { ...listener(), watches: (id: string) => id === watched, onJobMessage: () => void heard++ };
			const serverAddress = { urlFor: (c: string) => `${selfHosted.wsBaseUrl}/ws?clientId=${c}`, headers: {}, secrets: [] };
			const a = shareJobSocket(serverAddress, settings, listener());
			const b = shareJobSocket(serverAddress, settings, events);
			expect(await a.connect()).toBe(true);
			a.restart();
			expect(await b.connect()).toBe(true);
			const answer = await axios.post(`${selfHosted.baseUrl}/api/prompt`, { prompt: txt2img(), client_id: b.clientId });
			watched = answer.data.prompt_id;
			await waitUntil(() => selfHosted.cloud.jobs.get(watched)?.status === 'completed', 10_000);
			await waitUntil(() => heard > 0, 30_000);
			a.close();
			b.close();
			selfHosted.reset();
		}
	} finally {
		await selfHosted.close();
	}
}, 60_000);
