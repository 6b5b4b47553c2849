/**
 * A graph server that says "slow down", through n8n's engine against both flavours of the
 * simulator: a submit (POST /api/prompt) and a status read answered 429 with Retry-After are sent
 * again after at least the wait asked, one job is made, and the item says how long it waited; a
 * wait beyond Max Wait fails at once in words; the Stop button ends a submit's wait, and the submit
 * is not sent again.
 */
import { cloudForSuite, executeTxt2img, FAST_WAIT, waitUntil } from '../../support/cloud';
import { gapAfterSlowDown, statusesOf } from '../../support/slow-down';

describe.each([
	{ server: 'the cloud', flavour: 'cloud' as const, statusPath: '/api/job/' },
	{ server: 'a self-hosted server', flavour: 'self-hosted' as const, statusPath: '/api/history/' },
])('on $server', ({ flavour, statusPath }) => {
	const cloud = cloudForSuite({ flavour });
	const execute = (waitOptions: Record<string, unknown> = {}, signal?: AbortSignal) =>
		cloud.harness.runNode(
			{
				type: 'hostCloud',
				parameters: executeTxt2img({ waitOptions: { ...FAST_WAIT, ...waitOptions } }) as never,
				credentials: { hostCloudApi: cloud.credential },
			},
			[{ json: {} }],
			{ signal },
		);
	const submits = () => cloud.sim.requestsTo('POST', '/api/prompt');
	const statusReads = () => cloud.sim.requestsTo('GET', statusPath);

	test('a submit told to slow down (429, Retry-After 1) is sent again after at least 1 s: one job, and the item says it waited', async () => {
		cloud.sim.faults.slowDown = { count: 1, method: 'POST', pathPrefix: '/api/prompt', retryAfter: 1 };
		const result = await execute();
		expect(result.status).toBe('success');
		expect(result.items[0]!.json).toMatchObject({ status: 'completed', waited_for_service_seconds: expect.any(Number) });
		expect(result.items[0]!.json.waited_for_service_seconds).toBeGreaterThanOrEqual(1);
		expect(statusesOf(submits())).toEqual([429, 200]);
		expect(cloud.sim.cloud.jobs.size).toBe(1);
		expect(gapAfterSlowDown(submits())).toBeGreaterThanOrEqual(1000);
	});

	test('a status read told to slow down waits at least what it asks, then the job completes', async () => {
		cloud.sim.faults.slowDown = { count: 1, pathPrefix: statusPath, retryAfter: 1 };
		const result = await execute({ useWebSocket: false });
		expect(result.status).toBe('success');
		expect(result.items[0]!.json.status).toBe('completed');
		expect(result.items[0]!.json.waited_for_service_seconds).toBeGreaterThanOrEqual(1);
		expect(cloud.sim.cloud.jobs.size).toBe(1);
		expect(statusesOf(statusReads())[0]).toBe(429);
		expect(gapAfterSlowDown(statusReads())).toBeGreaterThanOrEqual(1000);
	});

	test('a status read asked to wait beyond Max Wait fails at once in words, naming the job', async () => {
		cloud.sim.faults.slowDown = { count: 1, pathPrefix: statusPath, retryAfter: 600 };
		const result = await execute({ useWebSocket: false });
		expect(result.status).toBe('error');
		const message = result.error('Node')?.message;
		expect(message).toMatch(
			/The service asked to wait 600 s before trying again \(HTTP 429\) while reading the .* of job [0-9a-f-]{36}, more than the [\d.]+ s left of Max Wait; the node did not wait/,
		);
		expect(statusesOf(statusReads())).toEqual([429]);
	});

	test('Stop during a submit’s wait ends the execution; the submit is not sent again and no job is made', async () => {
		cloud.sim.faults.slowDown = { count: 1, method: 'POST', pathPrefix: '/api/prompt', retryAfter: 20 };
		const controller = new AbortController();
		const running = execute({}, controller.signal);
		await waitUntil(() => submits().some((request) => request.status === 429));
		controller.abort();
		const result = await running;
		expect(result.status).toBe('canceled');
		expect(statusesOf(submits())).toEqual([429]);
		expect(cloud.sim.cloud.jobs.size).toBe(0);
	});
});
