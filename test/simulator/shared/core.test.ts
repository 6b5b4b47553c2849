/** The simulator's front door, shared by all areas: generic faults, the request log, counters, reset. */
import axios from 'axios';

import type { Simulator } from '../../../simulator/server';
import { useSimulator } from '../support/simulator';

describe('simulator front door', () => {
	let sim: Simulator;
	const cloud = () => axios.create({ baseURL: sim.baseUrl, headers: { 'X-API-Key': sim.apiKey }, validateStatus: () => true });
	const registry = () =>
		axios.create({ baseURL: sim.registryUrl, headers: { Authorization: `Bearer ${sim.accessToken}` }, validateStatus: () => true });

	useSimulator({}, (started) => (sim = started));

	it('answers a burst of 5xx on matching paths only, then recovers', async () => {
		sim.faults.http5xx = { count: 2, pathPrefix: '/api/object_info' };
		expect((await cloud().get('/api/queue')).status).toBe(200);
		expect((await cloud().get('/api/object_info')).status).toBe(503);
		expect((await cloud().get('/api/object_info')).status).toBe(503);
		expect((await cloud().get('/api/object_info')).status).toBe(200);
		sim.faults.http5xx = { count: 1, status: 502 };
		expect((await registry().get('/publishers/x/nodes')).status).toBe(502);
	});

	it('tells a submit to slow down with a 429 and Retry-After in the cloud shape, carries nothing out, then takes it', async () => {
		sim.faults.slowDown = { count: 1, method: 'POST', pathPrefix: '/api/prompt', retryAfter: 7 };
		const body = { prompt: {}, extra_data: {} };
		expect((await cloud().get('/api/prompt')).status).not.toBe(429);
		const told = await cloud().post('/api/prompt', body);
		expect(told.status).toBe(429);
		expect(told.headers['retry-after']).toBe('7');
		expect(told.data).toEqual({ error: { type: 'rate_limited', message: 'Too many requests: try again later', details: '' } });
		expect(sim.cloud.jobs.size).toBe(0);
		expect((await cloud().post('/api/prompt', body)).status).not.toBe(429);
		expect(sim.requestsTo('POST', '/api/prompt').map((request) => request.status)).toEqual([429, expect.any(Number)]);
	});

	it('tells the media proxy and the registry to slow down in their shape: a 503 with an HTTP date, a 429 without the header', async () => {
		const date = 'Wed, 21 Oct 2099 07:28:00 GMT';
		sim.faults.slowDown = { count: 1, pathPrefix: '/proxy/imaging/', status: 503, retryAfter: date };
		const media = await registry().get('/proxy/imaging/v1/ai/image-upscaler/00000000-0000-4000-8000-000000000000');
		expect(media.status).toBe(503);
		expect(media.headers['retry-after']).toBe(date);
		expect(media.data).toEqual({ error: 'unavailable', message: 'The service is busy: try again later' });
		sim.faults.slowDown = { count: 2, pathPrefix: '/publishers' };
		for (let i = 0; i < 2; i++) {
			const told = await registry().get('/publishers/x/nodes');
			expect(told.status).toBe(429);
			expect(told.headers['retry-after']).toBeUndefined();
			expect(told.data).toMatchObject({ error: 'rate_limited' });
		}
		expect((await registry().get('/publishers/x/nodes')).status).not.toBe(429);
	});

	it('cuts the next JSON bodies in half for malformed-JSON faults', async () => {
		sim.faults.malformedJson = { count: 1, pathPrefix: '/api/queue' };
		const broken = await cloud().get('/api/queue', { responseType: 'text', transformResponse: (x) => x });
		expect(broken.status).toBe(200);
		expect(() => JSON.parse(broken.data as string)).toThrow();
		const whole = await cloud().get('/api/queue', { responseType: 'text', transformResponse: (x) => x });
		expect(() => JSON.parse(whole.data as string)).not.toThrow();
	});

	it('slows responses on matching paths', async () => {
		sim.faults.slow = { ms: 150, pathPrefix: '/api/queue' };
		const started = Date.now();
		await cloud().get('/api/queue');
		expect(Date.now() - started).toBeGreaterThanOrEqual(140);
	});

	it('logs requests with secrets masked and counts them; reset forgets', async () => {
		await cloud().get('/api/queue');
		await registry().get('/publishers/none/nodes');
		const [first, second] = sim.requests;
		expect(first).toMatchObject({ method: 'GET', path: '/api/queue', host: 'service', status: 200 });
		expect(first!.headers['x-api-key']).toBe(`***(${sim.apiKey.length})`);
		expect(second!.headers.authorization).toBe(`Bearer ***(${sim.accessToken.length})`);
		expect(JSON.stringify(sim.requests)).not.toContain(sim.apiKey);
		expect(sim.counters.httpRequests).toBe(2);
		expect(sim.requestsTo('GET', '/publishers')).toHaveLength(1);
		sim.reset();
		expect(sim.requests).toHaveLength(0);
		expect(sim.counters.httpRequests).toBe(0);
	});

	it('masks account secrets that travel in bodies', async () => {
		await cloud().post('/api/prompt', { prompt: {}, extra_data: { api_key_host_org: sim.apiKey } });
		expect(sim.requestsTo('POST', '/api/prompt')[0]!.body).not.toContain(sim.apiKey);
	});

	it("answers unknown routes with 404 and wrong methods with 405 in each host's error shape", async () => {
		const missing = await cloud().get('/api/nope');
		expect(missing.status).toBe(404);
		expect(missing.data.error.message).toMatch(/No route/);
		const wrongMethod = await registry().delete('/publishers');
		expect(wrongMethod.status).toBe(405);
		expect(wrongMethod.data).toMatchObject({ error: 'method_not_allowed' });
	});
});
