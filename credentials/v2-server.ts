/**
 * What a Host Cloud V2 API credential points at: a v2 jobs API (the cloud, a deployment, or a
 * self-hosted v2 proxy), with its bearer key or none. Read here once, for the credential's
 * `authenticate`, the transport and redaction, so they cannot disagree.
 */
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { addressProblem } from './cloud-server';

/** The job the credential test asks for: a UUID no server hands out, so the answer is always "not found". */
export const V2_TEST_JOB_ID = '00000000-0000-4000-8000-000000000000';

export interface V2Server {
	/** Base URL without a trailing slash (and without /api/v2). */
	baseUrl: string;
	/** The key partner nodes are billed through ('' when none): the partner key field, else the API key. */
	partnerKey: string;
	/** `Authorization: Bearer <key>`, or nothing when there is no key (a self-hosted proxy without a token). */
	headers: Record<string, string>;
	/** Values that must never be shown. */
	secrets: string[];
	/** Why the credential cannot be used, in words ("its Base URL is empty"). */
	problems: string[];
}

/** Reads a Host Cloud V2 API credential. */
export function v2ServerOf(credentials: ICredentialDataDecryptedObject): V2Server {
	const baseUrl = String(credentials.baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '');
	const apiKey = String(credentials.apiKey ?? '').trim();
	const partnerKey = String(credentials.platformApiKey ?? '').trim() || apiKey;
	const problems: string[] = [];
	const address = addressProblem('Base URL', baseUrl);
	if (address) problems.push(address);
	else if (/\/api(\/v2)?$/i.test(baseUrl)) problems.push('its Base URL ends with /api or /api/v2 (leave that out: the node adds it)');
	if (/[\r\n]/.test(apiKey)) problems.push('its API Key has a line break in it');
	return {
		baseUrl,
		partnerKey,
		headers: apiKey ? { Authorization: `Bearer ${apiKey}` } : {},
		secrets: [apiKey, partnerKey, ...(apiKey ? [`Bearer ${apiKey}`] : [])].filter((secret) => secret !== ''),
		problems,
	};
}
