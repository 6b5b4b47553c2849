/**
 * A service that says "slow down": a 429 (it did not take the request, so sending it again is
 * safe, a submit included), or a 503 with Retry-After on a read. The transport waits what the
 * service asks (Retry-After in seconds or as an HTTP date; without it, the retry table's pauses,
 * then the request fails as the service answered), never less, jittered upward only, within the
 * request's bound: its read limit and the item's Max Wait. A wait that cannot fit fails at once,
 * in words. What an item waited is summed here, so its output can say so (`WAITED_FIELD`).
 */
import type { IDataObject, IHttpRequestMethods, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { pause } from '../waits/pause';
import { ERROR_CODE_FIELD, type TypedError } from './request-errors';
import { RETRY_DELAYS_MS } from './retry';
import type { HostContext } from './service-api';

/** The output field of an item that waited for the service: the seconds it waited, in all. */
export const WAITED_FIELD = 'waited_for_service_seconds';

/** The longest Retry-After read as such: beyond it (a year) the header is nonsense, not a wait. */
const RETRY_AFTER_MAX_MS = 365 * 24 * 3600 * 1000;

/** The upward jitter of a wait: up to this share of it, so that many clients do not come back in step. */
const JITTER_SHARE = 0.2;

/**
 * Retry-After as milliseconds from `now`: whole seconds, or an HTTP date (one in the past is 0).
 * Undefined when absent or nonsense (a negative number, a fraction, words, a value beyond a year).
 */
export function retryAfterMs(value: unknown, now: number = Date.now()): number | undefined {
	const text = (Array.isArray(value) ? value[0] : value)?.toString().trim() ?? '';
	if (text === '') return undefined;
	if (/^\d+$/.test(text)) {
		const ms = Number(text) * 1000;
		return ms <= RETRY_AFTER_MAX_MS ? ms : undefined;
	}
	// An HTTP date names its weekday and its zone ("Wed, 21 Oct 2015 07:28:00 GMT"); a bare number or word is not one.
	if (!/^[A-Za-z]{3},\s/.test(text) || !/\bGMT$/.test(text)) return undefined;
	const at = Date.parse(text);
	if (Number.isNaN(at)) return undefined;
	const ms = Math.max(0, at - now);
	return ms <= RETRY_AFTER_MAX_MS ? ms : undefined;
}

/** What the transport needs to know of a request to decide whether a "slow down" answer is waited out. */
export interface SlowDownRequest {
	method: IHttpRequestMethods;
	retry?: boolean;
	ignoreCancel?: boolean;
}

/**
 * Whether an answer asks to slow down and the request may be sent again once the wait is over: a
 * 429 on any request (the service did not take it), a 503 with Retry-After on a read (a 5xx after a
 * submit may have made a job). A clean-up call made because of a cancellation has no time to wait.
 */
export function asksToSlowDown(statusCode: number, headers: IDataObject, request: SlowDownRequest): boolean {
	if (request.ignoreCancel) return false;
	if (statusCode === 429) return true;
	const read = request.retry === true || request.method === 'GET' || request.method === 'HEAD';
	return statusCode === 503 && read && retryAfterMs(headers['retry-after']) !== undefined;
}

/** An answer's "slow down": its status and the wait it asked for (none when it named none). */
export interface SlowDownAnswer {
	statusCode: number;
	askedMs?: number;
}

/** The "slow down" of an answer to a `method` request (a storage host's), or undefined when it asks none. */
export function slowDownAsked(statusCode: number, headers: IDataObject, method: IHttpRequestMethods): SlowDownAnswer | undefined {
	if (!asksToSlowDown(statusCode, headers, { method })) return undefined;
	return { statusCode, askedMs: retryAfterMs(headers['retry-after']) };
}

/** Where a request's waits must end: its read limit, and the item's Max Wait when it has one. */
export interface WaitBounds {
	readDeadline: number;
	maxWaitDeadline?: number;
}

/** A wait that cannot fit: what the service asked, and the node's least pause when that is longer (a "0" asked again and again). */
export interface TooLongWait {
	askedMs: number;
	leftMs: number;
	byMaxWait: boolean;
	leastMs?: number;
}

/** The next wait: how long, or a wait the service asked for that cannot fit, or none (fail as answered). */
export type SlowDownPlan = { waitMs: number } | { tooLong: TooLongWait } | undefined;

/**
 * The wait after the `refusal`-th "slow down" answer (from 1) of a request. With Retry-After, at
 * least what is asked (and never less than the retry table's pause, so a "0" does not hammer),
 * however many times the service asks, within the bounds; without it, the retry table's pauses,
 * then none. Jitter only lengthens a wait, and only as far as the bounds allow.
 */
export function slowDownPlan(
	askedMs: number | undefined,
	refusal: number,
	bounds: WaitBounds,
	now: number = Date.now(),
	random: () => number = Math.random,
): SlowDownPlan {
	if (askedMs === undefined && refusal > RETRY_DELAYS_MS.length) return undefined;
	const tablePause = RETRY_DELAYS_MS[Math.min(refusal, RETRY_DELAYS_MS.length) - 1]!;
	const baseMs = Math.max(askedMs ?? 0, tablePause);
	const byMaxWait = bounds.maxWaitDeadline !== undefined && bounds.maxWaitDeadline < bounds.readDeadline;
	const leftMs = Math.max(0, Math.min(bounds.readDeadline, bounds.maxWaitDeadline ?? Infinity) - now);
	if (baseMs > leftMs)
		return askedMs === undefined
			? undefined
			: { tooLong: { askedMs, leftMs, byMaxWait, ...(baseMs > askedMs ? { leastMs: baseMs } : {}) } };
	return { waitMs: baseMs + Math.min(random() * JITTER_SHARE * baseMs, leftMs - baseMs) };
}

/** "90 s", "12.5 s", "0.5 s": a wait in seconds, as messages and outputs say it. */
export const waitSeconds = (ms: number): number => Math.round(ms / 100) / 10;

/** Errors that say a wait the service asked for was longer than the request may wait (nothing more was sent). */
const waitsTooLong = new WeakSet<object>();

/** Whether `error` says the service asked for a wait the request could not make: another try would be asked the same. */
export const isServiceWaitTooLong = (error: unknown): boolean => typeof error === 'object' && error !== null && waitsTooLong.has(error);

/**
 * The error of a wait that cannot fit; `typed`: what the answer's body said (a v2 429 names which
 * limit it was: `queue_full`, `deployment_not_ready`, `rate_limited`), so the message says it too.
 */
export function serviceWaitTooLongError(
	context: HostContext,
	statusCode: number,
	tooLong: TooLongWait,
	request: { action?: string; itemIndex?: number; method: IHttpRequestMethods },
	typed: TypedError = {},
): NodeApiError {
	const bound = tooLong.byMaxWait ? 'of Max Wait' : 'of the time a request may take with its retries';
	const which = typed.code ? ` ${typed.code}${typed.advice ? `: ${typed.advice.headline.toLowerCase()}` : ''}` : '';
	const message = `The service asked to wait ${waitSeconds(tooLong.askedMs)} s before trying again (HTTP ${statusCode}${which})${
		request.action ? ` while ${request.action}` : ''
	}${tooLongWords(tooLong)} ${bound}; the node did not wait`;
	const nothingMade = statusCode === 429 && request.method !== 'GET' ? ' The service did not take the request: nothing was made.' : '';
	const why = `The service is busy or limits how often it may be asked${typed.said ? ` (it said: ${typed.said.replace(/\.$/, '')})` : ''}.`;
	// A NodeApiError as any other answer's (its kind is marked aside, not in its name, which n8n shows).
	const error = new NodeApiError(context.getNode(), { statusCode, message } as JsonObject, {
		message,
		description: `${why}${nothingMade} Run again later${tooLong.byMaxWait ? ', or raise Max Wait' : ''}.`,
		httpCode: String(statusCode),
		itemIndex: request.itemIndex,
	});
	if (typed.code) error.context[ERROR_CODE_FIELD] = typed.code;
	waitsTooLong.add(error);
	return error;
}

/** Why the wait does not fit: the one asked, or the node's least pause when the service asks less (it does not hammer). */
export function tooLongWords(tooLong: TooLongWait): string {
	const left = `${waitSeconds(tooLong.leftMs)} s left`;
	if (tooLong.leastMs === undefined) return `, more than the ${left}`;
	return `; the node pauses at least ${waitSeconds(tooLong.leastMs)} s before another try, more than the ${left}`;
}

/** The seconds each item of a run waited for the service, by the run's context (one per node run). */
const waitedByRun = new WeakMap<object, Map<number, number>>();

/**
 * Waits `ms` (never less, as the clock counts), or rejects as soon as `signal` aborts; the time
 * waited, the part before an abort too, counts for the item.
 */
export async function waitForService(context: HostContext, itemIndex: number, ms: number, signal?: AbortSignal): Promise<void> {
	const started = Date.now();
	const until = started + ms;
	try {
		// A timer may fire a moment early by the clock: what is left is waited too.
		while (Date.now() < until) await pause(until - Date.now(), signal);
	} finally {
		const byItem = waitedByRun.get(context) ?? new Map<number, number>();
		byItem.set(itemIndex, (byItem.get(itemIndex) ?? 0) + Date.now() - started);
		waitedByRun.set(context, byItem);
	}
}

/** How long the item waited for the service in this run, in seconds; undefined when it never did. */
export function waitedForService(context: object, itemIndex: number): number | undefined {
	const ms = waitedByRun.get(context)?.get(itemIndex);
	return ms === undefined ? undefined : waitSeconds(ms);
}

/** The item's output items, each saying how long it waited for the service (unchanged when it never did). */
export function withServiceWait(context: object, itemIndex: number, items: INodeExecutionData[]): INodeExecutionData[] {
	const seconds = waitedForService(context, itemIndex);
	return seconds === undefined ? items : items.map((item) => ({ ...item, json: { ...item.json, [WAITED_FIELD]: seconds } }));
}

/** Words for a failed item's description: how long it waited for the service first (empty when it never did). */
export function serviceWaitWords(context: object, itemIndex: number): string {
	const seconds = waitedForService(context, itemIndex);
	return seconds === undefined ? '' : `The node waited ${seconds} s in all for the service, which asked it to slow down.`;
}
