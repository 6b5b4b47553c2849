/**
 * Simulator core: HTTP plumbing shared by the three API areas (routing, body parsing, auth,
 * request log, counters and the generic fault switches). Area modules register routes on a
 * Router and keep their own state; nothing here knows about jobs, nodes or tasks.
 *
 * Folder rule: shared/ owns what more than one area uses (this plumbing, the area context, signed
 * storage, the WebSocket hub and its faults, chaos, upload forms, PNG pictures, file types) and
 * imports no area, so every area can build on it. server.ts wires the areas together.
 * test/simulator/shared/import-rules.test.ts checks the rule.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import type { ChaosFaults } from './chaos';

/** One account of the simulated service: a cloud API key and a registry bearer token. */
export interface Account {
	/** Stable id, used as the publisher-member user id and to scope jobs. */
	id: string;
	name: string;
	email: string;
	apiKey: string;
	accessToken: string;
	/** How many cloud jobs run at once (the real tiers allow 1, 3 or 5). */
	parallelLimit: number;
	/** Credits; 0 makes cloud submits answer 402. */
	credits: number;
	/** false makes cloud submits answer 429 (subscription inactive). */
	subscriptionActive: boolean;
	/** Code-hosting token that proves repository ownership on claim-my-node. */
	repohostToken: string;
	/** Repository owner name this account holds on the code host (for claiming). */
	repohostUser: string;
}

export interface LoggedRequest {
	at: number;
	/** Which listener received it: the main service or the signed-URL storage host. */
	host: 'service' | 'storage';
	method: string;
	path: string;
	query: Record<string, string>;
	/** Header names lower-cased; secret values masked (see maskHeaders). */
	headers: Record<string, string>;
	/** Body as text (truncated), or a summary for binary/multipart bodies. */
	body: string;
	status?: number;
}

export interface Counters {
	/** Requests to the storage host that carried X-API-Key or Authorization. */
	storageCredentialAttempts: number;
	/** WebSocket connections accepted on /ws. */
	wsConnections: number;
	/** HTTP requests answered, by "METHOD /path" with ids left in. */
	httpRequests: number;
}

/**
 * Fault switches a test flips at run time. Each counter-type switch is consumed as it fires, so
 * "the next 3 requests fail" is `{ count: 3 }`. Area modules read the switches that concern them.
 */
export interface Faults {
	/** Delay every response whose path starts with `pathPrefix` (all when absent) by `ms`. */
	slow?: { ms: number; pathPrefix?: string };
	/** Answer the next `count` requests matching `pathPrefix` with `status` (default 503). */
	http5xx?: { count: number; pathPrefix?: string; status?: number };
	/** Every area and both flavours: the next `count` matching requests are told to slow down (`SlowDownFault`). */
	slowDown?: SlowDownFault;
	/** Send a broken JSON body on the next `count` JSON responses matching `pathPrefix`. */
	malformedJson?: { count: number; pathPrefix?: string };
	/** Cloud: close every open WebSocket (code 1006-like abrupt end) after `afterMessages` more messages. */
	dropWebSocket?: { afterMessages: number };
	/** Cloud: stop sending WebSocket messages (socket stays open) for `ms` after `afterMessages` more. */
	silenceWebSocket?: { afterMessages: number; ms: number };
	/** Cloud: the next `count` /api/view answers are 302 without a Location header. */
	redirectWithoutLocation?: { count: number };
	/** Cloud: signed URLs issued while set are already expired. */
	expiredSignedUrls?: boolean;
	/** Media proxy: notifications are each sent `times` times (duplicates). */
	duplicateNotifications?: { times: number };
	/** Media proxy: notifications of a task are delivered in reverse order once the task is final. */
	outOfOrderNotifications?: boolean;
	/** Media proxy: insert `count` malformed lines into the next music stream. */
	malformedNdjson?: { count: number };
	/** Media proxy: the next music stream ends with an error event instead of complete. */
	musicError?: { code: string; message: string };
	/** Every area and the storage host: random faults of several kinds at given rates, seeded and counted (chaos.ts). */
	chaos?: ChaosFaults;
}

