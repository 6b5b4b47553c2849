/**
 * Reading an answer's body within its bounds: each part within the idle limit, the whole by the
 * read's deadline, and no more than its size bound. The transport (`transport.ts`) reads every
 * answer through these; they send nothing themselves.
 */
import { JSON_LIMITS, readJson, readableSize } from './json-reader';
import { discardBody, IdleTimeoutError, isAsyncIterable, TotalTimeoutError, withIdleTimeout } from '../binary/streams';

/** The most of an error answer that is read: enough for the service's words, never a flood. */
const ERROR_BODY_BYTES = 64 * 1024;

/**
 * The start of a body nobody needs whole (an error answer, a storage page): at most
 * ERROR_BODY_BYTES, each part within the idle limit and the whole by the read's deadline. A body
 * that stalls, trickles past the deadline or breaks off gives what came:
 * the status already says what happened, and no silent peer holds the item.
 */
export async function readBoundedText(body: unknown, limits: BodyLimits, signal: AbortSignal | undefined): Promise<unknown> {
	if (!isAsyncIterable(body)) return body;
	const chunks: Buffer[] = [];
	let size = 0;
	try {
		for await (const chunk of withIdleTimeout(body, limits.idleMs, signal, Math.max(1, limits.totalMs))) {
			chunks.push(chunk);
			size += chunk.length;
			if (size > ERROR_BODY_BYTES) break;
		}
	} catch {
		// Silent, cut or cancelled: what came is all there is.
	}
	discardBody(body);
	return Buffer.concat(chunks).subarray(0, ERROR_BODY_BYTES).toString('utf8');
}

/** How long a body may be silent at a time, and in all (the read's deadline). */
export interface BodyLimits {
	idleMs: number;
	totalMs: number;
}

/** An error answer's body: its JSON value when it is JSON within the message bounds, else its (clipped) text. */
export async function readErrorBody(body: unknown, limits: BodyLimits, signal: AbortSignal | undefined): Promise<unknown> {
	const text = await readBoundedText(body, limits, signal);
	if (typeof text !== 'string') return text;
	const reading = readJson(text, JSON_LIMITS.message);
	return 'value' in reading ? reading.value : text;
}

/** An answer the bounded reader refused (too large, too deep): not retried, since it would come again. */
export class AnswerOverBound extends Error {
	constructor(readonly problem: string) {
		super(problem);
	}
}

/**
 * A successful answer, read within the bounds of an answer: its JSON value, or its text when it is
 * not JSON (an HTML page; the caller's `answer` check words it), as n8n's helper would give it. A
 * body that goes silent for the request's time limit ends as a timeout.
 */
export async function readAnswer(body: unknown, limits: BodyLimits, signal: AbortSignal | undefined): Promise<unknown> {
	if (!isAsyncIterable(body)) return body;
	const chunks: Buffer[] = [];
	let size = 0;
	try {
		for await (const chunk of withIdleTimeout(body, limits.idleMs, signal, Math.max(1, limits.totalMs))) {
			size += chunk.length;
			if (size > JSON_LIMITS.answer.maxChars) throw new AnswerOverBound(`is larger than ${readableSize(JSON_LIMITS.answer.maxChars)}`);
			chunks.push(chunk);
		}
	} catch (error) {
		discardBody(body);
		// Silent, or still trickling at the read's deadline: a timeout either way.
		const timedOut = error instanceof IdleTimeoutError || error instanceof TotalTimeoutError;
		throw timedOut ? Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' }) : error;
	}
	const text = Buffer.concat(chunks).toString('utf8');
	if (text === '') return '';
	const reading = readJson(text, JSON_LIMITS.answer);
	if ('value' in reading) return reading.value;
	if (reading.bound) throw new AnswerOverBound(reading.problem);
	return text;
}
