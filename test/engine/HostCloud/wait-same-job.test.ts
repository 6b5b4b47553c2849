/**
 * Wait for Completion given the same job by several items, on both flavours of the simulator: one
 * wait for the job, and each item its output (files included), paired with it; a failure of that
 * job fails each of its items with its own index; the jobs were started elsewhere, so neither a
 * failure nor a Stop cancels any.
 */
import { cloudForSuite, FAST_WAIT, OUTLASTING_NODE_MS, txt2img, waitUntil } from '../../support/cloud';

describe.each([{ flavour: 'cloud' as const }, { flavour: 'self-hosted' as const }])('$flavour', ({ flavour }) => {
	const cloud = cloudForSuite({ flavour });
	const jobs = () => [...cloud.sim.cloud.jobs.values()];

	async function submitTwo(): Promise<[string, string]> {
		const submitted = await cloud.harness.runNode(
			{
				type: 'hostCloud',
				parameters: { resource: 'workflow', operation: 'submit', workflow: JSON.stringify(txt2img()) },
				credentials: { hostCloudApi: cloud.credential },
			},
			[{ json: {} }, { json: {} }],
		);
		expect(submitted.status).toBe('success');
		return submitted.items.map((item) => item.json.prompt_id as string) as [string, string];
	}

	function waitFor(ids: string[], more: Record<string, unknown> = {}, signal?: AbortSignal) {
		return cloud.harness.runNode(
			{
				type: 'hostCloud',
				parameters: {
					resource: 'workflow',
					operation: 'waitForCompletion',
					promptId: '={{ $json.id }}',
					waitOptions: { ...FAST_WAIT },
				},
				credentials: { hostCloudApi: cloud.credential },
				...more,
			},
			ids.map((id) => ({ json: { id } })),
			{ signal },
		);
	}

	test('[A, B, A, A]: every item its own job’s outputs and files, in order', async () => {
		const [a, b] = await submitTwo();
		const result = await waitFor([a, b, a, a]);
		expect(result.status).toBe('success');
		expect(result.items.map((item) => item.json.prompt_id)).toEqual([a, b, a, a]);
		expect(result.items.map((item) => item.pairedItem)).toEqual([0, 1, 2, 3].map((item) => ({ item })));
		for (const item of result.items) {
			expect(item.json.status).toBe('completed');
			expect(Object.keys(item.binary ?? {})).toEqual(['data']);
		}
	});

	test('A fails, Continue On Fail: each of A’s items fails with its own index, B completes', async () => {
		cloud.sim.cloud.failNextJob({ exception_type: 'OOMError', exception_message: 'CUDA out of memory', nodeId: '4' });
		const [a, b] = await submitTwo();
		const result = await waitFor([a, b, a, a], { continueOnFail: true });
		expect(result.status).toBe('success');
		expect(result.items.map((item) => item.pairedItem)).toEqual([0, 1, 2, 3].map((item) => ({ item })));
		expect(result.items.map((item) => item.json.prompt_id)).toEqual([a, b, a, a]);
		expect(result.items.map((item) => (item.json.error === undefined ? 'ok' : 'failed'))).toEqual(['failed', 'ok', 'failed', 'failed']);
		for (const index of [0, 2, 3]) expect(result.items[index]!.json.error).toMatch(/GPU memory/);
	});

	test('A fails, no Continue On Fail: the error is the first of A’s items, and B (started elsewhere) is left running', async () => {
		cloud.sim.options.nodeMs = OUTLASTING_NODE_MS;
		const [a, b] = await submitTwo();
		// A (running) is stopped by someone else while both wait.
		const running = waitFor([b, a, a]);
		await waitUntil(() => cloud.sim.cloud.jobs.get(a)!.status === 'in_progress');
		const [path, body] = flavour === 'cloud' ? ['/api/queue', { delete: [a] }] : ['/api/interrupt', { prompt_id: a }];
		await fetch(`${cloud.sim.baseUrl}${path}`, {
			method: 'POST',
			headers: { ...cloud.headers, 'content-type': 'application/json' },
			body: JSON.stringify(body),
		});
		const result = await running;
		expect(result.status).toBe('error');
		expect((result.error('Node') as { context?: { itemIndex?: number } }).context?.itemIndex).toBe(1);
		expect(cloud.sim.cloud.jobs.get(b)!.status).not.toBe('cancelled');
	});

	test('Stop: nothing is cancelled (the jobs were started elsewhere), one canceled error', async () => {
		cloud.sim.options.nodeMs = OUTLASTING_NODE_MS;
		const [a, b] = await submitTwo();
		const stop = new AbortController();
		const running = waitFor([a, b, a], {}, stop.signal);
		await waitUntil(() => jobs().some((job) => job.status === 'in_progress'));
		stop.abort();
		const result = await running;
		expect(result.status).toBe('canceled');
		expect(jobs().every((job) => job.status !== 'cancelled')).toBe(true);
		expect(cloud.sim.requestsTo('POST', '/api/queue')).toHaveLength(0);
	});
});
