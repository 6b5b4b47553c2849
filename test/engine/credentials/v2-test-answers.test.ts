/**
 * The Host Cloud V2 API credential's test passes only on a v2 answer of the right shape: the error
 * envelope `not_found` for a job that cannot exist. A rejected key, another server's JSON, a web page
 * and a redirect fail in words, with one request that carries the key as a bearer token and is never
 * followed elsewhere. Run as n8n runs a credential test, against a loopback service.
 */
import type { ServerResponse } from 'node:http';

import { EngineHarness } from '../../support/engine';
import { sendJson, startHostileService, type HostileService } from '../../support/hostile-service';
import { V2_TEST_JOB_ID } from '../../../credentials/v2-server';

const API_KEY = 'v2-key-answer-test-0123456789';
const harness = new EngineHarness();
let service: HostileService;
let answer: (res: ServerResponse) => void;

beforeAll(async () => {
	service = await startHostileService((_req, res) => answer(res));
});
afterEach(() => {
	service.seen.length = 0;
});
afterAll(async () => {
	await service.close();
});

const envelope = (status: number, code: string) => (res: ServerResponse) => sendJson(res, status, { error: { code, message: `${code} said ${API_KEY}` } });
const testV2 = (apiKey = API_KEY) => harness.testCredential('hostCloudV2Api', { baseUrl: `${service.url}/`, apiKey });

test('passes on the envelope a v2 API answers for a job that does not exist, with the key as a bearer token', async () => {
	answer = envelope(404, 'not_found');
	expect(await testV2()).toEqual({ status: 'OK', message: 'Connection successful!' });
	expect(service.seen.map((req) => [req.method, req.url, req.headers.authorization])).toEqual([
		['GET', `/api/v2/jobs/${V2_TEST_JOB_ID}`, `Bearer ${API_KEY}`],
	]);
});

test('a self-hosted proxy without a token is tested without an Authorization header', async () => {
	answer = envelope(404, 'not_found');
	expect((await testV2('')).status).toBe('OK');
	expect(service.seen[0]!.headers.authorization).toBeUndefined();
});

test.each([
	['a rejected key', envelope(401, 'unauthorized'), /API key was rejected \(401 unauthorized\)/],
	['a forbidden key', envelope(403, 'forbidden'), /refused this API key \(403 forbidden\)/],
	['an upstream error', envelope(500, 'upstream_error'), /500 upstream_error/],
	['another server\u2019s 404', (res: ServerResponse) => sendJson(res, 404, { detail: 'Not Found' }), /not as a v2 API does/],
	['a v1 server\u2019s answer', (res: ServerResponse) => sendJson(res, 200, { KSampler: { output: ['LATENT'] } }), /not as a v2 API does/],
	[
		'a web page',
		(res: ServerResponse) => {
			res.writeHead(200, { 'Content-Type': 'text/html' });
			res.end('<html><body>Sign in</body></html>');
		},
		/answered with a web page or text/,
	],
	[
		'a redirect (not followed)',
		(res: ServerResponse) => {
			res.writeHead(302, { Location: 'http://127.0.0.1:9/steal' });
			res.end();
		},
		/answered with a web page or text/,
	],
])('fails on %s, in words, without the key, with one request', async (_case, send, words) => {
	answer = send;
	const result = await testV2();
	expect(result.status).toBe('Error');
	expect(result.message).toMatch(words);
	expect(result.message).not.toContain(API_KEY);
	expect(service.seen).toHaveLength(1);
});
