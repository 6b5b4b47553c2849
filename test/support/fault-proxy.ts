/**
 * A loopback fault proxy for the replaying fault injector (issue 34): one listener in front of each
 * of the simulator's three hosts (API, registry + media proxy, signed storage). It forwards every
 * HTTP request, pipes WebSocket upgrades through untouched, rewrites the simulator's addresses into
 * its own in headers and text bodies (so signed URLs and `/api/view` Locations also come back
 * through it), and logs each exchange in order. A fault armed at request index k changes exactly
 * the answer to request k (a silence also every later request to the same method and path: a
 * silent endpoint stays silent, so a read's retries are silent too).
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

import {
	askedPage,
	ENDLESS_PAGES,
	floodFrames,
	framedPipe,
	identityTargets,
	jobFrames,
	otherId,
	relabelPage,
	withoutLastTake,
	withPage,
	type Target,
} from './fault-meaning';
import { NOT_HTTP_LINKS, withLinks, withOutputsOfAnotherJob } from './v2-item-oracle';

export type ProxiedHost = 'api' | 'registry' | 'storage';

export type { Target } from './fault-meaning';

export type Fault =
	| { kind: 'stall-headers' | 'stall-body'; status: 200 | 400 | 500 }
	| { kind: 'cut-body' }
	| { kind: 'redirect-loop' }
	| { kind: 'long'; target: Target }
	| { kind: 'proto'; target: Target; name: string }
	| { kind: 'wrong-type'; target: Target; value: unknown }
	| { kind: 'address'; target: Target | 'location'; value: string }
	| { kind: 'ndjson-cut-line'; line: number }
	/** The request is forwarded, then the connection is closed with no answer at all. */
	| { kind: 'drop' }
	/** A gateway's 502, after forwarding the request or without forwarding it. */
	| { kind: 'bad-gateway'; forward: boolean }
	/** An id the request named, swapped in the answer for another plausible one (fault-meaning.ts). */
	| { kind: 'foreign-id'; target: Target }
	/** The previous page, or page 1, answered again; its page field kept, or changed to the one asked. */
	| { kind: 'repeat-page'; page: 'previous' | 'first'; label: 'kept' | 'asked' }
	/** From this request on, the endpoint ignores `page` (answers page 1) and says there are ten million pages. */
	| { kind: 'ignore-page' }
	/** A music take announced by its title whose audio chunks never come. */
	| { kind: 'take-without-audio' }
	/** 429 with `Retry-After: 1`, not forwarded, once; the request after it passes. */
	| { kind: 'retry-after'; seconds: 0 | 1 }
	/** n8n stops the execution (or closes the trigger) while this request is under way, held silent. */
	| { kind: 'stop' }
	/** A 200 that is not the service's: an HTML page, or JSON of another shape. */
	| { kind: 'html-200' | 'wrong-shape-200' }
	/** v2: a job answer whose outputs are another job's (other asset ids, another job_id). */
	| { kind: 'foreign-outputs' }
	/** v2: every link of an answer (an output's or an asset's `url`) set to one that is no http(s) address. */
	| { kind: 'output-link'; value: string }
	/** The job socket: frames for 300 other jobs, a socket closed at once, or a finished job another run watches (`SocketFault`). */
	| SocketFault;

/** A fault of the job socket (armed with `request: 'UPGRADE'`): not on an HTTP answer. */
export type SocketFault =
	{ kind: 'socket-flood' } | { kind: 'socket-close' } | { kind: 'socket-foreign-prompt'; promptId: string; filename: string };

/**
 * Which request a fault is armed for: its index in the run, the first one to `METHOD /path`, or
 * every one whose `METHOD /path` matches `every` (an answer's meaning changed wherever it comes,
 * however many reads a busy machine's timing makes before the last).
 */
export type ArmedFault = { index: number; fault: Fault } | { request: string; fault: Fault } | { every: RegExp; fault: Fault };

