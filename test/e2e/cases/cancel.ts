/** Stopping a running execution in n8n cancels the node's own cloud jobs (POST /api/queue delete). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { e2e } from '../support/context';
import { startWithRunningCloudJob, withSimulatorTiming } from '../support/in-flight';
import { waitFor } from '../support/wait';
import { hostNodeType, linearWorkflow, manualTriggerNode } from '../support/workflows';

const GRAPH = readFileSync(join(__dirname, '..', '..', 'fixtures', 'txt2img-api.json'), 'utf8');

describe('cancelling in n8n', () => {
	it('stopping a running Host Cloud execution cancels its jobs on the cloud', async () => {
		const { client, importWorkflow, simulator } = e2e();
		const workflow = await importWorkflow(
			linearWorkflow('Host Cloud: to be stopped', [
				manualTriggerNode(),
				{
					name: 'Run graph',
					type: hostNodeType('hostCloud'),
					typeVersion: 1,
					parameters: { resource: 'workflow', operation: 'execute', workflow: GRAPH },
					credentials: { hostCloudApi: { name: 'Host Cloud API' } },
				},
			]),
		);
		await withSimulatorTiming(simulator, 'nodeMs', 3000, async () => {
			const { executionId, promptId } = await startWithRunningCloudJob(client, simulator, workflow.id);
			await client.stopExecution(executionId);
			const stopped = await client.waitForExecution(executionId, { timeoutMs: 30000 });
			expect(stopped.status).toBe('canceled');
			await waitFor('the job to be cancelled on the cloud', () => simulator.cloud.jobs.get(promptId)?.status === 'cancelled');
			const deletes = simulator.requestsTo('POST', '/api/queue').map((r) => JSON.parse(r.body) as { delete?: string[] });
			expect(deletes.some((body) => body.delete?.includes(promptId))).toBe(true);
			// Only its own job: nothing interrupts the account's other work.
			expect(simulator.requestsTo('POST', '/api/interrupt')).toHaveLength(0);
		});
	});
});
