/**
 * Outside attack on Host Cloud v2 against the simulator's v2 flavour and its faults: answers lost
 * after the job was made (reset, 500), with and without Retry On Fail, and a stream cut mid-job.
 * Counted in the simulator's own jobs: never a second paid job for one item; every exchange keeps
 * to the published contract.
 */
import { startSimulator, type V2Simulator } from '../../../../simulator/server';
import { EngineHarness } from '../../../support/engine';
import { txt2img } from '../../../support/cloud';
import { contractBreaches } from '../../../support/v2-contract';

const harness = new EngineHarness();
let sim: V2Simulator;
let credential: string;

beforeAll(async () => {
	sim = await startSimulator({ flavour: 'v2', v2: {} });
	credential = harness.addCredential('hostCloudV2Api', { baseUrl: sim.baseUrl, apiKey: sim.apiKey });
});
afterEach(() => {
	expect(contractBreaches(sim)).toEqual([]);
	sim.reset();
});
afterAll(async () => await sim.close());

const execute = (settings: Record<string, unknown> = {}) =>
	harness.runNode(
		{
			type: 'hostCloud',
			parameters: {
				apiGeneration: 'v2',
				resource: 'workflow',
				operation: 'execute',
				workflow: JSON.stringify(txt2img()),
				waitOptions: { pollIntervalSeconds: 0.1, maxWaitMinutes: 0.5, useWebSocket: true },
				downloadFiles: true,
			} as never,
			credentials: { hostCloudV2Api: credential },
			...settings,
		},
		[{ json: {} }],
	);

describe('the simulator, its faults', () => {
	test.each(['reset', 'upstream_error'] as const)(
		'a submit whose answer is lost (%s), with Retry On Fail (3 tries): one job in the simulator, the item fails naming the key',
		async (as) => {
			sim.faults.v2SubmitLost = { count: 1, as };
			const result = await execute({ retryOnFail: true, maxTries: 3, waitBetweenTries: 0 });

			expect(sim.v2.jobs.size).toBe(1);
			expect(result.status).toBe('error');
			expect(result.error('Node')?.message).toMatch(/Idempotency-Key [0-9a-f-]{36}/);
			expect(result.error('Node')?.message).not.toContain(sim.apiKey);
		},
	);

	test('a stream cut after its first event: one job, the job read once more, its outputs whole as links and binary data', async () => {
		sim.faults.v2DropStream = { afterEvents: 1 };
		const result = await execute();

		expect(result.status).toBe('success');
		expect(sim.v2.jobs.size).toBe(1);
		const item = result.items[0]!;
		expect(item.json.output_count).toBe(Object.keys(item.binary ?? {}).length);
		expect(Number(item.json.output_count)).toBeGreaterThan(0);
	});
});
