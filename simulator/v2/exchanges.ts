/**
 * v2: every exchange the v2 host had, kept for tests that check them against the contract
 * (test/support/v2-contract.ts): the request (method, path, headers with secrets masked, the body
 * parsed: JSON, or a multipart form's field names and values) and the answer (status, headers, and
 * the body of JSON and event-stream answers; bytes are not kept).
 */
import type { ServerResponse } from 'node:http';

import { isPlainObject, maskHeaders, maskSecret, parseMultipart, type SimRequest } from '../shared/core';

export interface V2Exchange {
	method: string;
	path: string;
	headers: Record<string, string>;
	/** Parsed JSON; `{fields, files}` for a multipart form; the text when not JSON; undefined when empty. */
	body?: unknown;
	/** Undefined until answered; stays undefined when the connection was cut before an answer. */
	status?: number;
	responseHeaders: Record<string, string>;
	/** JSON or event-stream answers' text (what was written before the end or the cut). */
	responseText: string;
	/** Whether the answer ended normally (false: cut, or still streaming). */
	complete: boolean;
}

const TEXT_LIMIT = 1024 * 1024;
const EXCHANGE_LIMIT = 10_000;

/** The request body as the checks read it; the partner key's value masked. */
function parsedBody(req: SimRequest): unknown {
	if (req.rawBody.length === 0) return undefined;
	const form = parseMultipart(req);
	if (form) {
		const fields: Record<string, string[]> = {};
		for (const part of form.filter((p) => p.filename === undefined)) (fields[part.name] ??= []).push(part.data.toString('utf8'));
		return { fields, files: form.filter((p) => p.filename !== undefined).map((p) => p.name) };
	}
	const text = req.rawBody.toString('utf8');
	try {
		const json = JSON.parse(text) as unknown;
		const extra = isPlainObject(json) && isPlainObject(json.extra_data) ? json.extra_data : undefined;
		if (extra && typeof extra.api_key_comfy_org === 'string') extra.api_key_comfy_org = maskSecret(extra.api_key_comfy_org);
		return json;
	} catch {
		return text.slice(0, TEXT_LIMIT);
	}
}

function headerRecord(headers: ReturnType<ServerResponse['getHeaders']>): Record<string, string> {
	return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v.join(', ') : String(v)]));
}

/** Starts the record of an exchange and follows the answer as it is written. */
export function recordExchange(req: SimRequest, res: ServerResponse, log: V2Exchange[]): void {
	const exchange: V2Exchange = {
		method: req.method,
		path: req.path,
		headers: maskHeaders(req.headers),
		body: parsedBody(req),
		responseHeaders: {},
		responseText: '',
		complete: false,
	};
	log.push(exchange);
	// A long-running CLI simulator keeps the newest ones only.
	if (log.length > EXCHANGE_LIMIT) log.splice(0, log.length - EXCHANGE_LIMIT);
	const chunks: string[] = [];
	let kept = 0;
	let textual = false;
	const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
	res.writeHead = ((status: number, ...rest: unknown[]) => {
		const given = rest.find((r) => typeof r === 'object' && r !== null) as Record<string, unknown> | undefined;
		exchange.status = status;
		exchange.responseHeaders = { ...headerRecord(res.getHeaders()), ...headerRecord((given ?? {}) as never) };
		textual = /json|event-stream/.test(exchange.responseHeaders['content-type'] ?? '');
		return writeHead(status, ...rest);
	}) as ServerResponse['writeHead'];
	const keep = (chunk: unknown) => {
		if (!textual || chunk === undefined || typeof chunk === 'function' || kept > TEXT_LIMIT) return;
		const text = Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk);
		kept += text.length;
		chunks.push(text);
		exchange.responseText = chunks.join('');
	};
	const write = res.write.bind(res) as (...args: unknown[]) => boolean;
	res.write = ((chunk: unknown, ...rest: unknown[]) => (keep(chunk), write(chunk, ...rest))) as ServerResponse['write'];
	const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
	res.end = ((chunk?: unknown, ...rest: unknown[]) => (keep(chunk), end(chunk, ...rest))) as ServerResponse['end'];
	res.on('finish', () => {
		exchange.status ??= res.statusCode;
		exchange.complete = true;
	});
}
