/**
 * The one HTTP transport of the package. Every call to the service goes through `hostRequest`,
 * which applies the credential with n8n's `httpRequestWithAuthentication` (proxy settings and the
 * execution's abort signal included), maps HTTP failures to messages a no-code user can act on,
 * redacts secrets from anything the service echoes back, and retries only what is safe to retry.
 * Each node's endpoints are typed functions over it in `nodes/<Node>/transport/`.
 *
 * Signed storage URLs (output and result files, the archive upload) do not go through here: they
 * carry their own signature, and the credentialed call would send the API key or token to the
 * storage host. `binary.ts` and the registry's archive upload fetch them with no credential.
 */
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
	IWebhookFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { addressProblem, cloudServerOf, type CloudServer } from '../../credentials/cloud-server';
import { networkFailure } from './network-failure';
import { containsSecret, redact, redactDeep, secretsOfCredential } from './redaction';
import { pauseBeforeRetry, RETRY_DELAYS_MS } from './retry';
import { isPlainObject } from './validation';
import { discardBody } from './streams';

export type HostCredentialType = 'hostCloudApi' | 'hostApi';

export type HostContext = IExecuteFunctions | ILoadOptionsFunctions | IWebhookFunctions;

export interface HostRequest {
	method: IHttpRequestMethods;
	/** Path below the credential's base URL (cloud) or registry URL (registry and media). */
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
	/** Retry 5xx answers and network errors with back-off. Only for calls that are safe to repeat. */
	retry?: boolean;
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
}

/**
 * The server a Host Cloud API credential points at (the cloud or a self-hosted one). A credential
 * that cannot be used (a proxy header that cannot be sent, an address that is not one) is refused
 * here, before anything is sent.
 */
export async function hostCloudServer(context: HostContext, itemIndex = 0): Promise<CloudServer> {
	return usableServer(context, await context.getCredentials('hostCloudApi', itemIndex), itemIndex);
}

function usableServer(context: HostContext, credentials: ICredentialDataDecryptedObject, itemIndex: number): CloudServer {
	const server = cloudServerOf(credentials);
	if (server.problems.length > 0) {
		throw new NodeOperationError(context.getNode(), `The Host Cloud API credential cannot be used: ${server.problems.join('; ')}`, {
			itemIndex,
			description: 'Open the credential and correct it.',
		});
	}
	return server;
}

/** Who answers a request, for what its statuses mean: the cloud, a self-hosted server, or the registry and media host. */
type Answerer = 'cloud' | 'selfHosted' | 'registry';

/** The credential's host (base URL without a trailing slash), who answers there, and the secrets to keep out; read once a request. */
async function hostOf(
	context: HostContext,
	credentialType: HostCredentialType,
	itemIndex: number,
): Promise<{ baseUrl: string; answerer: Answerer; secrets: string[] }> {
	const credentials = await context.getCredentials(credentialType, itemIndex);
	const secrets = secretsOfCredential(context, credentialType, credentials);
	if (credentialType === 'hostCloudApi') {
		const server = usableServer(context, credentials, itemIndex);
		return { baseUrl: server.baseUrl, answerer: server.kind, secrets };
	}
	const registryUrl = String(credentials.registryUrl ?? '')
		.trim()
		.replace(/\/+$/, '');
	const problem = addressProblem('Registry URL', registryUrl);
	if (problem)
		throw new NodeOperationError(context.getNode(), `The Host API credential cannot be used: ${problem}`, {
			itemIndex,
			description: 'Open the credential and enter the address of your Host API.',
		});
	return { baseUrl: registryUrl, answerer: 'registry', secrets };
}

/**
 * The time limit of a request that sets none: no call waits for ever on a service that never
 * answers (the limit is on silence: a large answer that keeps coming is not cut). Streams set
 * their own. Tests shorten it; the nodes never change it.
 */
export const REQUEST_TIME_LIMIT = { ms: 120_000 };

/** Sends a request and answers the parsed body, or throws a NodeApiError a user can act on. */
export async function hostRequest<T = unknown>(context: HostContext, credentialType: HostCredentialType, request: HostRequest): Promise<T> {
	return (await hostRequestFull<T>(context, credentialType, request)).body;
}

