/**
 * What a Host Cloud API credential points at: the cloud (an API key sent as X-API-Key), or a
 * self-hosted ComfyUI-compatible server (no key of its own; a reverse proxy in front of it may
 * want headers). Read here once, for the credential's `authenticate` and test, the transport, the
 * progress socket and redaction, so they cannot disagree.
 */
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

export type ServerKind = 'cloud' | 'selfHosted';

/** Where a job runs, as messages say it. */
export const placeOf = (kind: ServerKind): string => (kind === 'selfHosted' ? 'your server' : 'the cloud');

export interface CloudServer {
	kind: ServerKind;
	/** Base URL without a trailing slash (and without /api). */
	baseUrl: string;
	/** The progress WebSocket's base (explicit, or derived from the base URL). */
	wsBaseUrl: string;
	/** The platform key partner nodes are billed through ('' when none is configured). */
	partnerKey: string;
	/** Headers every request to this server carries (the API key, or the reverse proxy's). */
	headers: Record<string, string>;
	/** Values that must never be shown: the key and every proxy header value. */
	secrets: string[];
	/** Proxy headers that cannot be sent, in words ("header 2 has no name"). */
	problems: string[];
}

/** A header name as HTTP allows it (a token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Headers the node sets itself; a proxy header may not replace them. */
const RESERVED_HEADERS = new Set(['host', 'content-length', 'content-type', 'connection', 'upgrade', 'transfer-encoding']);

function proxyHeaders(credentials: ICredentialDataDecryptedObject): { headers: Record<string, string>; problems: string[] } {
	const collection = credentials.proxyHeaders as { values?: Array<{ name?: unknown; value?: unknown }> } | undefined;
	const headers: Record<string, string> = {};
	const problems: string[] = [];
	for (const [index, entry] of (Array.isArray(collection?.values) ? collection.values : []).entries()) {
		const name = String(entry?.name ?? '').trim();
		const value = String(entry?.value ?? '');
		if (name === '' && value === '') continue;
		const which = `Proxy header ${index + 1}${name ? ` ("${name}")` : ''}`;
		if (!HEADER_NAME.test(name))
			problems.push(`${which} ${name ? 'has a name HTTP does not allow (letters, digits and - only)' : 'has no name'}`);
		else if (RESERVED_HEADERS.has(name.toLowerCase())) problems.push(`${which} would replace a header the node sets itself`);
		else if (/[\r\n]/.test(value)) problems.push(`${which} has a line break in its value`);
		else headers[name] = value;
	}
	return { headers, problems };
}

/** The WebSocket base: the explicit one, or the base URL with https→wss, http→ws; never ending in /ws. */
export function socketBaseUrl(baseUrl: string, wsBaseUrl?: string): string {
	const explicit = (wsBaseUrl ?? '').trim().replace(/\/+$/, '');
	if (explicit) return explicit.replace(/\/ws$/, '');
	return baseUrl
		.trim()
		.replace(/\/+$/, '')
		.replace(/^https:/i, 'wss:')
		.replace(/^http:/i, 'ws:');
}

const MIN_PART_LENGTH = 6;

/**
 * The secrets of a header value: the whole value and its meaningful parts, since a proxy may echo
 * only a part: the token after an auth scheme (`Bearer <token>`), and for `Basic` the Base64
 * credential, the `user:password` it decodes to and the password.
 */
export function headerValueSecrets(value: string): string[] {
	const secrets = [value];
	// A part as short as an ordinary word would blank that word out of every message.
	const add = (...parts: string[]) => secrets.push(...parts.filter((part) => part.length >= MIN_PART_LENGTH));
	const scheme = /^\s*([A-Za-z][\w.+-]*)\s+(\S+)\s*$/.exec(value);
	if (scheme) {
		const token = scheme[2]!;
		add(token);
		if (scheme[1]!.toLowerCase() === 'basic') {
			const decoded = Buffer.from(token, 'base64').toString('utf8');
			const colon = decoded.indexOf(':');
			// Only a real user:password pair: any text decodes to some bytes.
			if (colon >= 0 && Buffer.from(decoded, 'utf8').toString('base64').replace(/=+$/, '') === token.replace(/=+$/, '')) {
				add(decoded, decoded.slice(colon + 1));
			}
		}
	}
	return secrets;
}

/** Why a credential's server address cannot be used, if it cannot ("its Base URL is empty"). */
export function addressProblem(field: string, url: string): string | undefined {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		return url ? `its ${field} "${url}" is not a web address` : `its ${field} is empty`;
	}
	if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return `its ${field} does not start with http:// or https://`;
	// The address is shown in output links; credentials in it would be shown with it.
	if (parsed.username || parsed.password)
		return `its ${field} holds a user name or password (put them in Proxy Headers, as Authorization: Basic …)`;
	return undefined;
}

/** Reads a Host Cloud API credential (saved before the Server choice existed: the cloud). */
export function cloudServerOf(credentials: ICredentialDataDecryptedObject): CloudServer {
	const trimmed = (value: unknown) => String(value ?? '').trim();
	if (credentials.server === 'selfHosted') {
		const baseUrl = trimmed(credentials.serverUrl).replace(/\/+$/, '');
		const partnerKey = trimmed(credentials.platformApiKey);
		const { headers, problems } = proxyHeaders(credentials);
		const address = addressProblem('Server URL', baseUrl);
		if (address) problems.unshift(address);
		return {
			kind: 'selfHosted',
			baseUrl,
			wsBaseUrl: socketBaseUrl(baseUrl, credentials.wsBaseUrl as string | undefined),
			partnerKey,
			headers,
			secrets: [partnerKey, ...Object.values(headers).flatMap(headerValueSecrets)],
			problems,
		};
	}
	const apiKey = String(credentials.apiKey ?? '');
	const baseUrl = trimmed(credentials.baseUrl).replace(/\/+$/, '');
	const address = addressProblem('Base URL', baseUrl);
	return {
		kind: 'cloud',
		baseUrl,
		wsBaseUrl: socketBaseUrl(baseUrl, credentials.wsBaseUrl as string | undefined),
		partnerKey: apiKey,
		headers: { 'X-API-Key': apiKey },
		secrets: [apiKey],
		problems: address ? [address] : [],
	};
}
