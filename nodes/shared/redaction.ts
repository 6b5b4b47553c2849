/**
 * Redaction: the one place that keeps secrets out of what the service sends back. Everything that
 * comes from the service (REST answers and headers, WebSocket messages, streamed events,
 * notifications) passes through `redact`/`redactDeep` before it reaches an item, a message or a
 * log line, and an address the service hands over that holds a secret is refused, never fetched.
 *
 * A service may echo a secret in another encoding than it was sent in, so each secret is matched
 * in the forms it usually takes: as is, URL-encoded (both escapes and form style), JSON-escaped,
 * and Base64 (standard and URL-safe, at any of the three byte alignments inside a longer text).
 */
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	ILoadOptionsFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

import { cloudServerOf } from '../../credentials/cloud-server';
import { isPlainObject } from './validation';

export const REDACTED = '***';

/** Shorter secrets (and shorter Base64 cores) would blank out ordinary words. */
const MIN_SECRET_LENGTH = 4;
const MIN_BASE64_CORE = 8;

const formsCache = new Map<string, string[]>();

/**
 * The Base64 text that encodes `secret` wherever it sits in a longer Base64 string: for each of
 * the three byte offsets, the characters determined by the secret's bytes alone.
 */
function base64Cores(secret: string): string[] {
	const bytes = Buffer.from(secret, 'utf8');
	const cores: string[] = [];
	for (let shift = 0; shift < 3; shift++) {
		const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64');
		const core = encoded.slice(Math.ceil((shift * 8) / 6), Math.floor(((shift + bytes.length) * 8) / 6));
		if (core.length >= MIN_BASE64_CORE) cores.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
	}
	return cores;
}

/** Every form of `secret` to look for, longest first so a longer form is never cut by a shorter one. */
export function secretForms(secret: string): string[] {
	const cached = formsCache.get(secret);
	if (cached) return cached;
	const uri = encodeURIComponent(secret);
	const json = JSON.stringify(secret).slice(1, -1);
	const forms = new Set([
		secret,
		uri,
		uri.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()),
		new URLSearchParams({ s: secret }).toString().slice(2),
		json,
		json.replace(/\//g, '\\/'),
		...base64Cores(secret),
	]);
	const sorted = [...forms].filter((form) => form.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
	// A run handles a few secrets; the cache only spares recomputing them for every string.
	if (formsCache.size > 256) formsCache.clear();
	formsCache.set(secret, sorted);
	return sorted;
}

const usable = (secrets: readonly string[]) => secrets.filter((secret) => secret && secret.length >= MIN_SECRET_LENGTH);

/** Replaces every form of every secret in `text` with `***`. */
export function redact(text: string, secrets: readonly string[]): string {
	let out = text;
	for (const secret of usable(secrets)) {
		for (const form of secretForms(secret)) if (out.includes(form)) out = out.split(form).join(REDACTED);
	}
	return out;
}

/** True when `text` holds any form of a secret (an address that must not be used). */
export function containsSecret(text: string, secrets: readonly string[]): boolean {
	return usable(secrets).some((secret) => secretForms(secret).some((form) => text.includes(form)));
}

/** `redact` through every string (and object key) of a parsed value; other values are kept. */
export function redactDeep<T>(value: T, secrets: readonly string[]): T {
	if (usable(secrets).length === 0) return value;
	return redactValue(value, secrets) as T;
}

function redactValue(value: unknown, secrets: readonly string[]): unknown {
	if (typeof value === 'string') return redact(value, secrets);
	if (Array.isArray(value)) return value.map((entry) => redactValue(entry, secrets));
	// Plain objects only: Buffers and other class instances (binary data) are not text.
	if (isPlainObject(value)) {
		const out: IDataObject = {};
		for (const [key, entry] of Object.entries(value)) out[redact(key, secrets)] = redactValue(entry, secrets) as IDataObject[string];
		return out;
	}
	return value;
}

type SecretsContext = IExecuteFunctions | ILoadOptionsFunctions | IWebhookFunctions;

/**
 * The secrets to keep out of everything the service sends back: the credential's, and in a
 * webhook (a resumed execution) the signature of the resume URL the request came to.
 */
export async function credentialSecrets(
	context: SecretsContext,
	credentialType: 'hostCloudApi' | 'hostApi',
	itemIndex = 0,
): Promise<string[]> {
	return secretsOfCredential(context, credentialType, await context.getCredentials(credentialType, itemIndex));
}

/** `credentialSecrets` of a credential the caller has already read. */
export function secretsOfCredential(
	context: SecretsContext,
	credentialType: 'hostCloudApi' | 'hostApi',
	credentials: ICredentialDataDecryptedObject,
): string[] {
	const secrets =
		credentialType === 'hostCloudApi'
			? cloudServerOf(credentials).secrets
			: ['accessToken', 'publishingToken', 'repohostToken'].map((name) => String(credentials[name] ?? ''));
	if ('getRequestObject' in context) {
		const signature = context.getRequestObject().query?.signature;
		if (typeof signature === 'string') secrets.push(signature);
	}
	return secrets.filter((value) => value.length >= 4);
}

/**
 * The secrets of an n8n resume URL (Host Media's "Wait for Notification"): the URL itself and its
 * `signature`, which alone lets anyone resume the execution.
 */
export function resumeUrlSecrets(resumeUrl: string): string[] {
	const secrets = [resumeUrl];
	try {
		const signature = new URL(resumeUrl).searchParams.get('signature');
		if (signature) secrets.push(signature);
	} catch {
		// Not a URL: the text itself is still kept out.
	}
	return secrets;
}