export interface Exchange {
	index: number;
	host: ProxiedHost;
	method: string;
	path: string;
	/** The request's query string (`?page=2&limit=1`, or ''). */
	query: string;
	/** The request's body as text (first 4 KiB), to see what was asked (a cancel naming a job). */
	requestBody: string;
	status?: number;
	contentType?: string;
	location?: string;
	/** The simulator's answer, after the address rewrite and before any fault. */
	answer?: Buffer;
	/** What was done to this answer. */
	fault?: string;
	arrivedAt: number;
	/** For a silence: when it began, and when the client gave up (closed the connection). */
	silentFrom?: number;
	gaveUpAt?: number;
	/** When the exchange ended: its answer sent, or its connection closed (undefined: still open). */
	closedAt?: number;
	/** A foreign-id fault: the id put in the answer. */
	foreignId?: string;
	/** The answer as it was sent, after any fault (undefined: none was sent). */
	served?: Buffer;
}

export const LONG_TEXT = 'L'.repeat(2 * 1024 * 1024);
export const PROTO_NAMES = ['__proto__', 'constructor', 'toString'];
export const BAD_ADDRESSES = [
	'javascript:alert(1)',
	'data:text/html,<script>alert(1)</script>',
	'https://x.example/a.png"><script>alert(1)</script>',
];
export const WRONG_FOR_TEXT: unknown[] = [42, ['x'], { a: 1 }, null];

/**
 * What a test's hook does with one API request (given the exchange and the request's whole body):
 * answer it at once (and forward it `forwardAfterMs` later, its answer dropped: a service that
 * acknowledges first and acts later), or forward it and rewrite the answer's text.
 */
export type Hooked = { answer: { status: number; body: string }; forwardAfterMs?: number } | { rewrite: (text: string) => string };

export interface FaultProxy {
	urls: Record<ProxiedHost, string>;
	/** Set by a test to answer or rewrite chosen API requests (cleared by `arm`). */
	hook?: (exchange: Exchange, body: string) => Hooked | undefined;
	/** Called when a `stop` fault holds its request (set by the run: it stops the execution). */
	onStop?: () => void;
	/** When the `stop` fault was made (undefined: not yet). */
	stoppedAt?: number;
	/** While true, every request's connection is closed unanswered (a run over its cap still calling). */
	shut: boolean;
	/** WebSocket upgrades of this run (paths). */
	upgrades: string[];
	log: Exchange[];
	/** Arms `fault` for request `index` of the next run, or for its first `request` (undefined: a clean run). */
	arm(fault?: ArmedFault): void;
	/** Ends every silence still held (the run is over): the connections are destroyed. */
	release(): void;
	close(): Promise<void>;
}

const TEXT_TYPES = /json|text|ndjson|javascript|xml|html/i;

/** What a gateway in front of the server answers when it cannot give the server's answer. */
function badGateway(res: ServerResponse): void {
	res.writeHead(502, { 'content-type': 'text/plain' });
	res.end('Bad Gateway');
}

/** `value` with the value (or the key) at `target` changed by `change`; `__proto__` keys stay own keys. */
export function mutateAt(value: unknown, target: Target, change: (old: unknown) => unknown): unknown {
	const walk = (node: unknown, depth: number): unknown => {
		if (depth === target.path.length) return target.key ? node : change(node);
		if (Array.isArray(node)) return node.map((element, at) => (at === target.path[depth] ? walk(element, depth + 1) : element));
		if (node === null || typeof node !== 'object') return node;
		const out: Record<string, unknown> = {};
		const keys = Object.keys(node);
		// A job or task id recorded in a clean run is another id in this run: the one key of a map keyed by id stands for it.
		const step = keys.includes(String(target.path[depth])) || keys.length !== 1 ? target.path[depth]! : keys[0]!;
		for (const [key, child] of Object.entries(node)) {
			const renamed = target.key && depth === target.path.length - 1 && key === step ? String(change(key)) : key;
			Object.defineProperty(out, renamed, {
				value: key === step ? walk(child, depth + 1) : child,
				enumerable: true,
				writable: true,
				configurable: true,
			});
		}
		return out;
	};
	return walk(value, 0);
}

