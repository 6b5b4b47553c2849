/**
 * Self-hosted: the optional reverse proxy in front of the server. The server itself has no key;
 * users who expose it put a proxy before it that wants a header or HTTP basic credentials and
 * answers 401 (before the server sees anything) when they are missing or wrong.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

import type { ProxyAuth } from '../shared/context';

export interface ProxyRefusal {
	headers: Record<string, string>;
	text: string;
}

const REALM = 'Basic realm="self-hosted server"';

function sameSecret(given: string | undefined, expected: string): boolean {
	if (given === undefined) return false;
	const a = Buffer.from(given);
	const b = Buffer.from(expected);
	return a.length === b.length && timingSafeEqual(a, b);
}

function headerValue(headers: IncomingMessage['headers'], name: string): string | undefined {
	const value = headers[name.toLowerCase()];
	return Array.isArray(value) ? value[0] : value;
}

/** Why the proxy turns this request away, or undefined when it lets it through (always, when no proxy auth is set). */
export function proxyRefusal(headers: IncomingMessage['headers'], auth: ProxyAuth | undefined): ProxyRefusal | undefined {
	if (!auth) return undefined;
	if ('header' in auth) {
		if (sameSecret(headerValue(headers, auth.header), auth.value)) return undefined;
		return { headers: {}, text: `401 Unauthorized: the reverse proxy wants the ${auth.header} header.` };
	}
	const expected = `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`;
	if (sameSecret(headerValue(headers, 'authorization'), expected)) return undefined;
	return { headers: { 'www-authenticate': REALM }, text: '401 Unauthorized: the reverse proxy wants a user name and password.' };
}

/** Header names whose values the request log must mask (the proxy's token header). */
export function proxySecretHeaders(auth: ProxyAuth | undefined): string[] {
	return auth && 'header' in auth ? [auth.header.toLowerCase()] : [];
}

export function sendProxyRefusal(res: ServerResponse, refusal: ProxyRefusal): void {
	res.writeHead(401, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(refusal.text), ...refusal.headers });
	res.end(refusal.text);
}

/** The same refusal for a WebSocket upgrade, which never reaches the server either. */
export function refuseUpgradeByProxy(socket: Duplex, refusal: ProxyRefusal): void {
	const extra = Object.entries(refusal.headers)
		.map(([name, value]) => `${name}: ${value}\r\n`)
		.join('');
	socket.end(
		`HTTP/1.1 401 Unauthorized\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(refusal.text)}\r\n${extra}Connection: close\r\n\r\n${refusal.text}`,
	);
}
