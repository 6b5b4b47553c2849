/**
 * Workflow → Get Job Workflow through n8n's engine against the simulator's v2 flavour: a job
 * submitted over the v2 API answers its graph (`format: api`), ready for Execute; one started from
 * the cloud's editor answers the saved workflow (`format: save`) with the converter's hint; a job
 * past its retention is the contract's `404 not_found`, named; a read over the account's rate is
 * waited out per Retry-After. On the cloud and on a deployment behind a gateway's mount prefix;
 * every exchange ends validated against the published contract.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { startSimulator, type V2Simulator } from '../../../../simulator/server';
import { EngineHarness } from '../../../support/engine';
import { contractBreaches } from '../../../support/v2-contract';

const GRAPH = JSON.parse(readFileSync(join(__dirname, '../../../fixtures/txt2img-api.json'), 'utf8')) as Record<string, unknown>;
const UI = { nodes: [{ id: 3, type: 'KSampler', widgets_values: [5] }], links: [], version: 0.4 };

describe.each([
	{ surface: 'cloud' as const, mountPrefix: '' },
	{ surface: 'deployment' as const, mountPrefix: '/deployment/dep-1' },
])('on the $surface surface', ({ surface, mountPrefix }) => {
	const harness = new EngineHarness();
	let sim: V2Simulator;
	let credential: string;

	beforeAll(async () => {
		sim = await startSimulator({ flavour: 'v2', v2: { surface, mountPrefix } });
		credential = harness.addCredential('hostCloudV2Api', { baseUrl: sim.baseUrl, apiKey: sim.apiKey });
	});
	afterEach(() => {
		expect(contractBreaches(sim)).toEqual([]);
		sim.reset();
	});
	afterAll(async () => {
		await sim.close();
	});

	/** A job made over the v2 API itself (the node's own Submit on v2 is another helper's). */
	async function submitted(): Promise<string> {
		const answer = await fetch(`${sim.baseUrl}/api/v2/jobs`, {
			method: 'POST',
			headers: { authorization: `Bearer ${sim.apiKey}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
			body: JSON.stringify({ workflow: GRAPH }),
		});
		expect(answer.status).toBe(201);
		return ((await answer.json()) as { id: string }).id;
	}

	const getJobWorkflow = (jobId: string) =>
		harness.runNode({
			type: 'hostCloud',
			parameters: { apiGeneration: 'v2', resource: 'workflow', operation: 'getJobWorkflow', jobId } as never,
			credentials: { hostCloudV2Api: credential },
			continueOnFail: true,
		});

	test('a job submitted over v2: format api, the graph it ran, ready for Execute', async () => {
		const jobId = await submitted();
		const json = (await getJobWorkflow(jobId)).items[0]!.json;
		expect(json).toMatchObject({ job_id: jobId, prompt_id: jobId, format: 'api', workflow: GRAPH });
		expect(json.hint).toMatch(/pass workflow to Execute or Submit/);
	});

	test('a job started from the editor: format save, the saved workflow, with the converter’s hint', async () => {
		const jobId = await submitted();
		sim.v2.markFromEditor(jobId, UI);
		const json = (await getJobWorkflow(jobId)).items[0]!.json;
		expect(json).toMatchObject({ job_id: jobId, format: 'save', workflow: UI });
		expect(json.hint).toMatch(/Convert to API Format on a v1 credential/);
	});

	test('a job past its retention: 404 not_found, named, with its hint', async () => {
		const jobId = await submitted();
		sim.v2.passRetention(jobId);
		const json = (await getJobWorkflow(jobId)).items[0]!.json;
		expect(json).toMatchObject({ error_code: 'not_found', httpCode: '404' });
		expect(json.error).toMatch(new RegExp(`^Not found while reading the workflow of job ${jobId} \\(HTTP 404 not_found\\)`));
		expect(json.errorDetails).toMatch(/past its retention/);
	});

	test('a read over the account’s rate (429 rate_limited, Retry-After 1) is waited out and sent again', async () => {
		const jobId = await submitted();
		sim.options.v2 = { ...sim.options.v2, rateLimitAfter: 1, retryAfterSeconds: 1 };
		try {
			// One read fills the window: the node's first read is over the rate.
			expect((await fetch(`${sim.baseUrl}/api/v2/jobs/${jobId}`, { headers: { authorization: `Bearer ${sim.apiKey}` } })).status).toBe(200);
			const json = (await getJobWorkflow(jobId)).items[0]!.json;
			expect(json).toMatchObject({ format: 'api', waited_for_service_seconds: expect.any(Number) });
		} finally {
			sim.options.v2 = { ...sim.options.v2, rateLimitAfter: undefined };
		}
		const reads = sim.v2.exchanges.filter((x) => x.method === 'GET' && x.path.endsWith('/workflow')).map((x) => x.status);
		expect(reads[0]).toBe(429);
		expect(reads.at(-1)).toBe(200);
	});
});