/** What `fault` makes of a JSON answer's text (or of one line of an NDJSON stream); undefined when it does not apply. */
function faultedText(text: string, fault: Fault, exchange: Exchange): string | undefined {
	if (fault.kind === 'take-without-audio') return withoutLastTake(text);
	if (fault.kind === 'foreign-outputs') return withOutputsOfAnotherJob(text, otherId)?.text;
	if (fault.kind === 'output-link') return withLinks(text, fault.value);
	if (fault.kind === 'ndjson-cut-line') {
		const lines = text.split('\n');
		if (fault.line >= lines.length || lines[fault.line]!.length < 4) return undefined;
		lines[fault.line] = lines[fault.line]!.slice(0, Math.floor(lines[fault.line]!.length / 2));
		return lines.join('\n');
	}
	if (!('target' in fault) || fault.target === 'location') return undefined;
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		return undefined;
	}
	const target = fault.target;
	const change = (old: unknown): unknown => {
		if (fault.kind === 'long')
			return target.key ? `${String(old)}${LONG_TEXT}` : typeof old === 'string' ? `${old}${LONG_TEXT}` : LONG_TEXT;
		if (fault.kind === 'proto') return fault.name;
		if (fault.kind === 'wrong-type') return fault.value;
		if (fault.kind === 'foreign-id') return (exchange.foreignId = otherId(String(old)));
		return fault.value;
	};
	const changed = JSON.stringify(mutateAt(value, target, change));
	if (changed === JSON.stringify(value)) exchange.foreignId = undefined;
	// A target this answer does not have: no fault was made (the run is not judged as a faulted one).
	return changed === JSON.stringify(value) ? undefined : changed;
}

function readAll(stream: IncomingMessage): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		stream.on('data', (chunk: Buffer) => chunks.push(chunk));
		stream.on('end', () => resolve(Buffer.concat(chunks)));
		stream.on('error', reject);
	});
}

const isSilence = (fault: Fault): fault is Extract<Fault, { status: number }> =>
	fault.kind === 'stall-headers' || fault.kind === 'stall-body';

