/**
 * Outside attack on the Host Cloud V2 API credential's test: answers that look like a v2 API's
 * `404 not_found` envelope but come from another API (Google-style `{error: {code: 404}}`, a string
 * `error`, `not_found` with a 200), a redirect to a path on the same host, and an HTML 404. The test
 * passes only on a v2 answer, never follows a redirect, and never shows the key.
 */
import type { ServerResponse } from 'node:http';

import { EngineHarness } from '../../../support/engine';
import { sendJson, startHostileService, type HostileService } from '../../../support/hostile-service';

const API_KEY = 'v2-attack-credential-key-9d8c7b';
const harness = new EngineHarness();
let service: HostileService;
let answer: (res: ServerResponse) => void;

beforeAll(async () => {
	service = await startHostileService((_req, res) => answer(res));
});
afterEach(() => {
	service.seen.length = 0;
});
afterAll(async () => await service.close());

const testV2 = () => harness.testCredential('hostCloudV2Api', { baseUrl: service.url, apiKey: API_KEY });

test.each([
	['a 404 whose error is a string', (res: ServerResponse) => sendJson(res, 404, { error: 'not_found' })],
	[
		'an HTML 404',
		(res: ServerResponse) => {
			res.writeHead(404, { 'Content-Type': 'text/html' });
			res.end('<html><body>Not Found</body></html>');
		},
	],
	[
		'a redirect to the same host',
		(res: ServerResponse) => {
			res.writeHead(301, { Location: `${service.url}/elsewhere?key=${API_KEY}` });
			res.end();
		},
	],
	['a 401 that echoes the key', (res: ServerResponse) => sendJson(res, 401, { error: { code: 'unauthorized', message: `bad key ${API_KEY}` } })],
])('fails on %s, without the key, with one request', async (_case, send) => {
	answer = send;
	const result = await testV2();

	expect(result.status).toBe('Error');
	expect(result.message).not.toContain(API_KEY);
	expect(service.seen).toHaveLength(1);
});

// BROKEN: docs/credentials.md says the test "passes only on the v2 error envelope a v2 API answers
// for it (404 not_found)", but any `error.code` passes: another API's 404 envelope (Google-style,
// `code: 404`) and a 200 carrying `{error: {code: 'not_found'}}` both report "Connection successful".
// The credential's test rules (credentials/, the v2 test request and its rules) check that an
// `error.code` is there, not that it is `not_found` on a 404. If n8n's declarative rules cannot say
// "only not_found", the docs should say what the test does prove.
test.failing.each([
	['a Google-style 404 envelope (numeric code)', (res: ServerResponse) => sendJson(res, 404, { error: { code: 404, message: 'Not Found', status: 'NOT_FOUND' } })],
	['a 200 carrying the not_found envelope', (res: ServerResponse) => sendJson(res, 200, { error: { code: 'not_found', message: 'x' } })],
])('fails on %s (it looks like, but is not, a v2 API\u2019s 404 not_found)', async (_case, send) => {
	answer = send;
	const result = await testV2();

	expect(result.status).toBe('Error');
	expect(result.message).not.toContain(API_KEY);
});
