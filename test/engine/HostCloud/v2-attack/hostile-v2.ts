/**
 * A hostile v2 jobs API on loopback for the outside attack on Host Cloud v2: every answer is what
 * the test's `answer` says, and every request is kept, so a test counts what the node sent and
 * where its key went. A second loopback server (`elsewhere`) stands for any other host a server
 * may name (a storage host, an attacker's host).
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';

import { EngineHarness } from '../../../support/engine';
import { startLoopbackServer, type LoopbackServer, type SeenRequest } from '../../../support/loopback-server';
import { txt2img } from '../../../support/cloud';

export const API_KEY = 'attack-key-5b1e90c4d7';
export const PNG = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 13) % 251));

export type Answer = (req: SeenRequest, res: ServerResponse) => void;

export interface HostileV2 {
	api: LoopbackServer;
	elsewhere: LoopbackServer;
	harness: EngineHarness;
	credential: string;
	/** What the API answers; reset to a well-behaved server before each test. */
	answer: Answer;
	/** What the other host answers. */
	elsewhereAnswer: Answer;
	close(): Promise<void>;
}

export const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
	res.writeHead(status, { 'content-type': 'application/json', ...headers });
	res.end(typeof body === 'string' ? body : JSON.stringify(body));
};
export const envelope = (res: ServerResponse, status: number, code: string, headers: Record<string, string> = {}) =>
	json(res, status, { error: { code, message: `${code} from the server` } }, headers);

export function output(jobId: string, more: Record<string, unknown> = {}) {
	return {
		node_id: '9',
		name: 'out.png',
		type: 'image',
		content_type: 'image/png',
		size_bytes: PNG.length,
		id: `a5e7c0de-0000-4000-8000-${jobId.slice(-12)}`,
		hash: null,
		url: `http://127.0.0.1:1/signed/${jobId}.png`,
		url_expires_at: '2099-01-01T00:00:00Z',
		job_id: jobId,
		...more,
	};
}

export function job(id: string, status: string, more: Record<string, unknown> = {}) {
	return {
		id,
		status,
		created_at: '2026-12-02T07:00:00Z',
		started_at: null,
		completed_at: status === 'succeeded' ? '2026-12-02T07:00:05Z' : null,
		expires_at: '2099-01-01T00:00:00Z',
		queue_position: null,
		progress: null,
		outputs: status === 'succeeded' ? [output(id)] : [],
		error: null,
		urls: { self: `/api/v2/jobs/${id}`, events: `/api/v2/jobs/${id}/events`, cancel: `/api/v2/jobs/${id}/cancel` },
		...more,
	};
}

/** A well-behaved server: one job per submit, already succeeded; no stream (501), so it is polled. */
export function wellBehaved(state: { id: string }): Answer {
	return (req, res) => {
		const path = req.url.split('?')[0]!;
		if (req.method === 'POST' && path === '/api/v2/jobs') return json(res, 201, job(state.id, 'queued'));
		if (path.endsWith('/events')) return envelope(res, 501, 'not_implemented');
		if (path === `/api/v2/jobs/${state.id}`) return json(res, 200, job(state.id, 'succeeded'));
		if (path.endsWith('/content')) {
			res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(PNG.length) });
			return void res.end(PNG);
		}
		envelope(res, 404, 'not_found');
	};
}

export async function startHostileV2(): Promise<HostileV2> {
	const self = {} as HostileV2;
	self.api = await startLoopbackServer((req, res) => self.answer(req, res));
	self.elsewhere = await startLoopbackServer((req, res) => self.elsewhereAnswer(req, res));
	self.harness = new EngineHarness();
	self.credential = self.harness.addCredential('hostCloudV2Api', { baseUrl: self.api.url, apiKey: API_KEY }, 'Host Cloud V2 API');
	self.answer = wellBehaved({ id: randomUUID() });
	self.elsewhereAnswer = (_req, res) => json(res, 200, {});
	self.close = async () => {
		await self.api.close();
		await self.elsewhere.close();
	};
	return self;
}

/** The asset record a v2 API answers for `id` (the PNG, its link on the other host valid for years), with `more` over it. */
export function assetRecord(server: HostileV2, id: string, more: Record<string, unknown> = {}): Record<string, unknown> {
	return {
		id,
		hash: null,
		size_bytes: PNG.length,
		content_type: 'image/png',
		file_path: 'out.png',
		created_at: '2026-12-02T06:00:00Z',
		url: `${server.elsewhere.url}/signed/${id}`,
		url_expires_at: '2099-01-01T00:00:00Z',
		...more,
	};
}

/**
 * The hostile v2 server of a test file, used as the server itself: started before its tests
 * (then `setUp`), its request logs emptied after each, closed after all.
 */
export function useHostileV2(setUp?: (server: HostileV2) => void): HostileV2 {
	let server: HostileV2 | undefined;
	beforeAll(async () => {
		server = await startHostileV2();
		setUp?.(server);
	});
	afterEach(() => {
		if (!server) return;
		server.api.seen.length = 0;
		server.elsewhere.seen.length = 0;
	});
	afterAll(async () => await server?.close());
	const started = () => server ?? failNotStarted();
	return new Proxy({} as HostileV2, {
		get: (_target, key) => Reflect.get(started(), key),
		set: (_target, key, value) => Reflect.set(started(), key, value),
	});
}

function failNotStarted(): never {
	throw new Error('the hostile v2 server is used before its beforeAll started it');
}

export const QUICK = { pollIntervalSeconds: 0.1, maxWaitMinutes: 0.1, useWebSocket: true };

export function nodeSpec(v2: HostileV2, parameters: Record<string, unknown>, settings: Record<string, unknown> = {}) {
	return {
		type: 'hostCloud',
		parameters: { apiGeneration: 'v2', ...parameters } as never,
		credentials: { hostCloudV2Api: v2.credential },
		...settings,
	};
}

export const executeParameters = (more: Record<string, unknown> = {}) => ({
	resource: 'workflow',
	operation: 'execute',
	workflow: JSON.stringify(txt2img()),
	waitOptions: QUICK,
	downloadFiles: false,
	...more,
});

/** Every request any host got that carried the key, in any header or in the URL. */
export function keyBearers(...servers: LoopbackServer[]): SeenRequest[] {
	return servers.flatMap((s) => s.seen).filter((r) => JSON.stringify(r.headers).includes(API_KEY) || r.url.includes(API_KEY));
}

/** Everything the run shows a user: its items, errors and messages, as one string. */
export function visible(result: { items: unknown; error(name?: string): unknown }): string {
	const error = result.error('Node') as { message?: string; description?: string } | undefined;
	return JSON.stringify(result.items) + String(error?.message) + String(error?.description) + JSON.stringify(error ?? {});
}