/** Starts one proxy listener per simulator host; `targets` are the simulator's own addresses. */
export async function startFaultProxy(targets: Record<ProxiedHost, string>): Promise<FaultProxy> {
	const log: Exchange[] = [];
	let armed: ArmedFault | undefined;
	/** Whether the fault armed for a `request` was made. */
	let armedUsed = false;
	/** A silenced endpoint (method and path), from the faulted request on. */
	let silenced: string | undefined;
	const held = new Set<ServerResponse>();
	const sockets = new Set<Socket>();
	const servers: Server[] = [];
	const urls = {} as Record<ProxiedHost, string>;
	const rewrites: Array<[string, string]> = [];

	const rewrite = (text: string) => rewrites.reduce((out, [from, to]) => out.split(from).join(to), text);

	/** Sends a request on to the simulator host (to `path` when given); undefined when it cannot be reached. */
	const forward = (host: ProxiedHost, req: IncomingMessage, body: Buffer, path = req.url) =>
		new Promise<IncomingMessage>((resolve, reject) => {
			const target = new URL(targets[host]);
			const sent = httpRequest(
				{
					host: target.hostname,
					port: target.port,
					method: req.method,
					path,
					headers: { ...req.headers, host: target.host },
					agent: false,
				},
				resolve,
			);
			sent.on('error', reject);
			sent.end(body);
		}).catch(() => undefined);

	const answer = async (host: ProxiedHost, req: IncomingMessage, res: ServerResponse) => {
		if (proxy.shut) return void res.destroy();
		const url = new URL(req.url ?? '/', 'http://proxy');
		const body = await readAll(req);
		const exchange: Exchange = {
			index: log.length,
			host,
			method: req.method ?? 'GET',
			path: url.pathname,
			query: url.search,
			requestBody: body.toString('utf8', 0, 4096),
			arrivedAt: Date.now(),
		};
		log.push(exchange);
		res.on('close', () => (exchange.closedAt ??= Date.now()));
		const endpoint = `${host} ${exchange.method} ${exchange.path}`;
		const armedHere =
			armed !== undefined &&
			('index' in armed
				? armed.index === exchange.index
				: 'every' in armed
					? armed.every.test(`${exchange.method} ${exchange.path}`)
					: !armedUsed && armed.request === `${exchange.method} ${exchange.path}`);
		if (armedHere && 'request' in armed!) armedUsed = true;
		const fault = armedHere ? armed!.fault : silenced === endpoint ? armed?.fault : undefined;
		if (fault?.kind === 'bad-gateway' && !fault.forward) {
			exchange.fault = 'bad-gateway, not forwarded';
			return void badGateway(res);
		}
		if (fault?.kind === 'retry-after') {
			exchange.fault = `429 Retry-After: ${fault.seconds}, not forwarded`;
			res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(fault.seconds) });
			return void res.end(
				JSON.stringify({ error: { type: 'rate_limited', message: `Too many requests: try again in ${fault.seconds} s` } }),
			);
		}
		if (fault?.kind === 'ignore-page') silenced = endpoint;
		const paged = fault ? pageFault(fault, url.search) : undefined;
		const hooked = host === 'api' ? proxy.hook?.(exchange, body.toString('utf8')) : undefined;
		if (hooked && 'answer' in hooked) {
			exchange.fault = `answered ${hooked.answer.status} by the test`;
			res.writeHead(hooked.answer.status, { 'content-type': 'application/json' });
			res.end(hooked.answer.body);
			const { forwardAfterMs } = hooked;
			if (forwardAfterMs !== undefined) setTimeout(() => void forward(host, req, body).then((late) => late?.resume()), forwardAfterMs);
			return;
		}
		const upstream = await forward(host, req, body, paged ? `${url.pathname}${paged.query}` : req.url);
		if (!upstream) return void res.destroy();
		const headers = { ...upstream.headers };
		const raw = await readAll(upstream);
		if (fault?.kind === 'drop' || fault?.kind === 'bad-gateway') {
			exchange.fault = fault.kind === 'drop' ? 'dropped after forwarding' : 'bad-gateway after forwarding';
			Object.assign(exchange, { status: upstream.statusCode, answer: raw });
			return void (fault.kind === 'drop' ? res.destroy() : badGateway(res));
		}
		const contentType = String(headers['content-type'] ?? '');
		let answerBody = TEXT_TYPES.test(contentType) ? Buffer.from(rewrite(raw.toString('utf8'))) : raw;
		if (hooked) answerBody = Buffer.from(hooked.rewrite(answerBody.toString('utf8')));
		if (typeof headers.location === 'string') headers.location = rewrite(headers.location);
		Object.assign(exchange, { status: upstream.statusCode, contentType, location: headers.location, answer: answerBody });
		delete headers['transfer-encoding'];
		delete headers.connection;
		let status = upstream.statusCode ?? 502;
		if (fault?.kind === 'stop') {
			exchange.fault = 'stop: the execution is stopped while this request is held';
			held.add(res);
			res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Math.max(answerBody.length, 2)) });
			res.flushHeaders();
			proxy.stoppedAt = Date.now();
			proxy.onStop?.();
			return;
		}
		if (fault?.kind === 'html-200' || fault?.kind === 'wrong-shape-200') {
			exchange.fault = fault.kind === 'html-200' ? 'a 200 with an HTML page' : 'a 200 with JSON of another shape';
			const html = fault.kind === 'html-200';
			const page = html ? '<!doctype html><html><body><h1>Welcome</h1></body></html>' : '{"message":"ok","items":[]}';
			res.writeHead(200, { 'content-type': html ? 'text/html' : 'application/json' });
			return void res.end(page);
		}
		if (paged) {
			const relabelled = relabelPage(answerBody.toString('utf8'), paged.relabel);
			if (relabelled !== undefined) answerBody = Buffer.from(relabelled);
			exchange.fault = paged.words;
		}
		if (fault && isSilence(fault)) {
			silenced = endpoint;
			exchange.fault = `${fault.kind} ${fault.status}`;
			exchange.silentFrom = Date.now();
			res.on('close', () => (exchange.gaveUpAt ??= Date.now()));
			held.add(res);
			const errorBody = Buffer.from(JSON.stringify({ error: { type: 'fault', message: 'The request was refused by the fault proxy' } }));
			const stalled = fault.status === 200 ? answerBody : errorBody;
			res.writeHead(fault.status, { 'content-type': 'application/json', 'content-length': String(Math.max(stalled.length, 2)) });
			if (fault.kind === 'stall-body') res.write(stalled.subarray(0, Math.max(1, Math.floor(stalled.length / 2))));
			else res.flushHeaders();
			return;
		}
		if (fault?.kind === 'cut-body') {
			exchange.fault = 'cut-body';
			res.writeHead(status, { ...headers, 'content-length': String(Math.max(answerBody.length, 2)) });
			res.write(answerBody.subarray(0, Math.max(1, Math.floor(answerBody.length / 2))), () => res.destroy());
			return;
		}
		if (fault?.kind === 'redirect-loop') {
			exchange.fault = 'redirect-loop';
			res.writeHead(302, { location: `${urls[host]}${req.url ?? '/'}`, 'content-type': 'application/json' });
			return void res.end('{"moved":"here"}');
		}
		if (fault?.kind === 'address' && fault.target === 'location') {
			if (headers.location !== undefined) {
				headers.location = fault.value;
				exchange.fault = `Location ${fault.value}`;
			}
		} else if (fault && !paged) {
			const changed = faultedText(answerBody.toString('utf8'), fault, exchange);
			if (changed !== undefined) {
				answerBody = Buffer.from(changed);
				exchange.fault = describeFault(fault);
			}
		}
		headers['content-length'] = String(answerBody.length);
		exchange.served = answerBody;
		res.writeHead(status, headers);
		res.end(answerBody);
		status = 0;
	};

	for (const host of ['api', 'registry', 'storage'] as const) {
		const server = createServer((req, res) => void answer(host, req, res).catch(() => res.destroy()));
		// WebSocket upgrades (the job socket) go through untouched, byte for byte.
		server.on('upgrade', (req: IncomingMessage, client: Socket, head: Buffer) => {
			const target = new URL(targets[host]);
			proxy.upgrades.push(req.url ?? '/');
			const socketFault = armed && 'request' in armed && armed.request === 'UPGRADE' ? (armed.fault as SocketFault) : undefined;
			const upstream = connect(Number(target.port), target.hostname, () => {
				const lines = [`${req.method} ${req.url} HTTP/1.1`];
				for (let at = 0; at < req.rawHeaders.length; at += 2) {
					const name = req.rawHeaders[at]!;
					lines.push(`${name}: ${name.toLowerCase() === 'host' ? target.host : req.rawHeaders[at + 1]}`);
				}
				upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
				upstream.write(head);
				client.pipe(upstream);
				if (socketFault) framedPipe(upstream, client, (frame) => socketFrames(socketFault, frame, client));
				else upstream.pipe(client);
			});
			for (const socket of [client, upstream]) {
				sockets.add(socket);
				socket.on('error', () => undefined);
				socket.on('close', () => {
					sockets.delete(socket);
					client.destroy();
					upstream.destroy();
				});
			}
		});
		server.on('connection', (socket: Socket) => {
			sockets.add(socket);
			socket.on('close', () => sockets.delete(socket));
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		servers.push(server);
		urls[host] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
		const from = targets[host].replace(/\/+$/, '');
		rewrites.push([from, urls[host]]);
		if (host === 'api') rewrites.push([from.replace(/^http/, 'ws'), urls[host].replace(/^http/, 'ws')]);
	}

	const proxy: FaultProxy = {
		urls,
		log,
		shut: false,
		upgrades: [],
		arm(next) {
			proxy.hook = undefined;
			proxy.onStop = undefined;
			proxy.stoppedAt = undefined;
			proxy.shut = false;
			proxy.upgrades.length = 0;
			armed = next;
			armedUsed = false;
			silenced = undefined;
			log.length = 0;
		},
		release() {
			for (const res of held) {
				res.destroy();
			}
			held.clear();
		},
		close: async () => {
			for (const res of held) res.destroy();
			for (const socket of sockets) socket.destroy();
			await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
		},
	};
	return proxy;
}

/** What a page fault asks the server for instead (the query) and changes in its answer; undefined: no page to repeat here. */
function pageFault(
	fault: Fault,
	query: string,
): { query: string; relabel: { page?: number; totalPages?: number }; words: string } | undefined {
	const asked = askedPage(query);
	if (asked === undefined) return undefined;
	if (fault.kind === 'ignore-page')
		return {
			query: withPage(query, 1),
			relabel: { totalPages: ENDLESS_PAGES },
			words: `page ${asked} answered with page 1, totalPages ${ENDLESS_PAGES}`,
		};
	if (fault.kind !== 'repeat-page' || asked < 2) return undefined;
	const page = fault.page === 'previous' ? asked - 1 : 1;
	const relabel = fault.label === 'asked' ? { page: asked } : {};
	return { query: withPage(query, page), relabel, words: `page ${asked} answered with page ${page} (page field ${fault.label})` };
}

/** What a socket fault writes to the client after the server's `frame`-th frame (0: right after the 101). */
function socketFrames(fault: SocketFault, frame: number, client: Socket): Buffer[] {
	if (fault.kind === 'socket-close') {
		if (frame === 0) setImmediate(() => client.destroy());
		return [];
	}
	if (frame !== 1) return [];
	return fault.kind === 'socket-flood' ? floodFrames(300) : jobFrames(fault.promptId, fault.filename);
}

export function describeFault(fault: Fault): string {
	const where = (target: Target | 'location') =>
		target === 'location' ? 'Location' : `${target.key ? 'key ' : ''}${target.path.join('.') || '(root)'}`;
	switch (fault.kind) {
		case 'stall-headers':
		case 'stall-body':
			return `${fault.kind} ${fault.status}`;
		case 'long':
			return `2 MiB at ${where(fault.target)}`;
		case 'proto':
			return `${fault.name} at ${where(fault.target)}`;
		case 'wrong-type':
			return `${JSON.stringify(fault.value)} at ${where(fault.target)}`;
		case 'address':
			return `${fault.value} at ${where(fault.target)}`;
		case 'ndjson-cut-line':
			return `line ${fault.line} cut`;
		case 'foreign-id':
			return `another id at ${where(fault.target)}`;
		case 'repeat-page':
			return `page ${fault.page === 'previous' ? 'before' : '1'} again, page field ${fault.label}`;
		case 'retry-after':
			return `429 Retry-After: ${fault.seconds} once`;
		case 'socket-foreign-prompt':
			return `socket: job ${fault.promptId} of another run ends with ${fault.filename}`;
		case 'foreign-outputs':
			return "another job's outputs";
		case 'output-link':
			return `every link ${fault.value}`;
		default:
			return fault.kind;
	}
}

/** Keys that say what an answer is about: tried first when the targets of an answer are capped. */
const TELLING = /status|state|id$|^id|url|uri|location|error|message|err_code|images|outputs|generated|type|name|queue|running|pending/i;
const looksLikeAddress = (value: string) => /^(https?|wss?):\/\//i.test(value) || /url|uri|location|href/i.test(value);
const enumLike = (value: string) => /^[A-Za-z_][A-Za-z0-9_-]{0,23}$/.test(value);

/** The places in a JSON answer a structural fault can go: every string, key and other leaf, telling ones first, at most `cap`. */
export function targetsOf(value: unknown, cap: number): Target[] {
	const found: Target[] = [];
	const queue: Array<{ node: unknown; path: Array<string | number> }> = [{ node: value, path: [] }];
	while (queue.length > 0 && found.length < 5_000) {
		const { node, path } = queue.shift()!;
		if (Array.isArray(node)) node.slice(0, 3).forEach((element, at) => queue.push({ node: element, path: [...path, at] }));
		else if (node !== null && typeof node === 'object') {
			for (const [key, child] of Object.entries(node)) {
				found.push({ path: [...path, key], key: true, sample: key });
				queue.push({ node: child, path: [...path, key] });
			}
		} else if (path.length > 0) found.push({ path, key: false, sample: node });
	}
	const score = (target: Target) => (TELLING.test(String(target.path[target.path.length - 1] ?? '')) ? 0 : 1) + target.path.length / 100;
	return found.sort((a, b) => score(a) - score(b)).slice(0, cap);
}

/** Every fault the sweep tries on one recorded exchange (structural ones at up to `cap` places of its answer). */
export function faultsFor(exchange: Exchange, cap: number): Fault[] {
	const faults: Fault[] = [];
	for (const status of [200, 400, 500] as const) faults.push({ kind: 'stall-headers', status }, { kind: 'stall-body', status });
	faults.push({ kind: 'cut-body' }, { kind: 'redirect-loop' });
	if (exchange.location !== undefined) for (const value of BAD_ADDRESSES) faults.push({ kind: 'address', target: 'location', value });
	const text = TEXT_TYPES.test(exchange.contentType ?? '') ? (exchange.answer?.toString('utf8') ?? '') : '';
	faults.push(...meaningFaultsFor(exchange, text, cap));
	if (/ndjson/i.test(exchange.contentType ?? '') || (text.includes('}\n{') && !text.trimStart().startsWith('['))) {
		const lines = text.split('\n').length;
		for (let line = 0; line < Math.min(lines, cap); line++) faults.push({ kind: 'ndjson-cut-line', line });
		return faults;
	}
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		return faults;
	}
	for (const target of targetsOf(value, cap)) {
		if (target.key || typeof target.sample === 'string') faults.push({ kind: 'long', target });
		if (target.key || (typeof target.sample === 'string' && enumLike(target.sample)))
			for (const name of PROTO_NAMES) faults.push({ kind: 'proto', target, name });
		if (target.key) continue;
		if (typeof target.sample === 'string') for (const wrong of WRONG_FOR_TEXT) faults.push({ kind: 'wrong-type', target, value: wrong });
		else faults.push({ kind: 'wrong-type', target, value: 'text' });
		if (typeof target.sample === 'string' && looksLikeAddress(target.sample))
			for (const bad of BAD_ADDRESSES) faults.push({ kind: 'address', target, value: bad });
	}
	return faults;
}

