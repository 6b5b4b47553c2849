/**
 * Redaction: the one place that keeps secrets out of what the service sends back. Everything that
 * comes from the service (REST answers and headers, WebSocket messages, streamed events,
 * notifications) passes through `redact`/`redactDeep` before it reaches an item, a message or a
 * log line, and an address the service hands over that holds a secret is refused, never fetched.
 *
 * A service may echo a secret in another spelling than it was sent in, so secrets are matched on
 * normalised text: each character of a secret matches itself or any escape of its bytes
 * (percent-encoding in either case, percent-encoding applied again, a form's `+` for a space, JSON's
 * `\uXXXX` and `\/`), in any mix and any letter case, and so do the Base64 spellings of the secret (standard and
 * URL-safe, at any of the three byte alignments inside a longer text). Redaction and the refusal of
 * addresses use the same matcher, so what one finds the other finds.
 */
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	ILoadOptionsFunctions,
	ITriggerFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

import { isPlainObject } from '../items/validation';
import type { ServiceApi } from './service-api';

export const REDACTED = '***';

/** Shorter secrets (and shorter Base64 cores) would blank out ordinary words. */
const MIN_SECRET_LENGTH = 4;
const MIN_BASE64_CORE = 8;

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

/** The secret and its Base64 cores: the texts whose every spelling is looked for, longest first. */
export function secretForms(secret: string): string[] {
	return [...new Set([secret, ...base64Cores(secret)])]
		.filter((form) => form.length >= MIN_SECRET_LENGTH)
		.sort((a, b) => b.length - a.length);
}

/** A hex digit in either case: `a` → `[aA]`. */
const hexDigit = (digit: string): string => (/[a-f]/i.test(digit) ? `[${digit.toLowerCase()}${digit.toUpperCase()}]` : digit);
const hexPattern = (value: number, width: number): string => [...value.toString(16).padStart(width, '0')].map(hexDigit).join('');
const escapeForPattern = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/** Every spelling of one character: itself, its bytes percent-encoded (once or more), its JSON escapes. */
function characterPattern(character: string): string {
	const spellings = new Set([escapeForPattern(character)]);
	spellings.add([...Buffer.from(character, 'utf8')].map((byte) => `%(?:25)*${hexPattern(byte, 2)}`).join(''));
	const units = [...Array(character.length).keys()].map((index) => character.charCodeAt(index));
	spellings.add(units.map((unit) => `\\\\u${hexPattern(unit, 4)}`).join(''));
	if (character === ' ') spellings.add('\\+');
	if (character === '/' || character === '"' || character === '\\') spellings.add(`\\\\${escapeForPattern(character)}`);
	return `(?:${[...spellings].join('|')})`;
}

const matcherCache = new Map<string, RegExp>();
const plainMatcherCache = new Map<string, RegExp>();

/**
 * Every spelling other than a character itself holds `%`, `\` or `+`: in a text without them only
 * the secret's own characters (in any letter case) can match, which a far smaller expression finds
 * at the same places. Building and compiling the whole one costs milliseconds per secret, and a
 * resumed execution brings a new secret (its URL's signature).
 */
const ESCAPE_CHARACTERS = /[%\\+]/;

/** One expression that finds `secret` in any of its spellings in `text` (global: use `lastIndex = 0` before a test). */
function secretMatcher(secret: string, text: string): RegExp {
	const plain = !ESCAPE_CHARACTERS.test(text);
	const cache = plain ? plainMatcherCache : matcherCache;
	const cached = cache.get(secret);
	if (cached) return cached;
	const spell = plain ? escapeForPattern : characterPattern;
	const forms = secretForms(secret).map((form) => [...form].map(spell).join(''));
	// In any letter case too: a service that lowers what it quotes (or a host name, which URLs
	// write in lower case) still shows most of the secret.
	const matcher = new RegExp(forms.join('|'), 'gi');
	// A run handles a few secrets; the cache only spares rebuilding them for every string.
	if (cache.size > 256) cache.clear();
	cache.set(secret, matcher);
	return matcher;
}

const usable = (secrets: readonly string[]) => secrets.filter((secret) => secret && secret.length >= MIN_SECRET_LENGTH);

/** Replaces every spelling of every secret in `text` with `***`. */
export function redact(text: string, secrets: readonly string[]): string {
	let out = text;
	for (const secret of usable(secrets)) out = out.replace(secretMatcher(secret, out), REDACTED);
	return out;
}

/** True when `text` holds any spelling of a secret (an address that must not be used). */
export function containsSecret(text: string, secrets: readonly string[]): boolean {
	return usable(secrets).some((secret) => {
		const matcher = secretMatcher(secret, text);
		matcher.lastIndex = 0;
		return matcher.test(text);
	});
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
		// Built as own properties: assigning a key `__proto__` would replace the copy's prototype instead.
		return Object.fromEntries(
			Object.entries(value).map(([key, entry]) => [redact(key, secrets), redactValue(entry, secrets)]),
		) as IDataObject;
	}
	return value;
}

type SecretsContext = IExecuteFunctions | ILoadOptionsFunctions | IWebhookFunctions | ITriggerFunctions;

/**
 * The secrets to keep out of everything the service sends back: the credential's, and in a
 * webhook (a resumed execution) the signature of the resume URL the request came to.
 */
export async function credentialSecrets(context: SecretsContext, api: ServiceApi, itemIndex = 0): Promise<string[]> {
	return secretsOfCredential(context, api, await context.getCredentials(api.credentialType, itemIndex));
}

/** `credentialSecrets` of a credential the caller has already read. */
export function secretsOfCredential(context: SecretsContext, api: ServiceApi, credentials: ICredentialDataDecryptedObject): string[] {
	const secrets = [...api.secretsOf(credentials)];
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
