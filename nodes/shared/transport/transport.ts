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
 *
 * What a call may ask is `host-request.ts`; how long a request may take, and whether another try
 * fits, `request-limits.ts`.
 */
import type { IDataObject, IHttpRequestMethods, IHttpRequestOptions, IN8nHttpFullResponse, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { containsSecret, redactDeep, secretsOfCredential } from './redaction';
import {
	httpError,
	networkError,
	overBoundAnswer,
	redirectError,
	secretLocationError,
	typedErrorOf,
	unexpectedAnswer,
} from './request-errors';
import { pauseBeforeRetry, RETRY_DELAYS_MS } from './retry';
import { asksToSlowDown, retryAfterMs, serviceWaitTooLongError, slowDownPlan, waitForService } from './slow-down';
import { isPlainObject } from '../items/validation';
import { discardBody } from '../binary/streams';
import { AnswerOverBound, readAnswer, readBoundedText, readErrorBody } from './answer-reading';
import type { HostContext, RunContext, ServiceApi, ServiceTarget } from './service-api';
import type { HostRequest, HostResponse } from './host-request';
import { REQUEST_TIME_LIMIT, retryPauseMs, storageIdleMs, timeLimitsFor } from './request-limits';

export type { HostContext, RunContext, ServiceApi } from './service-api';
export type { HostRequest, HostResponse } from './host-request';
export { REQUEST_TIME_LIMIT };

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

/** Sends a request and answers the parsed body, or throws a NodeApiError a user can act on. */
export async function hostRequest<T = unknown>(context: HostContext, api: ServiceApi, request: HostRequest): Promise<T> {
	return (await hostRequestFull<T>(context, api, request)).body;
}

/** Like hostRequest, with the status and headers (redirects, streams). */
export async function hostRequestFull<T = unknown>(context: HostContext, api: ServiceApi, request: HostRequest): Promise<HostResponse<T>> {
	const call = await prepareCall(context, api, request);
	// Answers that asked to slow down are counted apart from failed tries: their waits are not retries of a failure.
	const tries: Tries = { failed: 0, slowDowns: 0 };
	for (;;) {
		const outcome = await attemptOnce<T>(call, tries);
		if (outcome !== AGAIN) return outcome;
	}
}

/** What every attempt of one request shares: its target, its limits, its options and the signals that end it. */
interface Call {
	context: HostContext;
	api: ServiceApi;
	request: HostRequest;
	host: ServiceTarget;
	/** The credential's secrets and the call's own, kept out of everything the node shows. */
	secrets: string[];
	limits: { idleMs: number; readMs: number };
	options: IHttpRequestOptions;
	/** The execution's cancel signal (none for a clean-up call made because of the cancellation). */
	signal?: AbortSignal;
	/** Ends a pause before another try: the cancel signal or the caller's stop. */
	pauseEnds?: AbortSignal;
	/** When the read, its retries and waits included, must be over. */
	deadline: number;
	attempts: number;
}

/** A request's failed tries, and the answers that asked it to slow down. */
interface Tries {
	failed: number;
	slowDowns: number;
}

/** An attempt that ended in a pause or a wait the service asked for: the request is sent again. */
const AGAIN = Symbol('again');

/** Reads the credential once and fixes what every attempt of the request shares. */
async function prepareCall(context: HostContext, api: ServiceApi, request: HostRequest): Promise<Call> {
	const host = await targetOf(context, api, request.itemIndex ?? 0);
	// A stream's own idle limit is the user's (music's Idle Timeout): it may be longer than the default.
	const limits = timeLimitsFor(host.timeLimitSeconds, request.stream ? undefined : request.timeout);
	if (request.stream && request.timeout !== undefined)
		Object.assign(limits, { idleMs: request.timeout, readMs: Math.max(limits.readMs, request.timeout) });
	const signal = !request.ignoreCancel && 'getExecutionCancelSignal' in context ? context.getExecutionCancelSignal() : undefined;
	return {
		context,
		api,
		request,
		host,
		secrets: [...host.secrets, ...(request.secrets ?? [])],
		limits,
		options: requestOptions(host.baseUrl, request, limits.idleMs),
		signal,
		// A caller that stopped the call (a trigger closed, a stream gone idle) wants no further try, nor a pause before one.
		pauseEnds: anySignal([signal, request.stop]),
		deadline: Date.now() + limits.readMs,
		attempts: request.retry ? RETRY_DELAYS_MS.length + 1 : 1,
	};
}

/** n8n's request options for `request`: every status answered, no redirect followed, the body left a stream. */
function requestOptions(baseUrl: string, request: HostRequest, idleMs: number): IHttpRequestOptions {
	return {
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
		timeout: idleMs,
	};
}

/** One attempt: the answer, an error in words, or AGAIN once the pause before a retry or the wait the service asked is over. */
async function attemptOnce<T>(call: Call, tries: Tries): Promise<HostResponse<T> | typeof AGAIN> {
	const { context, request, signal } = call;
	const attempt = tries.failed + 1;
	// No attempt (nor its silence) runs past the read's deadline.
	const idleMs = Math.max(1, Math.min(call.limits.idleMs, call.deadline - Date.now()));
	// Asked when the attempt has failed: the time it took is spent (no retry starts past the deadline).
	const retryAllowed = () => attempt < call.attempts && !request.stop?.aborted && call.deadline - Date.now() > retryPauseMs(attempt);
	const retry = async (): Promise<typeof AGAIN> => {
		tries.failed++;
		await pauseBeforeRetry(attempt, call.pauseEnds);
		return AGAIN;
	};
	const giveUp = new AbortController();
	const sent = await sendOnce(call, idleMs, giveUp);
	if ('failure' in sent) {
		const { failure } = sent;
		if (failure instanceof AnswerOverBound) throw overBoundAnswer(context, failure.problem, request);
		if (signal?.aborted) throw cancelledError(context, request);
		if (retryAllowed()) return await retry();
		throw networkError(context, failure, { ...request, timeout: call.limits.idleMs }, call.secrets);
	}
	const { response } = sent;
	if (request.answerStatuses?.includes(response.statusCode)) {
		abandon(response.body, giveUp);
		return {
			statusCode: response.statusCode,
			headers: redactDeep(response.headers, call.secrets) as HostResponse<T>['headers'],
			body: undefined as T,
		};
	}
	if (asksToSlowDown(response.statusCode, response.headers as IDataObject, request)) {
		if (await waitedAsAsked(call, response, ++tries.slowDowns, giveUp)) return AGAIN;
	}
	if (response.statusCode >= 500 && retryAllowed()) {
		abandon(response.body, giveUp);
		return await retry();
	}
	return await finalAnswer<T>(call, sent, idleMs, giveUp);
}

/** An answer as it came: the response, and its parsed body when it was a success read whole. */
interface Sent {
	response: IN8nHttpFullResponse;
	answer: unknown;
}

/** Sends the request once and reads a success's body (a stream's is left to its caller); a failure closes the connection and is answered. */
async function sendOnce(call: Call, idleMs: number, giveUp: AbortController): Promise<Sent | { failure: unknown }> {
	const { context, request, signal } = call;
	call.options.timeout = idleMs;
	// n8n's helper attaches the context's cancel signal to the request it sends: this attempt's is the
	// execution's (not for a clean-up call made because of the cancellation), the caller's `stop`,
	// and its own, fired when the node stops reading the answer, which closes the connection at once.
	// A call that must learn its outcome (a submit whose answer names the job to cancel) finishes its exchange after a cancel.
	const exchange = request.finishOnCancel ? undefined : signal;
	const caller = withCancelSignal(context, anySignal([exchange, request.stop, giveUp.signal])!);
	let response: IN8nHttpFullResponse | undefined;
	try {
		response = (await context.helpers.httpRequestWithAuthentication.call(
			caller,
			call.api.credentialType,
			call.options,
		)) as IN8nHttpFullResponse;
		const answer =
			!request.stream && response.statusCode < 300
				? await readAnswer(response.body, { idleMs, totalMs: call.deadline - Date.now() }, exchange)
				: undefined;
		return { response, answer };
	} catch (failure) {
		abandon(response?.body, giveUp);
		return { failure };
	}
}

/**
 * Waits out an answer that asked to slow down, when the wait fits (true: send again); throws when
 * the wait asked is longer than the request may take, and answers false when none is left to make.
 */
async function waitedAsAsked(call: Call, response: IN8nHttpFullResponse, refusal: number, giveUp: AbortController): Promise<boolean> {
	const { context, request } = call;
	const bounds = { readDeadline: call.deadline - call.limits.idleMs, maxWaitDeadline: request.deadline };
	const plan = slowDownPlan(retryAfterMs((response.headers as IDataObject)['retry-after']), refusal, bounds);
	if (!plan) return false;
	if ('tooLong' in plan) {
		// The body says which limit it was (a v2 429's code): read, within bounds, before the error is built.
		const body = await readErrorBody(
			response.body,
			{ idleMs: call.limits.idleMs, totalMs: Math.max(1, call.deadline - Date.now()) },
			call.signal,
		);
		abandon(response.body, giveUp);
		const typed = typedErrorOf(redactDeep(body, call.secrets), call.host.errors);
		throw serviceWaitTooLongError(context, response.statusCode, plan.tooLong, request, typed);
	}
	abandon(response.body, giveUp);
	await waitAsAsked(context, request, plan.waitMs, { signal: call.signal, pauseEnds: call.pauseEnds });
	return true;
}

/** The answer no retry follows: an error in words for a refusal, a redirect not asked for or a wrong body; else the answer, its secrets blanked. */
async function finalAnswer<T>(call: Call, { response, answer }: Sent, idleMs: number, giveUp: AbortController): Promise<HostResponse<T>> {
	const { context, request, secrets, signal } = call;
	const statusCode = response.statusCode;
	if (statusCode >= 400) {
		const body = await readErrorBody(response.body, { idleMs, totalMs: call.deadline - Date.now() }, signal);
		abandon(response.body, giveUp);
		if (signal?.aborted) throw cancelledError(context, request);
		throw withServiceCode(httpError(context, statusCode, body, call.host.errors, request, secrets), body);
	}
	if (statusCode >= 300 && !request.manualRedirect) {
		abandon(response.body, giveUp);
		throw redirectError(context, statusCode, response.headers as IDataObject, call.options.url, request, secrets);
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
		...(request.stream ? { abandon: () => abandon(response.body, giveUp) } : {}),
	};
}

/**
 * The error names the code of an error envelope (`{error: {code}}`, the v2 API's) in its context as
 * `error_code`: a caller tells `idempotency_key_reuse` from another 422 by it, never by the words.
 */
function withServiceCode(error: NodeApiError, body: unknown): NodeApiError {
	const envelope = isPlainObject(body) ? (body as { error?: unknown }).error : undefined;
	const code = isPlainObject(envelope) ? (envelope as { code?: unknown }).code : undefined;
	if (typeof code === 'string' && /^[a-z_]{1,64}$/.test(code)) error.context.error_code = code;
	return error;
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