/** The kinds of fault about meaning (issue 43): the rest are about time, size and shape. */
export const MEANING_KINDS = new Set<Fault['kind']>([
	'foreign-id',
	'repeat-page',
	'ignore-page',
	'take-without-audio',
	'retry-after',
	'stop',
	'html-200',
	'wrong-shape-200',
	'socket-flood',
	'socket-close',
	'socket-foreign-prompt',
	'foreign-outputs',
	'output-link',
]);

/** The faults of meaning one recorded exchange can take (socket faults are the path's, not an exchange's). */
function meaningFaultsFor(exchange: Exchange, text: string, cap: number): Fault[] {
	const faults: Fault[] = [
		{ kind: 'retry-after', seconds: 0 },
		{ kind: 'retry-after', seconds: 1 },
		{ kind: 'stop' },
		{ kind: 'html-200' },
		{ kind: 'wrong-shape-200' },
	];
	const page = askedPage(exchange.query);
	if (page !== undefined) faults.push({ kind: 'ignore-page' });
	if (page !== undefined && page >= 2)
		for (const which of ['previous', 'first'] as const)
			for (const label of ['kept', 'asked'] as const) faults.push({ kind: 'repeat-page', page: which, label });
	if (text.split('\n').some((line) => line.includes('"type":"title"'))) faults.push({ kind: 'take-without-audio' });
	faults.push(...v2MeaningFaults(exchange, text));
	try {
		const asked = `${exchange.path} ${exchange.query} ${exchange.requestBody}`;
		for (const target of identityTargets(JSON.parse(text), asked, cap)) faults.push({ kind: 'foreign-id', target });
	} catch {
		// Not JSON: no id to swap.
	}
	return faults;
}

