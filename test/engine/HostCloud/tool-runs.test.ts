/**
 * Execute and Get Status run as the AI Agent has the engine run a tool (the tool type in an
 * ordinary execute context), on both flavours: Stop during Tool Wait cancels the job the node
 * started and leaves a job it only follows; a job reaching Tool Wait is an answer ("running"), not
 * a failure, and is left running; another item's failure is named by its own index.
 */
import { cloudForSuite, OUTLASTING_NODE_MS, txt2img, waitUntil } from '../../support/cloud';
import { registerToolTypes } from '../../support/tools';

describe.each([{ flavour: 'cloud' as const }, { flavour: 'self-hosted' as const }])('$flavour', ({ flavour }) => {
	const cloud = cloudForSuite({ flavour });
	beforeAll(() => registerToolTypes(cloud.harness));
	const jobs = () => [...cloud.sim.cloud.jobs.values()];

	const tool = (
		parameters: Record<string, unknown>,
		items: Array<{ json: Record<string, unknown> }>,
		signal?: AbortSignal,
		more: Record<string, unknown> = {},
	) =>
		cloud.harness.runNode(
			{
				name: 'Generate Image',
				type: 'hostCloudTool',
				parameters: { waitOptions: { pollIntervalSeconds: 0.05, silenceSeconds: 15 }, ...parameters },
				credentials: { hostCloudApi: cloud.credential },
				...more,
			} as never,
			items.map((item, i) => ({ json: { ...item.json, toolCallId: `call_${i}` } })),
			{ signal },
		);
	const generate = { resource: 'workflow', operation: 'execute', workflow: JSON.stringify(txt2img()), toolWaitSeconds: 30 };

	test('Stop during Tool Wait: the run ends canceled and the job this node started is cancelled', async () => {
		cloud.sim.options.nodeMs = OUTLASTING_NODE_MS;
		const stop = new AbortController();
		const running = tool(generate, [{ json: {} }], stop.signal);
		await waitUntil(() => jobs().some((job) => job.status === 'in_progress'));
		stop.abort();
		const result = await running;
		expect(result.status).toBe('canceled');
		expect(jobs().map((job) => job.status)).toEqual(['cancelled']);
	});

	test('Tool Wait reached by two items: both answer "running", one job each, none cancelled', async () => {
		cloud.sim.options.nodeMs = OUTLASTING_NODE_MS;
		const result = await tool({ ...generate, toolWaitSeconds: 1 }, [{ json: {} }, { json: {} }]);
		expect(result.status).toBe('success');
		expect(result.items.map((item) => item.json.status)).toEqual(['running', 'running']);
		expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(new Set(result.items.map((item) => item.json.prompt_id)).size).toBe(2);
		expect(jobs().filter((job) => job.status === 'cancelled')).toHaveLength(0);
		expect(cloud.sim.requestsTo('POST', '/api/prompt')).toHaveLength(2);
	});

	test('a refused submit of item 1 fails the call naming item 1', async () => {
		cloud.sim.options.nodeMs = OUTLASTING_NODE_MS;
		const result = await tool({ ...generate, toolWaitSeconds: 1, workflow: '={{ $json.workflow }}' }, [
			{ json: { workflow: JSON.stringify(txt2img()) } },
			{
				json: {
					workflow: JSON.stringify({
						...txt2img(),
						'3': { ...txt2img()['3']!, inputs: { ...txt2img()['3']!.inputs, sampler_name: 'warp' } },
					}),
				},
			},
		]);
		expect(result.status).toBe('error');
		expect((result.error('Generate Image') as { context?: { itemIndex?: number } }).context?.itemIndex).toBe(1);
	});

	test('Get Status as a tool, Stop: the job (not this node’s) is left running', async () => {
		cloud.sim.options.nodeMs = OUTLASTING_NODE_MS;
		const submitted = await cloud.harness.runNode(
			{
				type: 'hostCloud',
				parameters: { resource: 'workflow', operation: 'submit', workflow: JSON.stringify(txt2img()) },
				credentials: { hostCloudApi: cloud.credential },
			},
			[{ json: {} }],
		);
		const id = submitted.items[0]!.json.prompt_id as string;
		const stop = new AbortController();
		const running = tool({ resource: 'workflow', operation: 'getStatus', promptId: id, toolWaitSeconds: 30 }, [{ json: {} }], stop.signal);
		await waitUntil(() => cloud.sim.requestsTo('GET', '/api/').length > 0 && jobs()[0]!.status === 'in_progress');
		stop.abort();
		const result = await running;
		expect(result.status).toBe('canceled');
		expect(jobs()[0]!.status).toBe('in_progress');
	});
});
