/**
 * What a failed request tells the user: the service's own words from an error body (whatever its
 * shape), the meaning of a status for who answered it, a redirect that is not followed, an answer
 * of the wrong shape, a request that got no answer. The transport (`transport.ts`) builds its
 * errors here; every message is redacted of the request's secrets.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	ILoadOptionsFunctions,
	ITriggerFunctions,
	IWebhookFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { JSON_LIMITS, readJson } from './json-reader';
import { networkFailure } from './network-failure';
import { redact, redactDeep } from './redaction';
import type { ServiceErrorTerms, StatusAdvice } from './service-api';
import { clipText, SERVICE_TEXT_MAX_CHARS } from './service-values';

type ErrorContext = IExecuteFunctions | ILoadOptionsFunctions | IWebhookFunctions | ITriggerFunctions;

/** What the messages say of the request that failed. */
export interface FailedCall {
	method: IHttpRequestMethods;
	/** What the call does ("submitting the workflow"). */
	action?: string;
	itemIndex?: number;
	stream?: boolean;
	/** Its time limit, as sent. */
	timeout?: number;
	statusAdvice?: Partial<Record<number, StatusAdvice>>;
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
	if (typeof body === 'object') return 'an object of an unexpected kind';
	return `a ${typeof body} (${String(body).slice(0, 40)})`;
}