/** v2's answers about jobs and assets (issue 45): another job's outputs in a job's answer, and links of other schemes. */
function v2MeaningFaults(exchange: Exchange, text: string): Fault[] {
	if (!exchange.path.includes('/api/v2/')) return [];
	const faults: Fault[] = [];
	if (/\/api\/v2\/jobs\/[^/]+(\/cancel)?$/.test(exchange.path) && withOutputsOfAnotherJob(text, otherId))
		faults.push({ kind: 'foreign-outputs' });
	if (withLinks(text, NOT_HTTP_LINKS[0]!) !== undefined) for (const value of NOT_HTTP_LINKS) faults.push({ kind: 'output-link', value });
	return faults;
}

/** Faults whose answer is not what the spec says: it may never give a success unless the request was asked again. */
/** Keys whose values the package reads or passes on: a wrong type there is an answer it must not take. */
const RELIED_ON =
	/status|state|(^|_)id$|url|location|outputs|filename|^name$|^type$|subfolder|generated|creations|err_code|error|message|signedUrl|node_version|^data$/i;

/** Whether the object holding `target` has another id key (`id`, `prompt_id`, `task_id`) with the same value. */
function anotherIdNames(exchange: Pick<Exchange, 'answer'> | undefined, target: Target): boolean {
	let node: unknown;
	try {
		node = JSON.parse(exchange?.answer?.toString('utf8') ?? '');
	} catch {
		return false;
	}
	for (const step of target.path.slice(0, -1))
		node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[step as string] : undefined;
	if (node === null || typeof node !== 'object') return false;
	const record = node as Record<string, unknown>;
	const renamed = String(target.path[target.path.length - 1]);
	return ['id', 'prompt_id', 'task_id'].some((key) => key !== renamed && Object.hasOwn(record, key) && record[key] === record[renamed]);
}

