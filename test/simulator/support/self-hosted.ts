/**
 * A client of the simulator's self-hosted flavour, as the test files of that flavour use it: REST
 * over axios (no key), sockets known by clientId, completion read from the history.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import axios, { type AxiosResponse } from 'axios';
import WebSocket from 'ws';

import type { Simulator } from '../../../simulator/server';
import { waitUntil } from '../../support/wait';

export type Graph = Record<string, { class_type: string; inputs: Record<string, unknown> }>;
export interface Message {
	type: string;
	data: Record<string, any>;
}

const TXT2IMG: Graph = JSON.parse(readFileSync(join(__dirname, '../../fixtures/txt2img-api.json'), 'utf8'));
export const txt2img = (): Graph => structuredClone(TXT2IMG);

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export class SelfHostedClient {
	readonly http = axios.create({ validateStatus: () => true, maxRedirects: 0 });
	private readonly sockets: Listener[] = [];

	constructor(
		private readonly sim: () => Simulator,
		private readonly headers: () => Record<string, string> = () => ({}),
	) {}

	request(method: 'GET' | 'POST' | 'HEAD', path: string, data?: unknown, params?: Record<string, string>): Promise<AxiosResponse> {
		return this.http.request({ method, url: `${this.sim().baseUrl}${path}`, data, params, headers: this.headers() });
	}

	get(path: string, params?: Record<string, string>): Promise<AxiosResponse> {
		return this.request('GET', path, undefined, params);
	}

	post(path: string, data?: unknown): Promise<AxiosResponse> {
		return this.request('POST', path, data);
	}

	/** POST /prompt; expects 200 and returns the prompt_id. */
	async submit(body: Record<string, unknown>, prefix = '/api'): Promise<string> {
		const res = await this.post(`${prefix}/prompt`, body);
		expect(res.status).toBe(200);
		return res.data.prompt_id as string;
	}

	/** The job's history entry, once it is there. */
	async finished(promptId: string, prefix = '/api'): Promise<Record<string, any>> {
		for (const until = Date.now() + 5000; Date.now() < until; await new Promise((r) => setTimeout(r, 5))) {
			const res = await this.get(`${prefix}/history/${promptId}`);
			if (res.data[promptId]) return res.data[promptId];
		}
		throw new Error(`no history entry for ${promptId}`);
	}

	async queue(): Promise<{ running: string[]; pending: string[] }> {
		const { data } = await this.get('/api/queue');
		const ids = (entries: unknown[][]) => entries.map((entry) => entry[1] as string);
		return { running: ids(data.queue_running), pending: ids(data.queue_pending) };
	}

	/** A socket at `path` with this clientId (none: the server makes one up); resolves after the greeting. */
	async open(clientId?: string, path = '/ws'): Promise<Listener> {
		const query = clientId === undefined ? '' : `?clientId=${encodeURIComponent(clientId)}`;
		const ws = new WebSocket(`${this.sim().wsBaseUrl}${path}${query}`, { headers: this.headers() });
		const listener = new Listener(ws);
		this.sockets.push(listener);
		await new Promise<void>((resolve, reject) => {
			ws.once('open', () => resolve());
			ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade answered ${res.statusCode}`)));
		});
		await waitUntil(() => listener.json.length > 0);
		return listener;
	}

	closeAll(): void {
		for (const listener of this.sockets.splice(0)) listener.ws.terminate();
	}
}

/** A WebSocket client that records every JSON message and binary frame it receives. */
export class Listener {
	readonly json: Message[] = [];
	readonly frames: Buffer[] = [];

	constructor(readonly ws: WebSocket) {
		ws.on('message', (data: Buffer, isBinary: boolean) => {
			if (isBinary) this.frames.push(data);
			else this.json.push(JSON.parse(data.toString('utf8')) as Message);
		});
		ws.on('error', () => undefined);
	}

	of(promptId: string): Message[] {
		return this.json.filter((m) => m.data?.prompt_id === promptId);
	}

	types(promptId: string): string[] {
		return this.of(promptId).map((m) => m.type);
	}

	/** Every message except queue status ones. */
	jobMessages(): Message[] {
		return this.json.filter((m) => m.type !== 'status');
	}

	framesOfType(type: number): Buffer[] {
		return this.frames.filter((f) => f.readUInt32BE(0) === type);
	}

	async closed(): Promise<void> {
		if (this.ws.readyState === WebSocket.CLOSED) return;
		await new Promise((resolve) => this.ws.once('close', resolve));
	}
}
