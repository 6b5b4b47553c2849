/**
 * A workflow as saved from the ComfyUI editor (UI format, a subgraph inside) pasted into Host
 * Cloud in a real n8n: converted with the server's node definitions, Set Inputs on a node inside
 * the subgraph, run, and its image returned; Convert to API Format gives the graph without running.
 */
import { e2e } from '../support/context';
import { describeFailure, outputItems } from '../support/n8n-client';
import { hostNodeType, linearWorkflow, manualTriggerNode } from '../support/workflows';
import { uiTxt2imgInSubgraph } from '../../support/ui-workflows';

const PROMPT = 'a paper boat on a pond, e2e ui-format';

function hostCloud(name: string, parameters: Record<string, unknown>) {
	return {
		name,
		type: hostNodeType('hostCloud'),
		typeVersion: 2,
		parameters: { resource: 'workflow', ...parameters },
		credentials: { hostCloudApi: { name: 'Host Cloud API' } },
	};
}

describe('a UI-format workflow in n8n', () => {
	it('runs as saved from the editor, with Set Inputs on a node inside its subgraph', async () => {
		const { client, importWorkflow, simulator } = e2e();
		const workflow = await importWorkflow(
			linearWorkflow('Host Cloud: a workflow saved from the editor (e2e)', [
				manualTriggerNode(),
				hostCloud('Run saved workflow', {
					operation: 'execute',
					workflow: JSON.stringify(uiTxt2imgInSubgraph(false), null, 2),
					inputOverrides: {
						values: [
							{ nodeId: '6', inputName: 'text', value: PROMPT },
							{ nodeId: '57:3', inputName: 'steps', value: '7' },
						],
					},
				}),
			]),
		);
		const execution = await client.runWorkflow(workflow.id, { timeoutMs: 60000 });
		expect(describeFailure(execution)).toBe('succeeded');
		const [item] = outputItems(execution, 'Run saved workflow');
		expect(item!.json).toMatchObject({ status: 'completed', images: [expect.objectContaining({ node_id: '9', url: expect.any(String) })] });

		const sent = simulator
			.requestsTo('POST', '/api/prompt')
			.map((request) => (JSON.parse(request.body) as { prompt: Record<string, { inputs: Record<string, unknown> }> }).prompt)
			.find((graph) => graph['6']?.inputs.text === PROMPT);
		expect(sent?.['57:3']?.inputs).toMatchObject({ steps: 7, seed: 156680208700286, model: ['4', 0] });
		expect(sent?.['9']?.inputs.images).toEqual(['57:8', 0]);
	});

	it('Convert to API Format returns the graph without running it', async () => {
		const { client, importWorkflow, simulator } = e2e();
		const before = simulator.requestsTo('POST', '/api/prompt').length;
		const workflow = await importWorkflow(
			linearWorkflow('Host Cloud: convert a saved workflow (e2e)', [
				manualTriggerNode(),
				hostCloud('Convert', { operation: 'convert', workflow: JSON.stringify(uiTxt2imgInSubgraph(false)) }),
			]),
		);
		const execution = await client.runWorkflow(workflow.id);
		expect(describeFailure(execution)).toBe('succeeded');
		const [item] = outputItems(execution, 'Convert');
		expect(item!.json).toMatchObject({ converted: true, node_count: 7 });
		expect(Object.keys(item!.json.workflow as object).sort()).toEqual(['4', '5', '57:3', '57:8', '6', '7', '9']);
		expect(simulator.requestsTo('POST', '/api/prompt')).toHaveLength(before);
	});
});