export function answerIsBroken(fault: Fault, exchange?: Pick<Exchange, 'path' | 'method' | 'host' | 'answer'>): boolean {
	// A storage upload's answer is its status: what follows a 2xx (a stalled or cut body) changes nothing.
	if (exchange?.host === 'storage' && exchange.method === 'PUT')
		return (fault.kind === 'stall-headers' || fault.kind === 'stall-body') && fault.status >= 300;
	if (fault.kind === 'stall-headers' || fault.kind === 'stall-body' || fault.kind === 'cut-body') return true;
	if (fault.kind === 'html-200' || fault.kind === 'wrong-shape-200') return true;
	// A lost NDJSON line is skipped and counted by design; whether a take passed on is whole is judged by its bytes (incomplete_file).
	if (fault.kind === 'ndjson-cut-line') return false;
	// The registry's entities require only their id (the spec types the other fields, and a real
	// registry sends null for what it has not); their ids are names people choose ("constructor" may be one).
	const registry = exchange !== undefined && exchange.path.startsWith('/publishers');
	const last = 'target' in fault && typeof fault.target === 'object' ? String(fault.target.path[fault.target.path.length - 1] ?? '') : '';
	if (fault.kind === 'wrong-type') {
		// An id of the wrong kind while another id of the object still names the same thing says nothing less.
		if (/id$/i.test(last) && anotherIdNames(exchange, fault.target)) return false;
		// null where an optional field is says "nothing"; where an identity or a status is, it is none.
		if (fault.value === null) return registry ? last === 'id' : /status|state|id$|^id/i.test(last);
		// A field the package neither reads nor passes on (a queue number) changes nothing it gives.
		return RELIED_ON.test(last);
	}
	if (fault.kind === 'proto') {
		// v2: an asset's job_id is optional (the contract requires it of no Asset; an upload has none): renamed away, it is absent.
		if (fault.target.key && last === 'job_id' && /\/api\/v2\/assets\/[^/]+$/.test(exchange?.path ?? '')) return false;
		if (registry) return fault.target.key ? last === 'id' : /status/i.test(last);
		// An id key renamed away while another id key of the same object still names the same thing says nothing less.
		if (fault.target.key && /id$/i.test(last) && anotherIdNames(exchange, fault.target)) return false;
		return /status|state|id$|^id/i.test(last);
	}
	return false;
}