/** Like hostRequest, with the status and headers (redirects, streams). */
export async function hostRequestFull<T = unknown>(
	context: HostContext,
	credentialType: HostCredentialType,
	request: HostRequest,
): Promise<HostResponse<T>> {
	const itemIndex = request.itemIndex ?? 0;
	const host = await hostOf(context, credentialType, itemIndex);
	const { baseUrl, answerer } = host;
	const secrets = [...host.secrets, ...(request.secrets ?? [])];
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
		encoding: request.stream ? 'stream' : undefined,
		timeout: request.timeout ?? (request.stream ? undefined : REQUEST_TIME_LIMIT.ms),
	};
	const signal = !request.ignoreCancel && 'getExecutionCancelSignal' in context ? context.getExecutionCancelSignal() : undefined;
	// n8n's helper attaches the execution's cancel signal to every request it sends for a context
	// that has one; a clean-up call after cancelling goes out through a view of the context without it.
	const caller = request.ignoreCancel ? withoutCancelSignal(context) : request.stop ? withStopSignal(context, request.stop) : context;
	const attempts = request.retry ? RETRY_DELAYS_MS.length + 1 : 1;
	for (let attempt = 1; ; attempt++) {
		let response: IN8nHttpFullResponse;
		try {
			response = (await context.helpers.httpRequestWithAuthentication.call(caller, credentialType, options)) as IN8nHttpFullResponse;
		} catch (error) {
			if (signal?.aborted) {
				throw new NodeApiError(context.getNode(), { message: 'The execution was cancelled' } as JsonObject, {
					message: `The execution was cancelled${request.action ? ` while ${request.action}` : ''}`,
					itemIndex: request.itemIndex,
				});
			}
			if (attempt < attempts) {
				await pauseBeforeRetry(attempt, signal);
				continue;
			}
			throw networkError(context, error, request, secrets);
		}
		const statusCode = response.statusCode;
		if (statusCode >= 500 && attempt < attempts) {
			discardBody(response.body);
			await pauseBeforeRetry(attempt, signal);
			continue;
		}
		if (statusCode >= 400) {
			const body = request.stream ? await readSmallStream(response.body) : response.body;
			throw httpError(context, statusCode, body, answerer, request, secrets);
		}
		if (statusCode >= 300 && !request.manualRedirect) {
			discardBody(response.body);
			throw redirectError(context, statusCode, response.headers as IDataObject, options.url, request, secrets);
		}
		const headers = response.headers as HostResponse<T>['headers'];
		if (statusCode >= 300 && containsSecret(String(headers.location ?? ''), secrets)) {
			discardBody(response.body);
			throw secretLocationError(context, statusCode, request);
		}
		const body = request.stream ? response.body : redactDeep(response.body, secrets);
		if (request.answer === 'object' && statusCode < 300 && !isPlainObject(body)) throw unexpectedAnswer(context, statusCode, body, request);
		return { statusCode, headers: redactDeep(headers, secrets), body: body as T };
	}
}

/** What an answer that is not a JSON object is, in words: "an HTML page", "an empty answer", "a list"… */
export function describeAnswer(body: unknown): string {
	if (Buffer.isBuffer(body)) return describeAnswer(body.toString('utf8'));
	if (body === undefined || (typeof body === 'string' && body.trim() === '')) return 'an empty answer';
	if (body === null) return 'null';
	if (Array.isArray(body)) return 'a list';
	if (typeof body === 'string') {
		const text = body.trim();
		if (/^<(!doctype|html|head|body)\b/i.test(text) || /<\/html>/i.test(text)) return 'an HTML page';
		if (/^[[{]/.test(text)) return 'JSON that is cut off or malformed';
		return 'text that is not JSON';
	}
	return `a ${typeof body} (${String(body).slice(0, 40)})`;
}

function unexpectedAnswer(context: HostContext, statusCode: number, body: unknown, request: HostRequest): NodeApiError {
	const what = describeAnswer(body);
	const message = `The service answered with ${what} instead of the JSON object the API describes${request.action ? ` while ${request.action}` : ''} (HTTP ${statusCode})`;
	return new NodeApiError(context.getNode(), { message } as JsonObject, {
		message,
		description: `Nothing was read from this answer. A proxy, a captive portal or a service fault may answer this way: check the address in the credential.${
			request.method === 'GET' ? ' Then try again.' : ' The request may have been carried out anyway: check before sending it again.'
		}`,
		httpCode: String(statusCode),
		itemIndex: request.itemIndex,
	});
}

function withoutCancelSignal(context: HostContext): HostContext {
	return new Proxy(context, { has: (target, key) => key !== 'getExecutionCancelSignal' && Reflect.has(target, key) });
}

/** A view of the context whose cancel signal also fires on `stop` (n8n's helper attaches it to the request). */
function withStopSignal(context: HostContext, stop: AbortSignal): HostContext {
	const execution = 'getExecutionCancelSignal' in context ? context.getExecutionCancelSignal() : undefined;
	const signal = execution ? AbortSignal.any([execution, stop]) : stop;
	return new Proxy(context, {
		get: (target, key, receiver) => (key === 'getExecutionCancelSignal' ? () => signal : Reflect.get(target, key, receiver)),
	});
}

async function readSmallStream(body: unknown): Promise<unknown> {
	const stream = body as AsyncIterable<Buffer> | undefined;
	if (!stream || typeof (stream as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] !== 'function') return body;
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of stream) {
		chunks.push(chunk);
		size += chunk.length;
		if (size > 64 * 1024) break;
	}
	const text = Buffer.concat(chunks).toString('utf8');
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return text;
	}
}

