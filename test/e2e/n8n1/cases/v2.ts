/**
 * Host Cloud on the v2 jobs API in n8n 1.x: the v2 example runs as the 2.x suite runs it (its own v2
 * server and credential, support/example-checks.ts: the image is the job's output asset, every
 * exchange within the published contract), and the Host Cloud V2 API credential's test, through
 * n8n 1.x's credential test endpoint, passes on a v2 server and fails on a v1 one in words.
 */
import { V2_TEST_JOB_ID } from '../../../../credentials/v2-server';
import { contractBreaches } from '../../../support/v2-contract';
import { e2e } from '../../support/context';
import { exampleTestTimeoutMs, runExample } from '../../support/example-run';
import { outputItems } from '../../support/n8n-client';
import { startV2Server, V2_EXAMPLE } from '../../support/v2-server';
import { loadExample } from '../../support/workflows';

describe('Host Cloud on the v2 jobs API in n8n 1.x', () => {
	it(
		'v2-text-to-image.json runs on a v2 server and succeeds with its job’s image; every exchange is within the contract',
		async () => {
			const execution = await runExample(e2e(), loadExample(V2_EXAMPLE));
			expect(outputItems(execution, 'Text to Image')[0]?.json).toMatchObject({ status: 'succeeded' });
		},
		exampleTestTimeoutMs(V2_EXAMPLE),
	);

	it('the Host Cloud V2 API credential test passes on the v2 server and fails on a v1 server, saying so; n8n asked each', async () => {
		const stack = e2e();
		const server = await startV2Server(stack);
		try {
			const { client, simulator: v1 } = stack;
			const probe = `/api/v2/jobs/${V2_TEST_JOB_ID}`;
			const v1Before = v1.requestsTo('GET', probe).length;

			expect(await client.testCredential(server.credential)).toEqual({ status: 'OK', message: expect.any(String) });
			const onV1 = await client.testCredential(server.credential, { baseUrl: v1.baseUrl });

			expect(onV1).toEqual({ status: 'Error', message: expect.stringMatching(/^The Base URL answered, but not as a v2 API does/) });
			expect(onV1.message).toMatch(/needs the Host Cloud API credential instead/);
			expect(onV1.message).not.toContain(String(server.credentialData.apiKey));
			expect(v1.requestsTo('GET', probe).length - v1Before).toBe(1);
			expect(server.simulator.v2.exchanges.map((x) => `${x.method} ${x.path} → ${x.status}`)).toEqual([`GET ${probe} → 404`]);
			expect(contractBreaches(server.simulator)).toEqual([]);
		} finally {
			await server.close();
		}
	});
});
