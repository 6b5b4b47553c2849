/**
 * Outside attack on Host Cloud v2: the submit. 422 idempotency_key_reuse on the very first try,
 * 429s whose Retry-After is huge, negative, a date or junk, and a 5xx on every try: never a second
 * paid job (one key per item try, a lost answer resent with the same key), every wait bounded.
 */
import { randomUUID } from 'node:crypto';

import { API_KEY, envelope, executeParameters, job, json, nodeSpec, QUICK, useHostileV2, visible, wellBehaved } from './hostile-v2';

const v2 = useHostileV2();

const submits = () => v2.api.seen.filter((r) => r.method === 'POST' && r.url === '/api/v2/jobs');
const keys = () => submits().map((r) => r.headers['idempotency-key']);
const run = (waitOptions: Record<string, unknown> = {}, settings: Record<string, unknown> = {}) =>
	v2.harness.runNode(nodeSpec(v2, executeParameters({ waitOptions: { ...QUICK, ...waitOptions } }), settings), [{ json: {} }]);

/** Submits answered by `first` `times` times, then as a well-behaved server. */
function submitsAnswered(first: (res: import('node:http').ServerResponse) => void, times = 1) {
	const id = randomUUID();
	let left = times;
	const rest = wellBehaved({ id });
	v2.answer = (req, res) => {
		if (req.method === 'POST' && req.url === '/api/v2/jobs' && left > 0) {
			left -= 1;
			return first(res);
		}
		rest(req, res);
	};
	return id;
}

describe('submits', () => {
	test('422 idempotency_key_reuse on the very first try: the item fails naming the key; no new key is sent', async () => {
		submitsAnswered((res) => envelope(res, 422, 'idempotency_key_reuse'), 5);
		const result = await run();

		expect(result.status).toBe('error');
		expect(submits()).toHaveLength(1);
		expect(result.error('Node')?.message).toContain(String(keys()[0]));
	});

	test('429 queue_full with Retry-After: 999999 (past Max Wait) fails at once, naming the 429; no wait, one submit', async () => {
		submitsAnswered((res) => envelope(res, 429, 'queue_full', { 'retry-after': '999999' }));
		const result = await run({ maxWaitMinutes: 0.1 });

		expect(result.status).toBe('error');
		expect(submits()).toHaveLength(1);
		expect(result.error('Node')?.message).toContain('429');
	});

	test.each([
		['negative', '-5'],
		['junk', 'soon'],
		['a date in the past', new Date(Date.now() - 60_000).toUTCString()],
	])(
		'429 queue_full with a Retry-After that is %s: waited out within bounds, the same key sent again, one job',
		async (_name, value) => {
			const id = submitsAnswered((res) => envelope(res, 429, 'queue_full', { 'retry-after': value }));
			const result = await run({ maxWaitMinutes: 0.25 });

			expect(result.status).toBe('success');
			expect(submits()).toHaveLength(2);
			expect(keys()[1]).toBe(keys()[0]);
			expect(result.items[0]!.json).toMatchObject({ job_id: id });
		},
		30_000,
	);

	test('429 queue_full with a Retry-After date a day away fails at once, one submit', async () => {
		submitsAnswered((res) => envelope(res, 429, 'queue_full', { 'retry-after': new Date(Date.now() + 86_400_000).toUTCString() }));
		const result = await run({ maxWaitMinutes: 0.1 });

		expect(result.status).toBe('error');
		expect(submits()).toHaveLength(1);
	});

	// Found by the outside attack: every submit answered 429 with Retry-After: 0 kept the item resending
	// far past Max Wait; the submit's waits are now bounded by the item's Max Wait.
	test('429 forever, Retry-After: 0: the resends end by themselves within Max Wait (Stop at 20 s is only a safety net)', async () => {
		submitsAnswered((res) => envelope(res, 429, 'rate_limited', { 'retry-after': '0' }), 1_000_000);
		const stop = new AbortController();
		const stopper = setTimeout(() => stop.abort(), 20_000);
		const result = await v2.harness.runNode(
			nodeSpec(v2, executeParameters({ waitOptions: { ...QUICK, maxWaitMinutes: 0.03 } })),
			[{ json: {} }],
			{
				signal: stop.signal,
			},
		);
		clearTimeout(stopper);

		expect(result.status).toBe('error');
		expect(submits().length).toBeLessThanOrEqual(30);
		expect(new Set(keys()).size).toBe(1);
	}, 40_000);

	test('a 5xx on every try (the job may exist each time): two sends of one key, then the item fails naming it; Retry On Fail sends that same key', async () => {
		submitsAnswered((res) => envelope(res, 502, 'upstream_error'), 1_000_000);
		const result = await run({}, { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 });

		expect(result.status).toBe('error');
		expect(new Set(keys()).size).toBe(1);
		expect(submits().length).toBeLessThanOrEqual(6);
		expect(visible(result)).not.toContain(API_KEY);
	}, 30_000);

	test('a 201 that is not a job (an HTML page): the item fails, one submit, the page is not output', async () => {
		submitsAnswered((res) => {
			res.writeHead(201, { 'content-type': 'text/html' });
			res.end('<html><body>Welcome</body></html>');
		});
		const result = await run();

		expect(result.status).toBe('error');
		expect(submits().length).toBeLessThanOrEqual(2);
		expect(new Set(keys()).size).toBe(1);
	});

	test("a 201 about a job that is already succeeded, with another job's id in urls: the job is the 201's id", async () => {
		const id = randomUUID();
		v2.answer = (req, res) => {
			if (req.method === 'POST' && req.url === '/api/v2/jobs')
				return json(res, 201, job(id, 'queued', { urls: { self: `/api/v2/jobs/${randomUUID()}` } }));
			wellBehaved({ id })(req, res);
		};
		const result = await run();

		expect(result.status).toBe('success');
		expect(result.items[0]!.json).toMatchObject({ job_id: id });
	});
});