/**
 * The service's own words from an error body, whatever its shape: cloud `{error:{type,message}}`,
 * registry and image `{error, message}`, video `{message, details}`, or plain text.
 */
export function serviceMessage(body: unknown): string | undefined {
	if (body === undefined || body === null || body === '') return undefined;
	if (Buffer.isBuffer(body)) return serviceMessage(body.toString('utf8'));
	if (typeof body === 'string') {
		try {
			return serviceMessage(JSON.parse(body) as unknown) ?? body.slice(0, 500);
		} catch {
			return body.slice(0, 500);
		}
	}
	if (typeof body !== 'object') return String(body);
	const record = body as Record<string, unknown>;
	const parts: string[] = [];
	const error = record.error;
	if (error && typeof error === 'object') {
		const nested = error as Record<string, unknown>;
		if (nested.message) parts.push(String(nested.message));
		else if (nested.type) parts.push(String(nested.type));
		// The cloud repeats the message in details when there is nothing more to say, or puts it first in a longer list.
		const details = typeof nested.details === 'string' ? nested.details : '';
		if (details && parts.length === 1 && details.includes(parts[0]!)) parts[0] = details;
		else if (details && !parts.some((part) => part.includes(details))) parts.push(details);
	} else if (typeof record.message === 'string') {
		parts.push(record.message);
		if (typeof record.details === 'string' && record.details !== record.message) parts.push(record.details);
	} else if (typeof error === 'string') {
		parts.push(error);
	}
	if (parts.length === 0 && typeof record.detail === 'string') parts.push(record.detail);
	// A rejected cloud workflow lists what is wrong per node; keep what the headline does not say yet.
	const said = parts.join(': ');
	const nodeProblems = nodeErrorLines(record.node_errors).filter((line) => !said.includes(line));
	if (nodeProblems.length) parts.push(`${parts.length ? 'also ' : ''}${nodeProblems.join('; ')}`);
	return parts.length ? parts.join(': ') : undefined;
}

/** `node_errors` of a rejected cloud workflow: `{nodeId: {class_type, errors: [{message, details}]}}`, one line per error. */
function nodeErrorLines(nodeErrors: unknown): string[] {
	if (!nodeErrors || typeof nodeErrors !== 'object' || Array.isArray(nodeErrors)) return [];
	const lines: string[] = [];
	for (const [nodeId, entry] of Object.entries(nodeErrors as Record<string, unknown>)) {
		const node = (entry ?? {}) as { class_type?: unknown; errors?: unknown };
		const errors = Array.isArray(node.errors) ? (node.errors as Array<Record<string, unknown>>) : [];
		for (const error of errors) {
			const text = typeof error?.message === 'string' ? error.message : typeof error?.details === 'string' ? error.details : '';
			if (!text) continue;
			const line = text.replace(/\.$/, '');
			const classType = typeof node.class_type === 'string' ? ` (${node.class_type})` : '';
			lines.push(line.includes(`Node ${nodeId}`) ? line : `Node ${nodeId}${classType}: ${line}`);
		}
	}
	return lines;
}

