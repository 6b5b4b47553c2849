/**
 * Max Concurrent Jobs counted where a user feels it: the jobs not yet ended on the server at each
 * submit (the simulator's own records), on both flavours, at the field's bounds, with a failed job
 * under Continue On Fail, at Max Wait (cancel), after a failure without Continue On Fail, after a
 * Stop between submits, and while the cloud's socket drops or goes silent. Every item is paired
 * with its own job (its own prompt reached it). The field's value from an expression outside its
 * bounds is refused before anything is sent.
 */
import * as cloudApi from '../../../nodes/HostCloud/transport/cloud-api';
import { cloudForSuite, FAST_WAIT, OUTLASTING_NODE_MS, txt2img, type CloudSetup } from '../../support/cloud';
import type { Simulator } from '../../../simulator/server';

type SimJob = { status: string; graph: Record<string, { inputs: Record<string, unknown> }> };
const jobsOf = (sim: Simulator) => sim.cloud.jobs as unknown as Map<string, SimJob>;
const isOpen = (job: SimJob) => job.status === 'pending' || job.status === 'in_progress';

/** From now on, the number of jobs not yet ended on the server at each submit, the new one included. */
function countAtEachSubmit(sim: Simulator): number[] {
	const seen: number[] = [];
	const set = Map.prototype.set;
	(jobsOf(sim) as unknown as { set: unknown }).set = function (this: Map<string, SimJob>, key: string, job: SimJob) {
		seen.push([...this.values()].filter(isOpen).length + 1);
		return set.call(this, key, job);
	};
	return seen;
}

function stopCounting(sim: Simulator): void {
	delete (jobsOf(sim) as unknown as { set?: unknown }).set;
}

const itemsOf = (count: number) => Array.from({ length: count }, (_, i) => ({ json: { prompt: `item ${i}` } }));

function execute(
	cloud: CloudSetup,
	parameters: Record<string, unknown>,
	count: number,
	more: Record<string, unknown> = {},
	signal?: AbortSignal,
) {
	return cloud.harness.runNode(
		{
			type: 'hostCloud',
			parameters: {
				resource: 'workflow',
				operation: 'execute',
				workflow: JSON.stringify(txt2img()),
				inputOverrides: { values: [{ nodeId: '6', inputName: 'text', value: '={{ $json.prompt }}' }] },
				downloadFiles: false,
				waitOptions: { ...FAST_WAIT },
				...parameters,
			},
			credentials: { hostCloudApi: cloud.credential },
			...more,
		},
		itemsOf(count),
		{ signal },
	);
}

