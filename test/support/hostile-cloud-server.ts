/**
 * A tiny hostile "cloud" for the Host Cloud Trigger's hostile-service tests: HTTP routes the test controls, plus a WebSocket at
 * /ws that can push any message to every connection. Nothing from the simulator.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { WebSocketServer, type WebSocket } from 'ws';

import { EngineHarness } from './engine';
import { ListeningTrigger } from './listening-trigger';
import { hostCloudApiCredential, selfHostedCredential as selfHostedData } from './credential-fixtures';

export type Route = (req: IncomingMessage, res: ServerResponse, url: URL) => boolean | void;

export interface HostileCloud {
	baseUrl: string;
	apiKey: string;
	harness: EngineHarness;
	credential: string;
	/** Every request path+query seen. */
	seen: string[];
	/** WebSocket connection attempts (upgrades) seen. */
	wsConnections: number;
	/** Sockets open now. */
	sockets: Set<WebSocket>;
	/** Routes tried in order before the defaults. */
	routes: Route[];
	/** What /api/job/{id}/status answers by default. */
	status: (id: string) => { code: number; body: unknown } | 'hang';
	/** What /api/jobs/{id} answers by default. */
	record: (id: string) => { code: number; body: unknown } | 'hang';
	queue: () => { code: number; body: unknown } | 'hang';
	/** When true, upgrades are accepted at TCP level but never answered. */
	refuseUpgrades: boolean;
	broadcast(message: unknown): void;
	dropSockets(): void;
	/** Requests neither answered nor given up by the client yet. */
	openRequests(): number;
	close(): Promise<void>;
}

const TINY_PNG = Buffer.from(
	'89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082',
	'hex',
);

function send(res: ServerResponse, answer: { code: number; body: unknown } | 'hang'): void {
	if (answer === 'hang') return; // never answers
	res.writeHead(answer.code, { 'Content-Type': 'application/json' });
	res.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
}

export async function startHostileCloud(apiKey = 'sk-attack-0123456789abcdef'): Promise<HostileCloud> {
	const hanging = new Set<ServerResponse>();
	const cloud = {
		apiKey,
		seen: [] as string[],
		wsConnections: 0,
		sockets: new Set<WebSocket>(),
		routes: [] as Route[],
		status: () => ({ code: 200, body: { status: 'in_progress' } }),
		record: () => ({ code: 404, body: { error: 'not found' } }),
		queue: () => ({ code: 200, body: { queue_running: [], queue_pending: [] } }),
		refuseUpgrades: false,
	} as unknown as HostileCloud;
	const server: Server = createServer((req, res) => {
		const url = new URL(req.url ?? '/', 'http://x');
		cloud.seen.push(`${req.method} ${url.pathname}${url.search}`);
		hanging.add(res);
		res.on('close', () => hanging.delete(res));
		for (const route of cloud.routes) if (route(req, res, url)) return;
		let match: RegExpExecArray | null;
		if (url.pathname === '/api/queue') return send(res, cloud.queue());
		if ((match = /^\/api\/job\/([^/]+)\/status$/.exec(url.pathname))) return send(res, cloud.status(decodeURIComponent(match[1]!)));
		if ((match = /^\/api\/jobs\/([^/]+)$/.exec(url.pathname))) return send(res, cloud.record(decodeURIComponent(match[1]!)));
		if (url.pathname === '/api/view') {
			res.writeHead(302, { Location: `${cloud.baseUrl}/o/${encodeURIComponent(url.searchParams.get('filename') ?? '')}?signature=abc` });
			return res.end();
		}
		if (url.pathname.startsWith('/o/')) {
			res.writeHead(200, { 'Content-Type': 'image/png' });
			return res.end(TINY_PNG);
		}
		res.writeHead(404, { 'Content-Type': 'application/json' });
		res.end('{"error":"no route"}');
	});
	const wss = new WebSocketServer({ noServer: true });
	server.on('upgrade', (req, socket, head) => {
		cloud.wsConnections++;
		if (cloud.refuseUpgrades) return; // TCP open, handshake never answered
		wss.handleUpgrade(req, socket, head, (ws) => {
			cloud.sockets.add(ws);
			ws.on('close', () => cloud.sockets.delete(ws));
			ws.send(JSON.stringify({ type: 'status', data: { status: { exec_info: { queue_remaining: 0 } }, sid: 'x' } }));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	cloud.baseUrl = `http://127.0.0.1:${port}`;
	cloud.broadcast = (message: unknown) => {
		const text = typeof message === 'string' ? message : JSON.stringify(message);
		for (const ws of cloud.sockets) ws.send(text);
	};
	cloud.openRequests = () => hanging.size;
	cloud.dropSockets = () => {
		for (const ws of cloud.sockets) ws.terminate();
	};
	cloud.close = async () => {
		for (const ws of cloud.sockets) ws.terminate();
		wss.close();
		for (const res of hanging) res.destroy();
		server.closeAllConnections();
		await new Promise<void>((resolve) => server.close(() => resolve()));
	};
	cloud.harness = new EngineHarness();
	cloud.credential = cloud.harness.addCredential(
		'hostCloudApi',
		hostCloudApiCredential({ apiKey, baseUrl: cloud.baseUrl }),
		'Host Cloud API',
	);
	return cloud;
}

/** A self-hosted server credential on the same harness. */
export function selfHostedCredential(cloud: HostileCloud, proxyValue = 'proxy-secret-attack-77'): string {
	return cloud.harness.addCredential(
		'hostCloudApi',
		selfHostedData({ serverUrl: cloud.baseUrl, proxyHeaders: { values: [{ name: 'X-Proxy-Token', value: proxyValue }] } }),
		'Self-hosted',
	);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The messages of one job. */
export const msg = {
	start: (id: string) => ({ type: 'execution_start', data: { prompt_id: id, timestamp: Date.now() } }),
	executed: (id: string, node: string, output: unknown) => ({
		type: 'executed',
		data: { prompt_id: id, node, display_node: node, output },
	}),
	success: (id: string) => ({ type: 'execution_success', data: { prompt_id: id, timestamp: Date.now() } }),
	error: (id: string, data: Record<string, unknown>) => ({ type: 'execution_error', data: { prompt_id: id, ...data } }),
};

/**
 * A hostile cloud per test of a file, and the triggers its tests listen with (on it, with Download
 * Files off unless given), closed after each test. Read `suite.cloud` inside tests and hooks only.
 */
export function hostileCloudForEachTest(): {
	readonly cloud: HostileCloud;
	listening(parameters?: Record<string, unknown>): ListeningTrigger;
} {
	const triggers: ListeningTrigger[] = [];
	let current: HostileCloud | undefined;
	beforeEach(async () => {
		current = await startHostileCloud();
	});
	afterEach(async () => {
		for (const trigger of triggers.splice(0)) await trigger.close();
		await current?.close();
	});
	return {
		get cloud() {
			if (!current) throw new Error('The hostile cloud is started before each test: read it inside a test');
			return current;
		},
		listening(parameters = {}) {
			const trigger = new ListeningTrigger(this.cloud.harness, this.cloud.credential, { downloadFiles: false, ...parameters });
			triggers.push(trigger);
			return trigger;
		},
	};
}