/**
 * A service that says "slow down": the next `count` requests matching `pathPrefix` (and `method`,
 * when given) are answered `status` (429 by default, or 503) in the area's error shape, with
 * `Retry-After: retryAfter` (seconds, or any text as it is, such as an HTTP date; no header when
 * absent), and are not carried out. The cloud's 429 for an inactive subscription is apart from it.
 */
export interface SlowDownFault {
	count: number;
	pathPrefix?: string;
	method?: string;
	status?: 429 | 503;
	retryAfter?: number | string;
}

/** Whether the slow-down fault takes this request (consumed when it does). */
export function takesSlowDown(fault: SlowDownFault | undefined, method: string, path: string): fault is SlowDownFault {
	if (!fault || fault.count <= 0 || (fault.method && fault.method !== method) || (fault.pathPrefix && !path.startsWith(fault.pathPrefix)))
		return false;
	fault.count--;
	return true;
}

/** The answer of the slow-down fault, in the area's error shape. */
export function sendSlowDown(res: ServerResponse, fault: SlowDownFault, shape: 'cloud' | 'registry'): void {
	const status = fault.status ?? 429;
	if (fault.retryAfter !== undefined) res.setHeader('retry-after', String(fault.retryAfter));
	const [code, message] =
		status === 429 ? ['rate_limited', 'Too many requests: try again later'] : ['unavailable', 'The service is busy: try again later'];
	sendError(res, status, shape, code, message);
}

export interface SimRequest {
	method: string;
	path: string;
	query: URLSearchParams;
	headers: IncomingMessage['headers'];
	params: Record<string, string>;
	rawBody: Buffer;
	/** The raw Node request (for streaming handlers). */
	incoming: IncomingMessage;
}

export type Handler = (req: SimRequest, res: ServerResponse) => void | Promise<void>;

interface Route {
	method: string;
	pattern: RegExp;
	keys: string[];
	handler: Handler;
}

/** Minimal path router: patterns like `/api/job/:id/status`. */
export class Router {
	private routes: Route[] = [];

	add(method: string, path: string, handler: Handler): this {
		const keys: string[] = [];
		const source = path
			.split('/')
			.map((segment) => {
				if (segment.startsWith(':')) {
					keys.push(segment.slice(1));
					return '([^/]+)';
				}
				return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
			})
			.join('/');
		this.routes.push({ method, pattern: new RegExp(`^${source}$`), keys, handler });
		return this;
	}

	/** Returns the handler and params, 'method' when the path exists with another method, or undefined. */
	match(method: string, path: string): { handler: Handler; params: Record<string, string> } | 'method' | undefined {
		let pathMatched = false;
		for (const route of this.routes) {
			const m = route.pattern.exec(path);
			if (!m) continue;
			pathMatched = true;
			if (route.method !== method) continue;
			const params: Record<string, string> = {};
			route.keys.forEach((key, i) => (params[key] = decodeURIComponent(m[i + 1])));
			return { handler: route.handler, params };
		}
		return pathMatched ? 'method' : undefined;
	}
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Responses picked by the malformedJson fault: their JSON body is cut in half; the callback consumes the fault. */
export const malformedJsonResponses = new WeakMap<ServerResponse, () => void>();

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
	let text = JSON.stringify(body);
	const consume = malformedJsonResponses.get(res);
	if (consume) {
		consume();
		text = text.slice(0, Math.max(1, Math.floor(text.length / 2)));
	}
	res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
	res.end(text);
}

export function sendText(res: ServerResponse, status: number, text: string, contentType = 'text/plain'): void {
	res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
	res.end(text);
}

