/** The editor's dropdowns of Host Cloud: a graph's nodes, a node's value inputs, its Load Image nodes. */
import type { ILoadOptionsFunctions } from 'n8n-workflow';

import { getImageLoaderNodes, getNodeInputs, getWorkflowNodes } from '../../../../nodes/HostCloud/methods/load-options';
import { graphNodeChoices } from '../../../../nodes/HostCloud/helpers/graph/node-choices';
import type { WorkflowGraph } from '../../../../nodes/HostCloud/helpers/graph/workflow-graph';
import { txt2img } from '../../../support/cloud';

describe('dropdowns of the editor', () => {
	const context = (parameters: Record<string, unknown>) =>
		({
			getCurrentNodeParameter: (name: string) => parameters[name],
			getNode: () => ({ name: 'Host Cloud', type: 'n8n-nodes-host.hostCloud', typeVersion: 1, position: [0, 0], parameters: {}, id: 'x' }),
		}) as unknown as ILoadOptionsFunctions;

	test('list the graph’s nodes, a node’s value inputs, and its Load Image nodes', async () => {
		const graph = {
			...txt2img(),
			'10': { class_type: 'LoadImage', inputs: { image: 'cat.png' }, _meta: { title: 'Photo' } },
		};
		const workflow = JSON.stringify(graph);
		const nodes = await getWorkflowNodes.call(context({ workflow }));
		expect(nodes.map((node) => node.value)).toEqual(['3', '4', '5', '6', '7', '8', '9', '10']);
		expect(nodes.at(-1)).toEqual({ name: '10 · LoadImage (Photo)', value: '10' });
		const inputs = await getNodeInputs.call(context({ workflow, '&nodeId': '3' }));
		expect(inputs.map((input) => input.value)).toEqual(['seed', 'steps', 'cfg', 'sampler_name', 'scheduler', 'denoise']);
		expect(inputs[1]).toMatchObject({ name: 'steps', description: 'Now: 20' });
		expect(await getImageLoaderNodes.call(context({ workflow }))).toEqual([{ name: '10 · LoadImage (Photo)', value: '10' }]);
		expect(graphNodeChoices(graph as WorkflowGraph, (node) => node.class_type === 'SaveImage')).toEqual([
			{ name: '9 · SaveImage', value: '9' },
		]);
	});

	test('a workflow that cannot be read says why', async () => {
		await expect(getWorkflowNodes.call(context({ workflow: '{"3": {' }))).rejects.toThrow(
			/^Workflow is not valid JSON.*list the workflow's nodes here/,
		);
		await expect(getNodeInputs.call(context({ workflow: '={{ $json.graph }}', '&nodeId': '3' }))).rejects.toThrow(
			/comes from an expression/,
		);
	});
});
