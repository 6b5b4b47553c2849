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
	[
		'a 401 that echoes the key',
		(res: ServerResponse) => sendJson(res, 401, { error: { code: 'unauthorized', message: `bad key ${API_KEY}` } }),
	],
])('fails on %s, without the key, with one request', async (_case, send) => {
	answer = send;
	const result = await testV2();

	expect(result.status).toBe('Error');
	expect(result.message).not.toContain(API_KEY);
	expect(service.seen).toHaveLength(1);
});

// Found by the outside attack: another API's 404 envelope with a numeric code passed the test; it
// fails now. A 200 carrying the not_found envelope still passes: n8n's credential rules read the
// body, not the status (docs/credentials.md says so), so that case stays a known limit.
test.each([
	[
		'a Google-style 404 envelope (numeric code)',
		(res: ServerResponse) => sendJson(res, 404, { error: { code: 404, message: 'Not Found', status: 'NOT_FOUND' } }),
	],
])('fails on %s (it looks like, but is not, a v2 API\u2019s 404 not_found)', async (_case, send) => {
	answer = send;
	const result = await testV2();

	expect(result.status).toBe('Error');
	expect(result.message).not.toContain(API_KEY);
});

test.failing('fails on a 200 carrying the not_found envelope (a known limit: the rules read the body, not the status)', async () => {
	answer = (res: ServerResponse) => sendJson(res, 200, { error: { code: 'not_found', message: 'x' } });
	expect((await testV2()).status).toBe('Error');
});
