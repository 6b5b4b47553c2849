/**
 * The Host Cloud API credential data that reaches a simulator of either flavour, for the tests and
 * the benchmarks (no side effects on import, so the benchmarks can use it too).
 */
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import type { ProxyAuth } from '../../simulator/shared/context';
import { hostCloudApiCredential, selfHostedCredential } from './credential-fixtures';

export interface CloudServerUnderTest {
	flavour?: 'cloud' | 'self-hosted';
	baseUrl: string;
	apiKey: string;
	/** What the self-hosted server's reverse proxy wants (a header is what the credential can send). */
	proxy?: ProxyAuth;
}

/** The cloud's key, or a self-hosted server's Proxy Headers (the proxy's header, when it wants one). */
export function hostCloudCredential(server: CloudServerUnderTest): ICredentialDataDecryptedObject {
	if (server.flavour !== 'self-hosted') return hostCloudApiCredential({ apiKey: server.apiKey, baseUrl: server.baseUrl });
	const values = server.proxy && 'header' in server.proxy ? [{ name: server.proxy.header, value: server.proxy.value }] : [];
	return selfHostedCredential({ serverUrl: server.baseUrl, proxyHeaders: { values } });
}

/** The headers a direct client of that server sends: the cloud's key, or the proxy's header. */
export function directHeaders(server: CloudServerUnderTest): Record<string, string> {
	if (server.flavour !== 'self-hosted') return { 'X-API-Key': server.apiKey };
	return server.proxy && 'header' in server.proxy ? { [server.proxy.header]: server.proxy.value } : {};
}