describe.each([{ flavour: 'cloud' as const }, { flavour: 'self-hosted' as const }])('on $flavour', ({ flavour }) => {
	// The account's own limit is well above the node's: what is counted is what the node sends.
	const cloud = cloudForSuite({ flavour, parallelLimit: 60 });
	const open = () => [...jobsOf(cloud.sim).values()].filter(isOpen);
	const submittedItems = () =>
		cloud.sim.requestsTo('POST', '/api/prompt').map((request) => JSON.parse(request.body).extra_data.n8n.item_index as number);
	const ownPrompt = (promptId: unknown) => jobsOf(cloud.sim).get(String(promptId))!.graph['6']!.inputs.text;

	afterEach(() => {
		stopCounting(cloud.sim);
		jest.restoreAllMocks();
	});

	// More items than places, by a few at the field's top (50): every job is one more submit, simulated
	// and run through n8n, so the counts stay where they prove the bound.
	test.each([
		[1, 12],
		[50, 55],
	])(
		'Max Concurrent Jobs %d, %d items: never more at once, each item paired with its own job',
		async (max, items) => {
			cloud.sim.options.nodeMs = 2;
			const seen = countAtEachSubmit(cloud.sim);
			const result = await execute(cloud, { additionalFields: { maxConcurrentJobs: max } }, items);
			expect(result.status).toBe('success');
			expect(seen).toHaveLength(items);
			expect(Math.max(...seen)).toBeLessThanOrEqual(max);
			result.items.forEach((item, i) => {
				expect(item.pairedItem).toEqual({ item: i });
				expect(ownPrompt(item.json.prompt_id)).toBe(`item ${i}`);
			});
		},
		60_000,
	);

	test('60 items, default Max Concurrent Jobs, one job failing under Continue On Fail: at most 3 at once, in order', async () => {
		cloud.sim.options.nodeMs = 1;
		const seen = countAtEachSubmit(cloud.sim);
		cloud.sim.cloud.failNextJob({ exception_type: 'OOMError', exception_message: 'CUDA out of memory', nodeId: '4' });
		const result = await execute(cloud, {}, 60, { continueOnFail: true });
		expect(result.status).toBe('success');
		expect(Math.max(...seen)).toBeLessThanOrEqual(3);
		expect(result.items.map((item) => item.json.error).filter((error) => error !== undefined)).toEqual([
			expect.stringMatching(/GPU memory/),
		]);
		result.items.forEach((item, i) => {
			expect(item.pairedItem).toEqual({ item: i });
			expect(ownPrompt(item.json.prompt_id)).toBe(`item ${i}`);
		});
	}, 120_000);

	test('Max Wait cancelling, Continue On Fail, Max Concurrent Jobs 2: a timed-out job has ended before the next submit', async () => {
		cloud.sim.options.nodeMs = OUTLASTING_NODE_MS;
		const seen = countAtEachSubmit(cloud.sim);
		const result = await execute(
			cloud,
			{ waitOptions: { ...FAST_WAIT, maxWaitMinutes: 0.02 }, additionalFields: { maxConcurrentJobs: 2 } },
			5,
			{
				continueOnFail: true,
			},
		);
		expect(result.items.map((item) => item.pairedItem)).toEqual([0, 1, 2, 3, 4].map((item) => ({ item })));
		for (const item of result.items) expect(item.json.error).toMatch(/Max Wait/);
		expect(Math.max(...seen)).toBeLessThanOrEqual(2);
		expect(open()).toEqual([]);
	}, 60_000);

	test('a job failing without Continue On Fail (Max Concurrent Jobs 3, 12 items): nothing more submitted, nothing left running', async () => {
		cloud.sim.options.nodeMs = 100;
		cloud.sim.cloud.failNextJob({ exception_type: 'OOMError', exception_message: 'CUDA out of memory', nodeId: '4' });
		const result = await execute(cloud, { additionalFields: { maxConcurrentJobs: 3 } }, 12);
		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toMatch(/GPU memory/);
		expect((result.error('Node') as { context?: { itemIndex?: number } }).context?.itemIndex).toBe(0);
		expect(submittedItems()).toEqual([0, 1, 2]);
		expect(open()).toEqual([]);
	}, 60_000);

	test.each([0, 5])(
		'Stop as submit %d begins (Max Concurrent Jobs 3, 10 items): nothing more sent, nothing left running',
		async (at) => {
			// Quick jobs, so that items 3 and 4 get their places; the run is stopped before the job it would make.
			cloud.sim.options.nodeMs = at === 5 ? 1 : OUTLASTING_NODE_MS / 10;
			const stop = new AbortController();
			const original = cloudApi.submitPrompt;
			let calls = 0;
			jest.spyOn(cloudApi, 'submitPrompt').mockImplementation(async (...args) => {
				if (calls++ >= at) stop.abort();
				return await original(...args);
			});
			const result = await execute(cloud, { additionalFields: { maxConcurrentJobs: 3 } }, 10, {}, stop.signal);
			expect(result.status).toBe('canceled');
			expect(submittedItems().length).toBeLessThanOrEqual(at);
			expect(open()).toEqual([]);
		},
		60_000,
	);
});

describe('on the cloud, with a socket that breaks', () => {
	const cloud = cloudForSuite({ parallelLimit: 60 });
	afterEach(() => stopCounting(cloud.sim));

	test.each([
		['drops', { dropWebSocket: { afterMessages: 40 } }],
		['goes silent', { silenceWebSocket: { afterMessages: 40, ms: 3000 } }],
	])(
		'the socket %s mid-run (12 items, Max Concurrent Jobs 2): never more at once, each item its own job',
		async (_what, fault) => {
			cloud.sim.options.nodeMs = 20;
			Object.assign(cloud.sim.faults, fault);
			const seen = countAtEachSubmit(cloud.sim);
			const result = await execute(
				cloud,
				{ waitOptions: { ...FAST_WAIT, silenceSeconds: 1 }, additionalFields: { maxConcurrentJobs: 2 } },
				12,
			);
			expect(result.status).toBe('success');
			expect(Math.max(...seen)).toBeLessThanOrEqual(2);
			result.items.forEach((item, i) => {
				expect(item.pairedItem).toEqual({ item: i });
				expect(jobsOf(cloud.sim).get(String(item.json.prompt_id))!.graph['6']!.inputs.text).toBe(`item ${i}`);
			});
		},
		60_000,
	);

	test.each(['0', '-1', '51', '2.5', '"three"', '1e9'])(
		'Max Concurrent Jobs %s from an expression is refused, naming it, before any submit',
		async (value) => {
			const result = await execute(cloud, { additionalFields: { maxConcurrentJobs: `={{ ${value} }}` } }, 2);
			expect(result.status).toBe('error');
			expect(result.error('Node')?.message).toMatch(/Max Concurrent Jobs/);
			expect(cloud.sim.requestsTo('POST', '/api/prompt')).toHaveLength(0);
		},
	);
});