/** What each status means for this service: a headline, and what the user can do about it. */
function statusAdvice(statusCode: number, answerer: Answerer): { headline: string; hint: string } {
	const key = answerer === 'registry' ? 'access token' : 'API key';
	if (answerer === 'selfHosted' && (statusCode === 401 || statusCode === 403)) {
		// The server itself has no key: a reverse proxy in front of it refused the request.
		return {
			headline: 'Your server (or the reverse proxy in front of it) refused the request',
			hint: 'Check the Proxy Headers in the Host Cloud API credential: the proxy wants a header or basic credentials it did not get.',
		};
	}
	switch (statusCode) {
		case 400:
			return { headline: 'The service rejected the request as invalid', hint: 'Check the fields named in the message.' };
		case 401:
			return { headline: `The ${key} was rejected`, hint: `Check the ${key} in the credential.` };
		case 402:
			return { headline: 'Insufficient credits', hint: 'Top up the account balance, then run again.' };
		case 403:
			return {
				headline: `The ${key} is not allowed to do this`,
				hint: 'Check that the credential belongs to the right account or publisher.',
			};
		case 404:
			return { headline: 'Not found', hint: 'Check the ids and the URL in the credential.' };
		case 409:
			return { headline: 'Conflict with the current state', hint: 'The thing you are creating may already exist.' };
		case 413:
			return { headline: 'The file is too large for the service', hint: 'Use a smaller file.' };
		case 429:
			return answerer === 'cloud'
				? {
						headline: 'The subscription is not active',
						hint: 'Running workflows needs an active subscription. This is not a rate limit, so the node does not retry.',
					}
				: { headline: 'Too many requests', hint: 'Wait a moment and run again.' };
		default:
			return statusCode >= 500
				? { headline: 'The service had an internal error', hint: 'Try again later.' }
				: { headline: `The service answered HTTP ${statusCode}`, hint: '' };
	}
}

function httpError(
	context: HostContext,
	statusCode: number,
	body: unknown,
	answerer: Answerer,
	request: HostRequest,
	secrets: string[],
): NodeApiError {
	// The body is redacted before serviceMessage clips a long text: a clip could cut a secret in two.
	const said = serviceMessage(redactDeep(Buffer.isBuffer(body) ? body.toString('utf8') : body, secrets));
	const { headline, hint } = request.statusAdvice?.[statusCode] ?? statusAdvice(statusCode, answerer);
	const while_ = request.action ? ` while ${request.action}` : '';
	const message = redact(`${headline}${while_} (HTTP ${statusCode})${said ? `: ${said}` : ''}`, secrets);
	return new NodeApiError(context.getNode(), { statusCode, message } as JsonObject, {
		message,
		description: hint || undefined,
		httpCode: String(statusCode),
		itemIndex: request.itemIndex,
	});
}

/** A redirect the node did not follow: says where it pointed (the address only, never a path or query that could hold a token). */
function redirectError(
	context: HostContext,
	statusCode: number,
	headers: IDataObject,
	url: string,
	request: HostRequest,
	secrets: string[],
): NodeApiError {
	let target = 'another address';
	try {
		const location = new URL(String(headers.location ?? ''), url);
		target = location.origin === new URL(url).origin ? 'another path on the same host' : location.origin;
	} catch {
		// No usable Location: the message stays general.
	}
	const while_ = request.action ? ` while ${request.action}` : '';
	const message = redact(
		`The service answered with a redirect (HTTP ${statusCode}) to ${target}${while_}; the node does not follow it, so the credential is never sent elsewhere`,
		secrets,
	);
	return new NodeApiError(context.getNode(), { statusCode, message } as JsonObject, {
		message,
		description:
			'Check the URL in the credential: use the address the service answers on directly (for example https:// rather than http://, with no extra path).',
		httpCode: String(statusCode),
		itemIndex: request.itemIndex,
	});
}

/** A redirect the node reads (a signed file address) that carries one of the credential's secrets. */
function secretLocationError(context: HostContext, statusCode: number, request: HostRequest): NodeApiError {
	const while_ = request.action ? ` while ${request.action}` : '';
	const message = `The service answered with a redirect (HTTP ${statusCode})${while_} whose address contains a secret of the credential; it was not used, and nothing was fetched`;
	return new NodeApiError(context.getNode(), { statusCode, message } as JsonObject, {
		message,
		description:
			'A file address must never carry your API key or token: it would reach the storage host and the output. This is a fault on the service side (or a proxy in between); report it to the service.',
		httpCode: String(statusCode),
		itemIndex: request.itemIndex,
	});
}

/** A request that got no answer, in words: a raw code in the message would make n8n replace all of it. */
function networkError(context: HostContext, error: unknown, request: HostRequest, secrets: string[]): NodeApiError {
	const while_ = request.action ? ` while ${request.action}` : '';
	const { words, timedOut } = networkFailure(error, 'the service', request.timeout ?? (request.stream ? undefined : REQUEST_TIME_LIMIT.ms));
	const hint = !timedOut
		? 'Check the URL in the credential and your network.'
		: request.method === 'GET'
			? 'The service may be busy: try again later.'
			: 'The service may have carried it out all the same (a job or task may exist now): check before sending it again.';
	const message = redact(`${words.charAt(0).toUpperCase()}${words.slice(1)}${while_}. ${hint}`, secrets);
	return new NodeApiError(context.getNode(), { message } as JsonObject, { message, itemIndex: request.itemIndex });
}
