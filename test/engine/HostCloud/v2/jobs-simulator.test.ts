/**
 * Host Cloud's jobs on v2 through n8n's engine against the simulator's v2 flavour, on the surfaces
 * that matter: the cloud (outputs' bytes behind a 302 to signed storage, a bearer key), a
 * deployment behind a gateway's mount prefix, and a self-hosted proxy without a key. Each test ends
 * with every exchange checked against the published contract (`test/support/v2-contract.ts`).
 */
import type { INodeParameters } from 'n8n-workflow';

import { startSimulator, type V2Simulator, type V2SimulatorOptions } from '../../../../simulator/server';
import { EngineHarness, readBinary } from '../../../support/engine';
import { txt2img } from '../../../support/cloud';
import { contractBreaches } from '../../../support/v2-contract';

const QUICK = { pollIntervalSeconds: 0.1, maxWaitMinutes: 0.5, useWebSocket: true };

describe.each([
	{ surface: 'cloud' as const, v2: { surface: 'cloud' as const } },
	{ surface: 'a deployment behind a mount prefix' as const, v2: { surface: 'deployment' as const, mountPrefix: '/deployment/dep-1' } },
	{ surface: 'self-hosted without a key' as const, v2: { surface: 'self-hosted' as const } },
])('on $surface', ({ v2 }) => {
	let sim: V2Simulator;
	let harness: EngineHarness;
	let credential: string;
	let baseline: V2Simulator['options'];
	const options: Omit<V2SimulatorOptions, 'flavour'> = { nodeMs: 5, v2 };
	beforeAll(async () => {
		sim = await startSimulator({ ...options, flavour: 'v2' });
		baseline = { ...sim.options };
		harness = new EngineHarness();
		const apiKey = v2.surface === 'self-hosted' ? '' : sim.apiKey;
		credential = harness.addCredential('hostCloudV2Api', { baseUrl: sim.baseUrl, apiKey }, 'Host Cloud V2 API');
	});
	afterEach(() => {
		const breaches = contractBreaches(sim);
		Object.assign(sim.options, baseline);
		sim.reset();
		expect(breaches).toEqual([]);
	});
	afterAll(async () => await sim.close());

	const node = (parameters: Record<string, unknown>, settings: Record<string, unknown> = {}) => ({
		type: 'hostCloud',
		parameters: { apiGeneration: 'v2', ...parameters },
		credentials: { hostCloudV2Api: credential },
		...settings,
	});
	const execute = (more: Record<string, unknown> = {}) =>
		node({
			resource: 'workflow',
			operation: 'execute',
			workflow: JSON.stringify(txt2img()),
			waitOptions: QUICK,
			downloadFiles: false,
			...more,
		});
	const jobs = () => [...sim.v2.jobs.values()];
	const submits = () => sim.v2.exchanges.filter((x) => x.method === 'POST' && /\/api\/v2\/jobs$/.test(x.path));

	test('Execute submits one job per item and outputs its outputs as links, each item paired with its own job', async () => {
		const result = await harness.runNode(execute(), [{ json: {} }, { json: {} }]);

		expect(result.status).toBe('success');
		expect(jobs()).toHaveLength(2);
		for (const [index, item] of result.items.entries()) {
			const job = sim.v2.jobs.get(item.json.job_id as string)!;
			expect(job.status).toBe('succeeded');
			expect(item.json.prompt_id).toBe(job.id);
			expect(item.pairedItem).toEqual({ item: index });
			const listed = [...(item.json.images as Array<{ asset_id: string }>)].map((file) => file.asset_id);
			expect(listed).toEqual(job.outputs.filter((o) => o.asset.contentType.startsWith('image/')).map((o) => o.asset.id));
		}
		expect(new Set(result.items.map((item) => item.json.job_id)).size).toBe(2);
	});

	test.each([true, false])(
		'Max Wait 0 waits without limit, as its description says (live progress %s): the job runs to its outputs, none is cancelled',
		async (useWebSocket) => {
			sim.options.nodeMs = 150;
			const result = await harness.runNode(execute({ waitOptions: { ...QUICK, maxWaitMinutes: 0, useWebSocket } }), [{ json: {} }]);

			expect(result.error('Node')?.message).toBeUndefined();
			expect(result.status).toBe('success');
			expect(jobs().map((job) => job.status)).toEqual(['succeeded']);
			expect(result.items[0]!.json.job_id).toBe(jobs()[0]!.id);
			expect(sim.v2.exchanges.filter((x) => x.method === 'POST' && x.path.endsWith('/cancel'))).toEqual([]);
		},
	);

	test("Download Files puts each output's bytes in binary data (waits for the asset helper's assetToBinary)", async () => {
		const result = await harness.runNode(execute({ downloadFiles: true }), [{ json: {} }]);

		expect(result.error('Node')?.message).toBeUndefined();
		expect(result.status).toBe('success');
		const job = jobs()[0]!;
		const first = job.outputs[0]!.asset;
		const bytes = await readBinary(result.items[0]!.binary!.data!);
		expect(bytes.length).toBe(first.size);
	});

	test('an answer lost after the job was made: the item fails naming the key, and there is exactly one job', async () => {
		sim.faults.v2SubmitLost = { count: 1, as: 'reset' };
		const result = await harness.runNode(execute(), [{ json: {} }]);

		expect(result.status).toBe('error');
		expect(jobs()).toHaveLength(1);
		const keys = submits().map((x) => x.headers['idempotency-key']);
		expect(keys).toHaveLength(2);
		expect(keys[1]).toBe(keys[0]);
		expect(result.error('Node')?.message).toContain(`Idempotency-Key ${keys[0]}`);
	});

	test('a dropped stream is re-synced with a read, and the job still ends with its outputs', async () => {
		sim.options.nodeMs = 100;
		sim.faults.v2DropStream = { afterEvents: 1 };
		const result = await harness.runNode(execute(), [{ json: {} }]);

		expect(result.status).toBe('success');
		expect(result.items[0]!.json.status).toBe('succeeded');
		const streams = sim.v2.exchanges.filter((x) => x.method === 'GET' && x.path.endsWith('/events'));
		expect(streams.length).toBeGreaterThanOrEqual(2);
	});

	test('a job failing at a node fails its item (Continue On Fail) with the node, its class and the code', async () => {
		sim.faults.v2FailNextJob = { nodeId: '3', message: 'out of memory' };
		const result = await harness.runNode(execute(), [{ json: {} }], {});
		// The fault is spent on the first job: set again for the second.
		sim.faults.v2FailNextJob = { nodeId: '3', message: 'out of memory' };
		const continued = await harness.runNode(node(execute().parameters, { continueOnFail: true }), [{ json: {} }]);

		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toMatch(/failed at node 3 \(KSampler\)/);
		expect(continued.status).toBe('success');
		expect(continued.items[0]!.json).toMatchObject({ job_id: jobs()[1]!.id, node_id: '3', class_type: 'KSampler' });
		expect(continued.items[0]!.pairedItem).toEqual({ item: 0 });
	});

	test("n8n's Stop cancels the job Execute submitted", async () => {
		sim.options.nodeMs = 60_000;
		const stop = new AbortController();
		const running = harness.runNode(execute(), [{ json: {} }], { signal: stop.signal });
		while (jobs().length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
		stop.abort();
		await running;
		for (let i = 0; i < 200 && !['canceled', 'canceling'].includes(jobs()[0]!.status); i++)
			await new Promise((resolve) => setTimeout(resolve, 20));
		expect(['canceled', 'canceling']).toContain(jobs()[0]!.status);
	});

	test('Submit, then Wait for Completion, Get Status and Cancel Jobs by the job id', async () => {
		const submitted = await harness.runNode(node({ resource: 'workflow', operation: 'submit', workflow: JSON.stringify(txt2img()) }), [
			{ json: {} },
		]);
		const id = submitted.items[0]!.json.prompt_id as string;
		const waited = await harness.runNode(
			node({ resource: 'workflow', operation: 'waitForCompletion', promptId: id, waitOptions: QUICK, downloadFiles: false }),
			[{ json: {} }],
		);
		expect(waited.items[0]!.json).toMatchObject({ job_id: id, status: 'succeeded' });
		const status = await harness.runNode(node({ resource: 'workflow', operation: 'getStatus', promptId: id }), [{ json: {} }]);
		expect(status.items[0]!.json).toMatchObject({ job_id: id, status: 'succeeded', finished: true });
		const cancelled = await harness.runNode(node({ resource: 'queue', operation: 'cancelJobs', promptIds: id }), [{ json: {} }]);
		expect(cancelled.items[0]!.json).toEqual({ requested: [id], jobs: [{ job_id: id, prompt_id: id, status: 'succeeded' }] });
	});
});

describe('polling without a stream', () => {
	let sim: V2Simulator;
	let harness: EngineHarness;
	let credential: string;
	beforeAll(async () => {
		sim = await startSimulator({ flavour: 'v2', nodeMs: 150, v2: { events: 'not-implemented' } });
		harness = new EngineHarness();
		credential = harness.addCredential('hostCloudV2Api', { baseUrl: sim.baseUrl, apiKey: sim.apiKey }, 'Host Cloud V2 API');
	});
	afterAll(async () => await sim.close());

	test('SSE off (501): the job is polled at the Poll Interval (reads counted, not time)', async () => {
		const result = await harness.runNode(
			{
				type: 'hostCloud',
				parameters: {
					apiGeneration: 'v2',
					resource: 'workflow',
					operation: 'execute',
					workflow: JSON.stringify(txt2img()),
					waitOptions: { ...QUICK, pollIntervalSeconds: 0.25 },
					downloadFiles: false,
				},
				credentials: { hostCloudV2Api: credential },
			},
			[{ json: {} }],
		);

		expect(result.status).toBe('success');
		const job = [...sim.v2.jobs.values()][0]!;
		const ranMs = (job.completedAt ?? 0) - job.createdAt;
		const reads = sim.v2.exchanges.filter((x) => x.method === 'GET' && /\/api\/v2\/jobs\/[^/]+$/.test(x.path));
		// One read per Poll Interval while it ran, plus the last: never one per turn of the event loop.
		expect(reads.length).toBeLessThanOrEqual(Math.ceil(ranMs / 250) + 3);
		expect(sim.v2.exchanges.filter((x) => x.path.endsWith('/events'))).toHaveLength(1);
		expect(contractBreaches(sim)).toEqual([]);
	});
});

describe('limits the simulator sets', () => {
	const started: V2Simulator[] = [];
	afterAll(async () => await Promise.all(started.map(async (sim) => await sim.close())));
	async function runOn(options: Omit<V2SimulatorOptions, 'flavour'>, waitOptions: INodeParameters, count: number, places?: number) {
		const sim = await startSimulator({ ...options, flavour: 'v2' });
		started.push(sim);
		const harness = new EngineHarness();
		const credential = harness.addCredential('hostCloudV2Api', { baseUrl: sim.baseUrl, apiKey: sim.apiKey }, 'Host Cloud V2 API');
		const parameters = {
			apiGeneration: 'v2',
			resource: 'workflow',
			operation: 'execute',
			workflow: JSON.stringify(txt2img()),
			waitOptions,
			...(places ? { additionalFields: { maxConcurrentJobs: places } } : {}),
			downloadFiles: false,
		};
		const items = Array.from({ length: count }, () => ({ json: {} }));
		const result = await harness.runNode({ type: 'hostCloud', parameters, credentials: { hostCloudV2Api: credential } }, items);
		const submits = sim.v2.exchanges.filter((x) => x.method === 'POST' && /\/api\/v2\/jobs$/.test(x.path));
		return { sim, result, submits };
	}

	test('429 queue_full is waited out per Retry-After and the same key sent again: one job per item', async () => {
		const { sim, result, submits } = await runOn({ nodeMs: 100, v2: { queueLimit: 1, retryAfterSeconds: 1 } }, QUICK, 2, 2);

		expect(result.status).toBe('success');
		expect(sim.v2.jobs.size).toBe(2);
		const refused = submits.filter((x) => x.status === 429);
		expect(refused.length).toBeGreaterThanOrEqual(1);
		const taken = submits.filter((x) => x.status === 201).map((x) => x.headers['idempotency-key']);
		for (const x of refused) expect(taken).toContain(x.headers['idempotency-key']);
		expect(contractBreaches(sim)).toEqual([]);
	}, 30_000);

	test("a deployment's 429 deployment_not_ready is waited out and the same key sent again", async () => {
		const { sim, result, submits } = await runOn(
			{ nodeMs: 5, v2: { surface: 'deployment', mountPrefix: '/deployment/dep-1', notReadyForMs: 500, retryAfterSeconds: 1 } },
			QUICK,
			1,
		);

		expect(result.status).toBe('success');
		expect(sim.v2.jobs.size).toBe(1);
		expect(submits.map((x) => x.status)).toEqual([429, 201]);
		expect(new Set(submits.map((x) => x.headers['idempotency-key'])).size).toBe(1);
		expect(contractBreaches(sim)).toEqual([]);
	}, 30_000);

	test('one stream allowed: the other job gets 429 too_many_streams and is polled at once; both finish', async () => {
		const { sim, result } = await runOn({ nodeMs: 100, v2: { maxStreams: 1, retryAfterSeconds: 30 } }, QUICK, 2, 2);

		expect(result.status).toBe('success');
		expect(result.items.map((item) => item.json.status)).toEqual(['succeeded', 'succeeded']);
		const refused = sim.v2.exchanges.filter((x) => x.path.endsWith('/events') && x.status === 429);
		expect(refused.length).toBeGreaterThanOrEqual(1);
		expect(contractBreaches(sim)).toEqual([]);
	}, 30_000);
});