/** Parses a JSON body; answers 400 and returns undefined when it is not valid JSON. */
export function readJson<T = unknown>(
	req: SimRequest,
	res: ServerResponse,
	errorShape: 'cloud' | 'image' | 'video' | 'registry' = 'cloud',
): T | undefined {
	const text = req.rawBody.toString('utf8');
	try {
		return JSON.parse(text === '' ? 'null' : text) as T;
	} catch {
		sendError(res, 400, errorShape, 'invalid_json', 'The request body is not valid JSON.');
		return undefined;
	}
}

/**
 * Error bodies as each area shapes them: cloud `{error:{type,message}}`, images and registry
 * `{error, message}`, video `{message, details}`.
 */
export function sendError(
	res: ServerResponse,
	status: number,
	shape: 'cloud' | 'image' | 'video' | 'registry',
	code: string,
	message: string,
	details?: unknown,
): void {
	if (shape === 'cloud') return sendJson(res, status, { error: { type: code, message, details: details ?? '' } });
	if (shape === 'video') return sendJson(res, status, { message, details: details ?? code });
	return sendJson(res, status, { error: code, message });
}

export interface MultipartPart {
	name: string;
	filename?: string;
	contentType?: string;
	data: Buffer;
}

/** Parses a multipart/form-data body held in memory. Returns undefined when it is not multipart. */
export function parseMultipart(req: SimRequest): MultipartPart[] | undefined {
	const type = String(req.headers['content-type'] ?? '');
	const m = /multipart\/form-data;.*boundary=(?:"([^"]+)"|([^;]+))/i.exec(type);
	if (!m) return undefined;
	const boundary = Buffer.from(`--${m[1] ?? m[2]}`);
	const parts: MultipartPart[] = [];
	const body = req.rawBody;
	let start = body.indexOf(boundary);
	while (start !== -1) {
		const next = body.indexOf(boundary, start + boundary.length);
		if (next === -1) break;
		const chunk = body.subarray(start + boundary.length + 2, next - 2); // skip CRLF after boundary, before next
		const headerEnd = chunk.indexOf('\r\n\r\n');
		if (headerEnd !== -1) {
			const headerText = chunk.subarray(0, headerEnd).toString('utf8');
			const data = chunk.subarray(headerEnd + 4);
			const disposition = /content-disposition:([^\r\n]*)/i.exec(headerText)?.[1] ?? '';
			const name = /name="([^"]*)"/i.exec(disposition)?.[1];
			const filename = /filename="([^"]*)"/i.exec(disposition)?.[1];
			const contentType = /content-type:\s*([^\r\n]*)/i.exec(headerText)?.[1]?.trim();
			if (name !== undefined) parts.push({ name, filename, contentType, data });
		}
		start = next;
	}
	return parts;
}

const SECRET_HEADERS = new Set(['x-api-key', 'authorization', 'cookie']);

/**
 * Keeps header names, masks secret values: a test can see a credential was sent without the log holding it.
 * `alsoSecret` names more secret headers (lower case), such as a reverse proxy's token header.
 */
export function maskHeaders(headers: IncomingMessage['headers'], alsoSecret: readonly string[] = []): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [name, value] of Object.entries(headers)) {
		if (value === undefined) continue;
		const text = Array.isArray(value) ? value.join(', ') : value;
		const lower = name.toLowerCase();
		out[lower] = SECRET_HEADERS.has(lower) || alsoSecret.includes(lower) ? maskSecret(text) : text;
	}
	return out;
}

/** "Bearer abc…" → "Bearer ***(8)": keeps the scheme and the length, never the value. */
export function maskSecret(value: string): string {
	const m = /^(Bearer\s+)(.*)$/i.exec(value);
	return m ? `${m[1]}***(${m[2].length})` : `***(${value.length})`;
}

export function delay(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

export function bearerToken(req: SimRequest): string | undefined {
	const auth = String(req.headers.authorization ?? '');
	const m = /^Bearer\s+(.+)$/i.exec(auth);
	return m?.[1].trim();
}
