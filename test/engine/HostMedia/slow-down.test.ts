/**
 * A media proxy that says "slow down", through n8n's engine against the simulator: a task submit
 * and a status poll answered 429 (or 503) with Retry-After are sent again after at least the wait
 * asked, once the service takes them, and the item says how long it waited; a wait beyond Max Wait
 * fails at once in words; a 429 without Retry-After is asked again as the retry table paces, then
 * fails, saying it waited; the Stop button ends the wait, and nothing more is sent.
 */
import { gapAfterSlowDown, statusesOf } from '../../support/slow-down';
import { FAST, IMAGE_URL, useMediaEnv } from '../../support/media';
import { waitUntil } from '../../support/wait';

const env = useMediaEnv();
const UPSCALER = '/proxy/imaging/v1/ai/image-upscaler';
const UPSCALE = { resource: 'image', operation: 'upscale', imageUrl: IMAGE_URL, downloadFiles: false, ...FAST };
const polls = () => env.sim.requestsTo('GET', `${UPSCALER}/`);
const submits = () => env.sim.requestsTo('POST', UPSCALER).filter((request) => request.path === UPSCALER);

it('a poll told to slow down (429, Retry-After 1) waits at least 1 s, then reads the task; the item says it waited', async () => {
	env.sim.faults.slowDown = { count: 1, pathPrefix: `${UPSCALER}/`, retryAfter: 1 };
	const result = await env.run(UPSCALE);
	expect(result.status).toBe('success');
	expect(result.items[0]!.json).toMatchObject({ status: 'succeeded', waited_for_service_seconds: expect.any(Number) });
	expect(result.items[0]!.json.waited_for_service_seconds).toBeGreaterThanOrEqual(1);
	expect(env.sim.proxy.imageTasks.size).toBe(1);
	expect(statusesOf(polls())[0]).toBe(429);
	expect(gapAfterSlowDown(polls())).toBeGreaterThanOrEqual(1000);
});

it('a poll answered 503 with Retry-After waits what it asks too', async () => {
	env.sim.faults.slowDown = { count: 1, pathPrefix: `${UPSCALER}/`, status: 503, retryAfter: 1 };
	const result = await env.run(UPSCALE);
	expect(result.status).toBe('success');
	expect(result.items[0]!.json.waited_for_service_seconds).toBeGreaterThanOrEqual(1);
	expect(gapAfterSlowDown(polls())).toBeGreaterThanOrEqual(1000);
});

it('a submit told to slow down is sent again after the wait, and one task is made', async () => {
	env.sim.faults.slowDown = { count: 1, method: 'POST', pathPrefix: UPSCALER, retryAfter: 1 };
	const result = await env.run(UPSCALE);
	expect(result.status).toBe('success');
	expect(result.items[0]!.json.waited_for_service_seconds).toBeGreaterThanOrEqual(1);
	expect(statusesOf(submits())).toEqual([429, 200]);
	expect(env.sim.proxy.imageTasks.size).toBe(1);
	expect(gapAfterSlowDown(submits())).toBeGreaterThanOrEqual(1000);
});

it('a result download told to slow down (429, Retry-After 1) is fetched again after at least 1 s; the file arrives whole and the item says it waited', async () => {
	env.sim.faults.slowDown = { count: 1, method: 'GET', pathPrefix: '/o/', retryAfter: 1 };
	const result = await env.run({ ...UPSCALE, downloadFiles: true });
	expect(result.status).toBe('success');
	expect(result.items[0]!.json.waited_for_service_seconds).toBeGreaterThanOrEqual(1);
	expect(Object.keys(result.items[0]!.binary ?? {})).toHaveLength(1);
	const downloads = env.sim.requestsTo('GET', '/o/');
	expect(statusesOf(downloads)).toEqual([429, 200]);
	expect(gapAfterSlowDown(downloads)).toBeGreaterThanOrEqual(1000);
});

it('a result download told to wait longer than a read may take fails in words, without waiting', async () => {
	env.sim.faults.slowDown = { count: 1, method: 'GET', pathPrefix: '/o/', retryAfter: 3600 };
	const result = await env.run({ ...UPSCALE, downloadFiles: true }, [{ json: {} }], { continueOnFail: true });
	expect(result.items[0]!.json.error).toMatch(
		/The service asked to wait 3600 s before trying again \(HTTP 429\) while downloading .+; the node did not wait/,
	);
	expect(statusesOf(env.sim.requestsTo('GET', '/o/'))).toEqual([429]);
});

it('items that never waited do not say so', async () => {
	const result = await env.run(UPSCALE);
	expect(result.status).toBe('success');
	expect(result.items[0]!.json).not.toHaveProperty('waited_for_service_seconds');
});

it('a Retry-After beyond Max Wait fails at once in words, and nothing more is asked', async () => {
	env.sim.faults.slowDown = { count: 1, pathPrefix: `${UPSCALER}/`, retryAfter: 600 };
	const result = await env.run(UPSCALE);
	expect(result.status).toBe('error');
	const taskId = [...env.sim.proxy.imageTasks.keys()][0]!;
	const error = result.error('Node') as { message: string; description?: string };
	expect(error.message).toMatch(
		new RegExp(
			`^The service asked to wait 600 s before trying again \\(HTTP 429\\) while checking upscale task ${taskId}, more than the [\\d.]+ s left of Max Wait; the node did not wait$`,
		),
	);
	expect(error.description).toMatch(/raise Max Wait/);
	expect(statusesOf(polls())).toEqual([429]);
});

it('a submit told to slow down without Retry-After is asked again as the retry table paces, then fails, saying it waited', async () => {
	env.sim.faults.slowDown = { count: 100, method: 'POST', pathPrefix: UPSCALER };
	const result = await env.run(UPSCALE, [{ json: {} }], { continueOnFail: true });
	expect(result.status).toBe('success');
	const json = result.items[0]!.json;
	expect(json.error).toMatch(/^Too many requests while starting the upscale task \(HTTP 429\)/);
	expect(json.errorDetails).toMatch(/The node waited [\d.]+ s in all for the service, which asked it to slow down\./);
	expect(json.waited_for_service_seconds).toBeGreaterThan(0);
	expect(statusesOf(submits())).toEqual([429, 429, 429, 429]);
	expect(env.sim.proxy.imageTasks.size).toBe(0);
}, 30_000);

it('Stop during the wait ends the execution, and nothing more is sent', async () => {
	env.sim.faults.slowDown = { count: 1, pathPrefix: `${UPSCALER}/`, retryAfter: 20 };
	const controller = new AbortController();
	const running = env.run(UPSCALE, [{ json: {} }], { signal: controller.signal });
	await waitUntil(() => polls().some((request) => request.status === 429));
	// Well past the poll interval (10 ms): a node that did not wait would have polled again by now.
	await new Promise((resolve) => setTimeout(resolve, 300));
	controller.abort();
	const result = await running;
	expect(result.status).toBe('canceled');
	expect(statusesOf(polls())).toEqual([429]);
	expect(env.sim.requests.filter((request) => request.at > polls()[0]!.at)).toEqual([]);
});
