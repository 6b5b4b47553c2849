/**
 * The one HTTP transport of the package. Every call to the service goes through `hostRequest`,
 * which applies the credential with n8n's `httpRequestWithAuthentication` (proxy settings and the
 * execution's abort signal included), maps HTTP failures to messages a no-code user can act on,
 * redacts secrets from anything the service echoes back, and retries only what is safe to retry.
 * Each node's endpoints are typed functions over it in `nodes/<Node>/transport/`; they pass the
 * description of their API (`service-api.ts`: the credential type, where requests go, the secrets,
 * what the service's answers mean), so nothing here names a service.
 *
 * Signed storage URLs (output and result files, the archive upload) go through `storageRequest`:
 * the same limits, with no credential at all, since they carry their own signature and the
 * credentialed call would send the API key or token to the storage host. No other file of the
 * package calls n8n's HTTP helpers (a structure test holds it).
 */
import type { IDataObject, IHttpRequestMethods, IHttpRequestOptions, IN8nHttpFullResponse, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { DEFAULT_TIME_LIMIT_SECONDS, REQUEST_TIME_LIMIT } from '../../../credentials/time-limit';
import { containsSecret, redactDeep, secretsOfCredential } from './redaction';
import { httpError, networkError, overBoundAnswer, redirectError, secretLocationError, unexpectedAnswer } from './request-errors';
import { pauseBeforeRetry, RETRY_DELAYS_MS } from './retry';
import { asksToSlowDown, retryAfterMs, serviceWaitTooLongError, slowDownPlan, waitForService } from './slow-down';
import { isPlainObject } from '../items/validation';
import { discardBody } from '../binary/streams';
import { AnswerOverBound, readAnswer, readBoundedText, readErrorBody } from './answer-reading';
import type { HostContext, RunContext, ServiceApi, ServiceTarget } from './service-api';

export type { HostContext, RunContext, ServiceApi } from './service-api';

export interface HostRequest {
	method: IHttpRequestMethods;
	/** Path below the base URL the API description reads from the credential. */
	path: string;
	qs?: IDataObject;
	body?: IHttpRequestOptions['body'];
	headers?: IDataObject;
	/** Send `body` as JSON (default true when the body is a plain object). */
	json?: boolean;
	/** Answer a stream instead of parsed JSON (music NDJSON). */
	stream?: boolean;
	/**
	 * The caller reads `Location` of a redirect (signed output URLs). Without it a redirect is an
	 * error: no redirect is ever followed, since that would send the credential to another address.
	 */
	manualRedirect?: boolean;
	/**
	 * The answer the API describes for this call: a JSON object. Anything else (an HTML page, an
	 * empty or cut-off body, null, a list) is an error that says what came, never data.
	 */
	answer?: 'object';
	/**
	 * Retry 5xx answers and network errors with back-off. Only for calls that are safe to repeat.
	 * (Every call waits out a 429, and a read a 503 with Retry-After, as the service asks: `slow-down.ts`.)
	 */
	retry?: boolean;
	/**
	 * When a wait the service asks for (429, 503 with Retry-After) must be over: the item's Max Wait,
	 * which its poller knows. The read limit bounds every such wait in any case.
	 */
	deadline?: number;
	timeout?: number;
	/** Item the call is made for (error messages carry it). */
	itemIndex?: number;
	/** What the call does, for error messages ("submitting the workflow"). */
	action?: string;
	/** Extra values to blank out of any error text (body secrets such as the publishing token). */
	secrets?: string[];
	/**
	 * What a status means for this call, when it differs from the general meaning (e.g. a 401 when
	 * claiming a node may be the code-hosting token, not the access token). Replaces the general
	 * headline and hint for those statuses only.
	 */
	statusAdvice?: Partial<Record<number, { headline: string; hint: string }>>;
	/**
	 * Send even after the execution was cancelled: clean-up calls made because of the cancellation
	 * (cancelling the node's own queued jobs). Give these a short `timeout`.
	 */
	ignoreCancel?: boolean;
	/**
	 * Ends the request when this aborts, as the execution's cancel signal does: a caller that gives
	 * up on a silent service closes the connection at once (destroying a stream cannot while a read waits).
	 */
	stop?: AbortSignal;
}

export interface HostResponse<T> {
	statusCode: number;
	headers: Record<string, string | string[] | undefined>;
	body: T;
	/** A streamed answer: stops reading it and closes its connection at once. */
	abandon?: () => void;
}

/** Where a request goes with the credential it is made with, the secrets to keep out, and its Time Limit; read once a request. */
async function targetOf(
	context: HostContext,
	api: ServiceApi,
	itemIndex: number,
): Promise<ServiceTarget & { secrets: string[]; timeLimitSeconds: unknown }> {
	const credentials = await context.getCredentials(api.credentialType, itemIndex);
	const secrets = secretsOfCredential(context, api, credentials);
	return { ...api.target(context, credentials, itemIndex), secrets, timeLimitSeconds: credentials.timeLimitSeconds };
}

export { REQUEST_TIME_LIMIT };

/** The limits for one request: the credential's Time Limit (seconds) where it raises the defaults, a call's own `timeout` only shortening them. */
export function timeLimitsFor(credentialSeconds: unknown, timeout?: number): { idleMs: number; readMs: number } {
	// The setting is in the stated seconds (60 by default); it scales the limits, which tests shorten.
	const seconds = Number(credentialSeconds);
	const scale = Number.isFinite(seconds) && seconds > DEFAULT_TIME_LIMIT_SECONDS ? seconds / DEFAULT_TIME_LIMIT_SECONDS : 1;
	const idleMs = REQUEST_TIME_LIMIT.ms * scale;
	return { idleMs: Math.min(timeout ?? idleMs, idleMs), readMs: REQUEST_TIME_LIMIT.readMs * scale };
}

/** Sends a request and answers the parsed body, or throws a NodeApiError a user can act on. */
export async function hostRequest<T = unknown>(context: HostContext, api: ServiceApi, request: HostRequest): Promise<T> {
	return (await hostRequestFull<T>(context, api, request)).body;
}

/** Like hostRequest, with the status and headers (redirects, streams). */
export async function hostRequestFull<T = unknown>(context: HostContext, api: ServiceApi, request: HostRequest): Promise<HostResponse<T>> {
	const itemIndex = request.itemIndex ?? 0;
	const host = await targetOf(context, api, itemIndex);
	const { baseUrl } = host;
	const secrets = [...host.secrets, ...(request.secrets ?? [])];
	// A stream's own idle limit is the user's (music's Idle Timeout): it may be longer than the default.
	const limits = timeLimitsFor(host.timeLimitSeconds, request.stream ? undefined : request.timeout);
	if (request.stream && request.timeout !== undefined)
		Object.assign(limits, { idleMs: request.timeout, readMs: Math.max(limits.readMs, request.timeout) });
	const options: IHttpRequestOptions = {
		method: request.method,
		url: `${baseUrl}${request.path}`,
		qs: request.qs,
		body: request.body,
		headers: { Accept: request.stream ? 'application/x-ndjson, application/json' : 'application/json', ...request.headers },
		json: request.json ?? (request.body !== undefined && isPlainObject(request.body)),
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		disableFollowRedirect: true,
		// Every answer is read as a stream: n8n's helper would buffer and parse any size and depth.
		encoding: 'stream',
		timeout: limits.idleMs,
	};
	const signal = !request.ignoreCancel && 'getExecutionCancelSignal' in context ? context.getExecutionCancelSignal() : undefined;
	// A caller that stopped the call (a trigger closed, a stream gone idle) wants no further try, nor a pause before one.
	const pauseEnds = anySignal([signal, request.stop]);
	const attempts = request.retry ? RETRY_DELAYS_MS.length + 1 : 1;
	const deadline = Date.now() + limits.readMs;
	// Answers that asked to slow down: their waits are not retries of a failure.
	let slowDowns = 0;
	for (let tries = 1; ; tries++) {
		const attempt = tries - slowDowns;
		// No attempt (nor its silence) runs past the read's deadline.
		const idleMs = Math.max(1, Math.min(limits.idleMs, deadline - Date.now()));
		options.timeout = idleMs;
		// Asked when the attempt has failed: the time it took is spent (no retry starts past the deadline).
		const retryAllowed = () => attempt < attempts && !request.stop?.aborted && deadline - Date.now() > retryPauseMs(attempt);
		// n8n's helper attaches the context's cancel signal to the request it sends: this attempt's is the
		// execution's (not for a clean-up call made because of the cancellation), the caller's `stop`,
		// and its own, fired when the node stops reading the answer, which closes the connection at once.
		const giveUp = new AbortController();
		const caller = withCancelSignal(context, anySignal([signal, request.stop, giveUp.signal])!);
		let response: IN8nHttpFullResponse | undefined;
		let answer: unknown;
		try {
			response = (await context.helpers.httpRequestWithAuthentication.call(caller, api.credentialType, options)) as IN8nHttpFullResponse;
			if (!request.stream && response.statusCode < 300)
				answer = await readAnswer(response.body, { idleMs, totalMs: deadline - Date.now() }, signal);
		} catch (error) {
			abandon(response?.body, giveUp);
			if (error instanceof AnswerOverBound) throw overBoundAnswer(context, error.problem, request);
			if (signal?.aborted) throw cancelledError(context, request);
			if (retryAllowed()) {
				await pauseBeforeRetry(attempt, pauseEnds);
				continue;
			}
			throw networkError(context, error, { ...request, timeout: limits.idleMs }, secrets);
		}
		const statusCode = response.statusCode;
		if (asksToSlowDown(statusCode, response.headers as IDataObject, request)) {
			const bounds = { readDeadline: deadline - limits.idleMs, maxWaitDeadline: request.deadline };
			const plan = slowDownPlan(retryAfterMs((response.headers as IDataObject)['retry-after']), ++slowDowns, bounds);
			if (plan) {
				abandon(response.body, giveUp);
				if ('tooLong' in plan) throw serviceWaitTooLongError(context, statusCode, plan.tooLong, request);
				await waitAsAsked(context, request, plan.waitMs, { signal, pauseEnds });
				continue;
			}
		}
		if (statusCode >= 500 && retryAllowed()) {
			abandon(response.body, giveUp);
			await pauseBeforeRetry(attempt, pauseEnds);
			continue;
		}
		if (statusCode >= 400) {
			const body = await readErrorBody(response.body, { idleMs, totalMs: deadline - Date.now() }, signal);
			abandon(response.body, giveUp);
			if (signal?.aborted) throw cancelledError(context, request);
			throw httpError(context, statusCode, body, host.errors, request, secrets);
		}
		if (statusCode >= 300 && !request.manualRedirect) {
			abandon(response.body, giveUp);
			throw redirectError(context, statusCode, response.headers as IDataObject, options.url, request, secrets);
		}
		const headers = response.headers as HostResponse<T>['headers'];
		if (statusCode >= 300 && containsSecret(String(headers.location ?? ''), secrets)) {
			abandon(response.body, giveUp);
			throw secretLocationError(context, statusCode, request);
		}
		// A redirect the caller reads is only its Location.
		if (statusCode >= 300 && !request.stream) abandon(response.body, giveUp);
		const body = request.stream ? response.body : redactDeep(answer, secrets);
		if (request.answer === 'object' && statusCode < 300 && !isPlainObject(body)) throw unexpectedAnswer(context, statusCode, body, request);
		return {
			statusCode,
			headers: redactDeep(headers, secrets),
			body: body as T,
			...(request.stream ? { abandon: () => abandon(response?.body, giveUp) } : {}),
		};
	}
}

/** Stops reading an answer: its connection is closed at once (destroying a stream cannot while a read waits on it). */
export function abandon(body: unknown, giveUp: AbortController): void {
	// The abort makes n8n's client emit an error on the body, which may have no reader any more.
	(body as { once?: (event: 'error', listener: () => void) => void } | undefined)?.once?.('error', () => undefined);
	giveUp.abort();
	discardBody(body);
}

/** Waits what the service asked (the item's wait counted); a cancel ends it as a cancelled request, a caller's stop as a stopped one. */
async function waitAsAsked(
	context: HostContext,
	request: HostRequest,
	ms: number,
	ends: { signal?: AbortSignal; pauseEnds?: AbortSignal },
): Promise<void> {
	const stopped = await waitForService(context, request.itemIndex ?? 0, ms, ends.pauseEnds).then(
		() => false,
		() => true,
	);
	if (!stopped) return;
	if (ends.signal?.aborted) throw cancelledError(context, request);
	const message = `The request was stopped by the node${request.action ? ` while ${request.action}` : ''}`;
	throw new NodeApiError(context.getNode(), { message } as JsonObject, { message, itemIndex: request.itemIndex });
}

/** The longest pause before attempt `attempt + 1` (its jitter included). */
const retryPauseMs = (attempt: number): number => (RETRY_DELAYS_MS[attempt - 1] ?? 0) * 1.2;

function cancelledError(context: HostContext, request: HostRequest): NodeApiError {
	return new NodeApiError(context.getNode(), { message: 'The execution was cancelled' } as JsonObject, {
		message: `The execution was cancelled${request.action ? ` while ${request.action}` : ''}`,
		itemIndex: request.itemIndex,
	});
}

/** What a signed storage request may do beyond the defaults. */
export interface StorageRequest {
	method: IHttpRequestMethods;
	url: string;
	body?: IHttpRequestOptions['body'];
	headers?: IDataObject;
	/** Follow redirects (a download from storage that moves its files); never for an upload. */
	followRedirects?: boolean;
	/** Ends the request (and closes its connection) when it aborts: a caller that stops reading the answer. */
	stop?: AbortSignal;
}

/**
 * A request to a signed storage address, with no credential (the signature in the URL is the
 * permission): the answer's headers within the idle limit, its body unread (a stream). The caller
 * reads a file body itself (`binary.ts`) or its words with `readStorageText`.
 */
export async function storageRequest(context: RunContext, request: StorageRequest): Promise<IN8nHttpFullResponse> {
	return (await context.helpers.httpRequest({
		method: request.method,
		url: request.url,
		body: request.body,
		headers: request.headers,
		json: false,
		encoding: 'stream',
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		disableFollowRedirect: !request.followRedirects,
		timeout: storageIdleMs(),
		// The plain helper attaches no cancel signal of its own: the execution's, and the caller's stop.
		abortSignal: anySignal(['getExecutionCancelSignal' in context ? context.getExecutionCancelSignal() : undefined, request.stop]),
	})) as IN8nHttpFullResponse;
}

/**
 * The idle limit of a storage request, for its body's reading and its words. Signed storage keeps
 * the stated limits: a credential's Time Limit is for the service it belongs to.
 */
export const storageIdleMs = (): number => timeLimitsFor(undefined).idleMs;

/** The read limit of a storage request (a download's pace is judged after it). */
export const storageReadMs = (): number => timeLimitsFor(undefined).readMs;

/**
 * Whether a repeatable read that started at `startedAt` may make attempt `attempt + 1`: its pause
 * and a whole idle limit of silence must fit in the read limit (a read with its retries ends within it).
 */
export function retryFits(startedAt: number, attempt: number, limits = timeLimitsFor(undefined)): boolean {
	return Date.now() + retryPauseMs(attempt) + limits.idleMs <= startedAt + limits.readMs;
}

/** The words of a storage answer (an error page), read within the idle limit and the error bound, as text. */
export async function readStorageText(body: unknown, signal?: AbortSignal): Promise<string> {
	const { idleMs, readMs } = timeLimitsFor(undefined);
	const text = await readBoundedText(body, { idleMs, totalMs: readMs }, signal);
	return typeof text === 'string' ? text : '';
}

/** One signal for those given (undefined when none is). */
function anySignal(signals: Array<AbortSignal | undefined>): AbortSignal | undefined {
	const given = signals.filter((signal): signal is AbortSignal => signal !== undefined);
	return given.length > 1 ? AbortSignal.any(given) : given[0];
}

/** A view of the context whose cancel signal is `signal` (n8n's helper attaches it to the request it sends). */
function withCancelSignal(context: HostContext, signal: AbortSignal): HostContext {
	return new Proxy(context, {
		has: (target, key) => key === 'getExecutionCancelSignal' || Reflect.has(target, key),
		get: (target, key, receiver) => (key === 'getExecutionCancelSignal' ? () => signal : Reflect.get(target, key, receiver)),
	});
}
