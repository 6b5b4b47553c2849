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
	headers: { get(name: string): string | null };
	/** Parsed JSON, else the text (undefined when empty). */
	body: any;
	bytes: Buffer;
}

/**
 * One request over its own connection (no keep-alive: a pooled socket the server closes between
 * two tests would reset the next request). A FormData body is sent as multipart.
 */
export async function send(method: string, url: string, headers: Record<string, string> = {}, body?: unknown): Promise<Answer> {
	let payload: Buffer | undefined;
	const all = { ...headers };
	if (body instanceof FormData) {
		const encoded = new Response(body);
		payload = Buffer.from(await encoded.arrayBuffer());
		all['content-type'] = encoded.headers.get('content-type')!;
	} else if (body !== undefined) {
		payload = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
		all['content-type'] = 'application/json';
	}
	return new Promise((resolve, reject) => {
		const req = request(url, { method, headers: all, agent: false }, (res) => {
			const chunks: Buffer[] = [];
			res.on('data', (c: Buffer) => chunks.push(c));
			res.on('error', reject);
			res.on('end', () => {
				const bytes = Buffer.concat(chunks);
				let parsed: unknown = bytes.length === 0 ? undefined : bytes.toString('utf8');
				try {
					parsed = parsed === undefined ? undefined : JSON.parse(parsed as string);
				} catch {
					/* not JSON: kept as text */
				}
				const get = (name: string) => {
					const value = res.headers[name.toLowerCase()];
					return value === undefined ? null : String(value);
				};
				resolve({ status: res.statusCode ?? 0, headers: { get }, body: parsed, bytes });
			});
		});
		req.on('error', reject);
		req.end(payload);
	});
}

/** A v2 client of one simulator: calls with the bearer key (or the headers given), paths under its baseUrl. */
export function v2Client(sim: () => V2Simulator) {
	const auth = (): Record<string, string> => ({ authorization: `Bearer ${sim().apiKey}` });
	const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = auth()) =>
		send(method, path.startsWith('http') ? path : `${sim().baseUrl}${path}`, headers, body);
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
		const req = request(url, { headers: { accept: 'text/event-stream', ...headers }, agent: false }, (res) => {
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
