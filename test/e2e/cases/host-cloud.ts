/** Host Cloud run through n8n's own execution (manual run, saved execution, run data over REST). */
import { e2e } from '../support/context';
import { describeFailure, outputItems } from '../support/n8n-client';
import { nodeDefinitionsWorkflow } from '../support/workflows';

describe('Host Cloud in n8n', () => {
	it('System → Get Node Definitions returns the simulator’s definition of the node class', async () => {
		const { client, importWorkflow, simulator } = e2e();
		const workflow = await importWorkflow(nodeDefinitionsWorkflow('KSampler'));
		const before = simulator.requestsTo('GET', '/api/object_info').length;

		const execution = await client.runWorkflow(workflow.id);

		expect(describeFailure(execution)).toBe('succeeded');
		const response = await fetch(`${simulator.baseUrl}/api/object_info`, { headers: { 'X-API-Key': simulator.apiKey } });
		const catalogue = (await response.json()) as Record<string, Record<string, unknown>>;
		const items = outputItems(execution, 'Get Node Definitions');
		expect(items).toHaveLength(1);
		expect(items[0]!.json).toEqual({ class_type: 'KSampler', ...catalogue.KSampler });
		expect(items[0]!.pairedItem).toEqual({ item: 0 });
		expect(simulator.requestsTo('GET', '/api/object_info').length).toBeGreaterThan(before);
	});
});