export function unexpectedAnswer(context: ErrorContext, statusCode: number, body: unknown, request: FailedCall): NodeApiError {
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

/** An answer over a bound of the JSON reader (too large, too deep): refused, nothing read from it. */
export function overBoundAnswer(context: ErrorContext, problem: string, request: FailedCall): NodeApiError {
	const message = `The service's answer${request.action ? ` while ${request.action}` : ''} ${problem}; nothing was read from it`;
	return new NodeApiError(context.getNode(), { message } as JsonObject, {
		message,
		description: `No answer the API describes comes this large or this deep: a fault on the service side, or a proxy in between.${
			request.method === 'GET' ? '' : ' The request may have been carried out anyway: check before sending it again.'
		}`,
		itemIndex: request.itemIndex,
	});
}

/**
 * The service's own words from an error body, whatever its shape: cloud `{error:{type,message}}`,
 * registry and image `{error, message}`, video `{message, details}`, or plain text; with the lines
 * the service's `detailLines` read from it (a refused workflow's nodes).
 */
export function serviceMessage(body: unknown, detailLines?: ServiceErrorTerms['detailLines']): string | undefined {
	if (body === undefined || body === null || body === '') return undefined;
	if (Buffer.isBuffer(body)) return serviceMessage(body.toString('utf8'), detailLines);
	if (typeof body === 'string') {
		const reading = readJson(body, JSON_LIMITS.message);
		return ('value' in reading ? serviceMessage(reading.value, detailLines) : undefined) ?? clipText(body, 500);
	}
	if (typeof body !== 'object') return String(body);
	const record = body as Record<string, unknown>;
	// E.g. a refused workflow: the headline ("Prompt outputs failed validation"), then each refused node in the user's terms.
	const lines = detailLines?.(record) ?? [];
	const parts: string[] = [];
	const error = record.error;
	if (error && typeof error === 'object') {
		const nested = error as Record<string, unknown>;
		// Words only: a message or type of another kind would print as "[object Object]".
		if (typeof nested.message === 'string' && nested.message) parts.push(nested.message);
		else if (typeof nested.type === 'string' && nested.type) parts.push(nested.type);
		// The headline's details repeat the node errors in the server's terms; the detail lines say them better.
		const details = lines.length ? '' : typeof nested.details === 'string' ? nested.details : '';
		// The cloud repeats the message in details when there is nothing more to say, or puts it first in a longer list.
		if (details && parts.length === 1 && details.includes(parts[0]!)) parts[0] = details;
		else if (details && !parts.some((part) => part.includes(details))) parts.push(details);
	} else if (typeof record.message === 'string') {
		parts.push(record.message);
		if (typeof record.details === 'string' && record.details !== record.message) parts.push(record.details);
	} else if (typeof error === 'string') {
		parts.push(error);
	}
	if (parts.length === 0 && typeof record.detail === 'string') parts.push(record.detail);
	if (lines.length) parts.push(lines.join('; '));
	// "does not exist.: Node ID '#1'" reads as a typo: a sentence's full stop goes where a part follows.
	const said = parts.map((part, i) => (i < parts.length - 1 ? part.replace(/\.$/, '') : part)).join(': ');
	// Room for every detail line (each refused node of a workflow), never a flood.
	return parts.length ? clipText(said, 4 * SERVICE_TEXT_MAX_CHARS) : undefined;
}

/** What each status means for this service: its own meaning where it has one, else the general one. */
function statusAdvice(statusCode: number, terms: ServiceErrorTerms): StatusAdvice {
	const special = terms.statusAdvice?.[statusCode];
	if (special) return special;
	const key = terms.keyName;
	switch (statusCode) {
		case 400:
			return {
				headline: `${terms.answeredBy} rejected the request as invalid`,
				hint: 'Check the fields named in the message.',
			};
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
			return { headline: 'Too many requests', hint: 'Wait a moment and run again.' };
		default:
			return statusCode >= 500
				? { headline: 'The service had an internal error', hint: 'Try again later.' }
				: { headline: `The service answered HTTP ${statusCode}`, hint: '' };
	}
}

/** The context field of an error (and the failed item's json field) that holds the code a service typed it with. */
export const ERROR_CODE_FIELD = 'error_code';

/** The longest code read as one: the contract's codes are short words (`insufficient_credits`). */
const ERROR_CODE_MAX_CHARS = 64;

/** What an error body says, read once: the code the service typed it with (a short word, else none), its words, and what the code means. */
export interface TypedError {
	code?: string;
	said?: string;
	advice?: StatusAdvice;
}

/** Reads an error body (already redacted of the request's secrets) in the service's terms. */
export function typedErrorOf(body: unknown, terms: ServiceErrorTerms): TypedError {
	const said = serviceMessage(body, terms.detailLines);
	const record = errorRecord(body);
	const code = record && terms.errorCode?.(record);
	if (typeof code !== 'string' || code.length > ERROR_CODE_MAX_CHARS || !/^[A-Za-z][\w.-]*$/.test(code)) return { said };
	return { code, said, advice: terms.codeAdvice?.[code] };
}

function errorRecord(body: unknown): Record<string, unknown> | undefined {
	if (Buffer.isBuffer(body)) return errorRecord(body.toString('utf8'));
	if (typeof body === 'string') {
		const reading = readJson(body, JSON_LIMITS.message);
		return 'value' in reading ? errorRecord(reading.value) : undefined;
	}
	return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
}

export function httpError(
	context: ErrorContext,
	statusCode: number,
	body: unknown,
	terms: ServiceErrorTerms,
	request: FailedCall,
	secrets: string[],
): NodeApiError {
	// The body is redacted before serviceMessage clips a long text: a clip could cut a secret in two.
	const { code, said, advice } = typedErrorOf(redactDeep(Buffer.isBuffer(body) ? body.toString('utf8') : body, secrets), terms);
	const { headline, hint } = request.statusAdvice?.[statusCode] ?? advice ?? statusAdvice(statusCode, terms);
	const while_ = request.action ? ` while ${request.action}` : '';
	const message = redact(`${headline}${while_} (HTTP ${statusCode}${code ? ` ${code}` : ''})${said ? `: ${said}` : ''}`, secrets);
	const apiError = new NodeApiError(context.getNode(), { statusCode, message } as JsonObject, {
		message,
		description: hint || undefined,
		httpCode: String(statusCode),
		itemIndex: request.itemIndex,
	});
	if (code) apiError.context[ERROR_CODE_FIELD] = code;
	return apiError;
}

/** A redirect the node did not follow: says where it pointed (the address only, never a path or query that could hold a token). */
export function redirectError(
	context: ErrorContext,
	statusCode: number,
	headers: IDataObject,
	url: string,
	request: FailedCall,
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
export function secretLocationError(context: ErrorContext, statusCode: number, request: FailedCall): NodeApiError {
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

/**
 * A request that got no answer, in words: a raw code in the message would make n8n replace all of it.
 * Its context says whether the request may have reached the service (`mayHaveArrived`) and what
 * happened without the advice (`failure`), for a caller that can find out what became of it (a
 * lost submit is looked for by its request id).
 */
export function networkError(context: ErrorContext, error: unknown, request: FailedCall, secrets: string[]): NodeApiError {
	const while_ = request.action ? ` while ${request.action}` : '';
	const { reason, timedOut, mayHaveArrived } = networkFailure(error, 'the service', request.timeout);
	const hint = !mayHaveArrived
		? 'Check the URL in the credential and your network.'
		: request.method !== 'GET'
			? 'The service may have carried it out all the same (a job or task may exist now): check before sending it again.'
			: timedOut
				? 'The service may be busy: try again later.'
				: 'Check the URL in the credential and your network.';
	const failure = redact(`${reason.charAt(0).toUpperCase()}${reason.slice(1)}${while_}`, secrets);
	const message = `${failure}. ${redact(hint, secrets)}`;
	const apiError = new NodeApiError(context.getNode(), { message } as JsonObject, { message, itemIndex: request.itemIndex });
	Object.assign(apiError.context, { mayHaveArrived, failure });
	return apiError;
}
