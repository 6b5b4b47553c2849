/**
 * Host Cloud on the v2 jobs API in n8n 1.x: the v2 example runs as the 2.x suite runs it (its own v2
 * server and credential, support/example-checks.ts: the image is the job's output asset, every
 * exchange within the published contract); n8n's Stop of a running v2 Execute cancels its job
 * (n8n-workflow 1.x's sleep takes no signal: the wait must still end); and the Host Cloud V2 API
 * credential's test, through n8n 1.x's credential test endpoint, passes on a v2 server and fails on
 * a v1 one in words. The last case checks every exchange of the shared v2 server against the contract.
 */
import { V2_TEST_JOB_ID } from '../../../../credentials/v2-server';
import { contractBreaches } from '../../../support/v2-contract';
import { e2e } from '../../support/context';
import { exampleTestTimeoutMs, runExample } from '../../support/example-run';
import { startWithRunningV2Job, v2CancelPaths, withSimulatorTiming } from '../../support/in-flight';
import { outputItems } from '../../support/n8n-client';
import { useV2Server, V2_EXAMPLE } from '../../support/v2-server';
import { waitFor } from '../../support/wait';
import { loadExample } from '../../support/workflows';

/** Per graph node while the Stop case needs its job still running (7 nodes: about 20 s). */
const SLOW_NODE_MS = 3000;

describe('Host Cloud on the v2 jobs API in n8n 1.x', () => {
	const started = useV2Server(() => e2e());

	it(
		'v2-text-to-image.json runs on a v2 server and succeeds with its job’s image; every exchange is within the contract',
		async () => {
			const execution = await runExample(e2e(), loadExample(V2_EXAMPLE));
			expect(outputItems(execution, 'Text to Image')[0]?.json).toMatchObject({ status: 'succeeded' });
		},
		exampleTestTimeoutMs(V2_EXAMPLE),
	);

	it('n8n’s Stop of a running v2 Execute cancels exactly its job; the execution ends as canceled', async () => {
		const { client, importWorkflow } = e2e();
		const { simulator, credential } = started();
		const workflow = await importWorkflow(loadExample(V2_EXAMPLE).workflow, 'n8n 1.x: v2, to be stopped', { hostCloudV2Api: credential });
		const cancelsBefore = v2CancelPaths(simulator).length;
		await withSimulatorTiming(simulator, 'nodeMs', SLOW_NODE_MS, async () => {
			const { executionId, jobId } = await startWithRunningV2Job(client, simulator, workflow.id);
			await client.stopExecution(executionId);
			expect((await client.waitForExecution(executionId, { timeoutMs: 30000 })).status).toBe('canceled');
			await waitFor('the job to be canceled on the v2 server', () => simulator.v2.jobs.get(jobId)?.status === 'canceled', {
				timeoutMs: 15000,
			});
			expect(v2CancelPaths(simulator).slice(cancelsBefore)).toEqual([`/api/v2/jobs/${jobId}/cancel`]);
		});
	}, 60000);

	it('the Host Cloud V2 API credential test passes on the v2 server and fails on a v1 server, saying so; n8n asked each', async () => {
		const { client, simulator: v1 } = e2e();
		const { simulator, credential, credentialData } = started();
		const probe = `/api/v2/jobs/${V2_TEST_JOB_ID}`;
		const v1Before = v1.requestsTo('GET', probe).length;
		const v2Before = simulator.v2.exchanges.length;

		expect(await client.testCredential(credential)).toEqual({ status: 'OK', message: expect.any(String) });
		const onV1 = await client.testCredential(credential, { baseUrl: v1.baseUrl });

		expect(onV1).toEqual({ status: 'Error', message: expect.stringMatching(/^The Base URL answered, but not as a v2 API does/) });
		expect(onV1.message).toMatch(/needs the Host Cloud API credential instead/);
		expect(onV1.message).not.toContain(String(credentialData.apiKey));
		expect(v1.requestsTo('GET', probe).length - v1Before).toBe(1);
		expect(simulator.v2.exchanges.slice(v2Before).map((x) => `${x.method} ${x.path} → ${x.status}`)).toEqual([`GET ${probe} → 404`]);
	});

	it('every exchange the shared v2 server had in these cases is valid under the published contract', () => {
		const { simulator } = started();
		expect(simulator.v2.exchanges.length).toBeGreaterThan(0);
		expect(contractBreaches(simulator)).toEqual([]);
	});
});
