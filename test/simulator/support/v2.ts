/**
 * The setup of the v2 simulator tests: a simulator per file, put back after each test, and after
 * each test every answer it gave checked against the contract copy (test/support/v2-contract.ts):
 * the schema test runs on every exchange of every v2 test. Plus a small client over real HTTP.
 */
import { request } from 'node:http';

import { startSimulator, type V2Simulator, type V2SimulatorOptions } from '../../../simulator/server';
import { sseFrames } from '../../contract/validate';
import { answerBreaches } from '../../support/v2-contract';

export function useV2Simulator(options: Omit<V2SimulatorOptions, 'flavour'>, started: (sim: V2Simulator) => void): void {
	let sim: V2Simulator | undefined;
	let startOptions: V2Simulator['options'];
	let startAccounts: Array<Record<string, unknown>>;

	beforeAll(async () => {
		sim = await startSimulator({ ...options, flavour: 'v2' });
		startOptions = { ...sim.options };
		startAccounts = sim.accounts.map((a) => ({ ...a }));
		started(sim);
	});

	afterEach(() => {
		if (!sim) return;
		const breaches = answerBreaches(sim);
		Object.assign(sim.options, startOptions);
		sim.accounts.forEach((a, i) => Object.assign(a, startAccounts[i]));
		sim.reset();
		expect(breaches).toEqual([]);
	});

	afterAll(async () => {
		await sim?.close();
	});
}

export interface Answer {
	status: number;
	headers: Headers;
	body: any;
}

/** A v2 client of one simulator: JSON calls with the bearer key (or the headers given). */
export function v2Client(sim: () => V2Simulator) {
	const auth = () => ({ authorization: `Bearer ${sim().apiKey}` });
	async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = auth()): Promise<Answer> {
		const init: RequestInit = { method, headers: { ...headers }, redirect: 'manual' };
		if (body instanceof FormData) init.body = body;
		else if (body !== undefined) {
			init.body = typeof body === 'string' ? body : JSON.stringify(body);
			(init.headers as Record<string, string>)['content-type'] = 'application/json';
		}
		const url = path.startsWith('http') ? path : `${sim().baseUrl}${path}`;
		const res = await fetch(url, init);
		const text = await res.text();
		let parsed: unknown = text;
		try {
			parsed = text === '' ? undefined : JSON.parse(text);
		} catch {
			/* not JSON: kept as text */
		}
		return { status: res.status, headers: res.headers, body: parsed };
	}
	return { call, auth };
}

/** An upload form: the file and the fields the contract requires, plus any more. */
export function uploadForm(bytes: Buffer, fields: Record<string, string | string[]> = {}, withDefaults = true): FormData {
	const form = new FormData();
	form.append('file', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'photo.png');
	const all = withDefaults ? { content_type: 'image/png', file_path: 'photo.png', ...fields } : fields;
	for (const [name, value] of Object.entries(all)) for (const v of [value].flat()) form.append(name, v);
	return form;
}

/** An event stream opened over real HTTP: its frames so far, whether it ended or was cut. */
export interface Stream {
	status: number;
	frames(): Array<{ event: string; data: any; id: boolean }>;
	/** Resolves once the server ended the stream ('end') or the connection was cut ('cut'). */
	done: Promise<'end' | 'cut'>;
	close(): void;
}

export function openStream(url: string, headers: Record<string, string>): Promise<Stream> {
	return new Promise((resolve, reject) => {
		const req = request(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
			let text = '';
			res.setEncoding('utf8');
			res.on('data', (chunk: string) => (text += chunk));
			const done = new Promise<'end' | 'cut'>((settle) => {
				res.on('error', () => undefined);
				req.on('error', () => undefined);
				res.on('close', () => settle(res.complete ? 'end' : 'cut'));
			});
			resolve({
				status: res.statusCode ?? 0,
				frames: () => sseFrames(text).map((f) => ({ ...f, data: JSON.parse(f.data) as unknown })),
				done,
				close: () => req.destroy(),
			});
		});
		req.on('error', reject);
		req.end();
	});
}
