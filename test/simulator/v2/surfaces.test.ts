/**
 * The v2 flavour on its other surfaces: a deployment mounted under its gateway's prefix (links
 * carry it, logs on finished jobs, deployment_not_ready), and a self-hosted proxy (no key unless a
 * token is set, no billing, bytes served directly with Range). Every answer is checked against the
 * contract after each test (test/simulator/support/v2.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { V2Simulator } from '../../../simulator/server';
import { picturePng } from '../../../simulator/shared/png';
import { waitUntil } from '../../support/wait';
import { send, uploadForm, useV2Simulator, v2Client } from '../support/v2';

const WORKFLOW = JSON.parse(readFileSync(join(__dirname, '../../fixtures/txt2img-api.json'), 'utf8')) as Record<string, unknown>;
const BYTES = picturePng(16, 16, 5);

describe('deployment behind a gateway (mountPrefix /deployment/dep-1)', () => {
	let sim: V2Simulator;
	useV2Simulator({ nodeMs: 5, v2: { surface: 'deployment', mountPrefix: '/deployment/dep-1' } }, (s) => (sim = s));
	const { call } = v2Client(() => sim);
	const origin = () => new URL(sim.baseUrl).origin;

	test('baseUrl carries the prefix; job links are host-relative with it, and resolve against the origin', async () => {
		expect(sim.baseUrl).toBe(`${origin()}/deployment/dep-1`);
		const created = await call('POST', '/api/v2/jobs', { workflow: WORKFLOW });
		expect(created.status).toBe(201);
		expect(created.body.urls).toEqual({
			self: `/deployment/dep-1/api/v2/jobs/${created.body.id}`,
			events: `/deployment/dep-1/api/v2/jobs/${created.body.id}/events`,
			cancel: `/deployment/dep-1/api/v2/jobs/${created.body.id}/cancel`,
		});
		await waitUntil(() => sim.v2.jobs.get(created.body.id)?.status === 'succeeded');
		const read = await call('GET', new URL(created.body.urls.self, origin()).href);
		expect(read.status).toBe(200);
		expect(read.body.logs).toMatchObject({ truncated: false, text: expect.stringContaining('got prompt') });
		expect((await call('GET', `${origin()}/api/v2/jobs/${created.body.id}`)).status).toBe(404);
	});

	test('a submit while the deployment starts is 429 deployment_not_ready with Retry-After, and the key is free again', async () => {
		sim.options.v2 = { ...sim.options.v2, notReadyForMs: 3_600_000, retryAfterSeconds: 12 };
		const headers = { authorization: `Bearer ${sim.apiKey}`, 'idempotency-key': 'warm-up-1' };
		const early = await call('POST', '/api/v2/jobs', { workflow: WORKFLOW }, headers);
		expect([early.status, early.body.error.code, early.headers.get('retry-after')]).toEqual([429, 'deployment_not_ready', '12']);
		sim.options.v2 = { ...sim.options.v2, notReadyForMs: 0 };
		expect((await call('POST', '/api/v2/jobs', { workflow: WORKFLOW }, headers)).status).toBe(201);
	});

	test('content is a 302 to signed storage; 402 at 0 credits', async () => {
		const uploaded = await call('POST', '/api/v2/assets', uploadForm(BYTES));
		const content = await call('GET', `/api/v2/assets/${uploaded.body.id}/content`);
		expect(content.status).toBe(302);
		expect(content.headers.get('location')!.startsWith(sim.storageUrl)).toBe(true);
		sim.accounts[0].credits = 0;
		expect((await call('POST', '/api/v2/jobs', { workflow: WORKFLOW })).status).toBe(402);
	});
});

describe('self-hosted', () => {
	let sim: V2Simulator;
	useV2Simulator({ nodeMs: 5, credits: 0, v2: { surface: 'self-hosted' } }, (s) => (sim = s));
	const { call } = v2Client(() => sim);

	test('no key is needed and none is billed: a submit without Authorization runs at 0 credits', async () => {
		const created = await call('POST', '/api/v2/jobs', { workflow: WORKFLOW }, {});
		expect(created.status).toBe(201);
		expect(created.body.urls.self).toBe(`${sim.baseUrl}/api/v2/jobs/${created.body.id}`);
	});

	test('with a token set, every request needs it as a bearer token', async () => {
		sim.options.v2 = { ...sim.options.v2, selfHostedToken: 'local-token' };
		expect((await call('GET', '/api/v2/jobs/x', undefined, {})).status).toBe(401);
		expect((await call('GET', '/api/v2/jobs/x', undefined, { authorization: `Bearer ${sim.apiKey}` })).status).toBe(401);
		expect((await call('GET', '/api/v2/jobs/x', undefined, { authorization: 'Bearer local-token' })).status).toBe(404);
	});

	test('asset urls are the /content route, which serves the bytes, a Range as 206, a range past the end as 416', async () => {
		const { body } = await call('POST', '/api/v2/assets', uploadForm(BYTES), {});
		expect(body.url).toBe(`${sim.baseUrl}/api/v2/assets/${body.id}/content`);
		const whole = await send('GET', body.url);
		expect([whole.status, whole.bytes]).toEqual([200, BYTES]);
		const part = await send('GET', body.url, { range: 'bytes=0-7' });
		expect([part.status, part.headers.get('content-range')]).toEqual([206, `bytes 0-7/${BYTES.length}`]);
		expect(part.bytes).toEqual(BYTES.subarray(0, 8));
		const tail = await send('GET', body.url, { range: 'bytes=-4' });
		expect(tail.bytes).toEqual(BYTES.subarray(BYTES.length - 4));
		const beyond = await send('GET', body.url, { range: `bytes=${BYTES.length}-` });
		expect([beyond.status, beyond.headers.get('content-range')]).toEqual([416, `bytes */${BYTES.length}`]);
	});
});
