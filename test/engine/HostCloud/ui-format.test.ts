/**
 * A workflow as people save it from the editor (UI format) through n8n's engine against the
 * simulator: it runs end to end, converted with the server's own node definitions (read once per
 * run, shared with partner-node detection); Set Inputs, Input Images and the editor's dropdowns work
 * on the converted nodes ("57:3" inside a subgraph); what cannot be converted is refused before
 * anything is submitted, naming the node; Convert to API Format returns the graph without running it.
 */
import { LoadOptionsContext } from 'n8n-core';
import type { INodeType, IWorkflowExecuteAdditionalData } from 'n8n-workflow';

import { cloudForSuite, FAST_WAIT, type Graph, TINY_PNG, txt2img } from '../../support/cloud';
import { nestedSubgraphs, rerouteChain } from '../../support/hostile-ui-workflows';
import { uiTxt2img, uiTxt2imgInSubgraph, uiWithCustomNode } from '../../support/ui-workflows';

const cloud = cloudForSuite();

type Item = { json: Record<string, unknown>; binaryBase64?: Record<string, { data: string; fileName?: string; mimeType?: string }> };

function run(parameters: Record<string, unknown>, items: Item[] = [{ json: {} }], options: { continueOnFail?: boolean } = {}) {
	return cloud.harness.runNode(
		{
			type: 'hostCloud',
			parameters: { resource: 'workflow', operation: 'execute', waitOptions: FAST_WAIT, ...parameters },
			credentials: { hostCloudApi: cloud.credential },
			continueOnFail: options.continueOnFail,
		},
		items,
	);
}

/** The graphs the simulator received, in order. */
function submitted(): Graph[] {
	return cloud.sim.requestsTo('POST', '/api/prompt').map((request) => (JSON.parse(request.body) as { prompt: Graph }).prompt);
}

const withoutMeta = (graph: Graph) => Object.fromEntries(Object.entries(graph).map(([id, { _meta, ...node }]) => [id, node]));

describe('a workflow saved from the editor runs as it is', () => {
	test('converted to the API format the server runs, titles kept in _meta; one read of the node definitions', async () => {
		const result = await run({ workflow: JSON.stringify(uiTxt2img()) });
		expect(result.status).toBe('success');
		expect(result.items[0]!.json).toMatchObject({ status: 'completed', images: [expect.objectContaining({ node_id: '9' })] });
		const [graph] = submitted();
		expect(withoutMeta(graph!)).toEqual(txt2img());
		expect(graph!['6']!._meta).toEqual({ title: 'Positive' });
		expect(graph!['8']!._meta).toEqual({ title: 'VAE Decode' });
		expect(cloud.sim.requestsTo('GET', '/api/object_info')).toHaveLength(1);
	});

	test('three items from an expression (text and objects): still one read of the definitions, shared with partner-node detection', async () => {
		const result = await run({ workflow: '={{ $json.workflow }}' }, [
			{ json: { workflow: uiTxt2img() } },
			{ json: { workflow: JSON.stringify(uiTxt2imgInSubgraph(false)) } },
			{ json: { workflow: txt2img() } },
		]);
		expect(result.error('Node')?.message).toBeUndefined();
		expect(result.items.map((item) => item.json.status)).toEqual(['completed', 'completed', 'completed']);
		expect(cloud.sim.requestsTo('GET', '/api/object_info')).toHaveLength(1);
		expect(submitted().map((graph) => Object.keys(graph).includes('57:3'))).toEqual([false, true, false]);
	});

	test('Set Inputs and Input Images address the converted nodes, subgraph ids ("57:3") included', async () => {
		const result = await run(
			{
				workflow: JSON.stringify(uiTxt2imgInSubgraph()),
				inputOverrides: {
					values: [
						{ nodeId: '57:3', inputName: 'seed', value: '42' },
						{ nodeId: '6', inputName: 'text', value: '={{ $json.prompt }}' },
					],
				},
				inputImages: { values: [{ binaryPropertyName: 'data', nodeId: '20' }] },
			},
			[
				{
					json: { prompt: 'a red fox in the snow' },
					binaryBase64: { data: { data: TINY_PNG.toString('base64'), fileName: 'fox.png', mimeType: 'image/png' } },
				},
			],
		);
		expect(result.status).toBe('success');
		const [graph] = submitted();
		expect(graph!['57:3']!.inputs.seed).toBe(42);
		expect(graph!['6']!.inputs.text).toBe('a red fox in the snow');
		expect(cloud.sim.cloud.uploads.map((upload) => upload.name)).toContain(graph!['20']!.inputs.image);
	});

	test('Submit takes a UI-format workflow too', async () => {
		const result = await cloud.harness.runNode({
			type: 'hostCloud',
			parameters: { resource: 'workflow', operation: 'submit', workflow: JSON.stringify(uiTxt2img()) },
			credentials: { hostCloudApi: cloud.credential },
		});
		expect(result.items[0]!.json).toMatchObject({ status: 'submitted', prompt_id: expect.any(String) });
		expect(withoutMeta(submitted()[0]!)).toEqual(txt2img());
	});
});

describe('refused before anything is submitted, naming the node', () => {
	function expectNothingSubmitted(): void {
		expect(cloud.sim.requestsTo('POST')).toHaveLength(0);
		expect(cloud.sim.cloud.wsHandshakes).toHaveLength(0);
	}

	test('a node type the server does not have (a custom node not installed there)', async () => {
		const result = await run({ workflow: JSON.stringify(uiWithCustomNode()) });
		const error = result.error('Node')!;
		expect(error.message).toBe(
			'Workflow: the server does not know the node type of node 30 "Fix faces" (FaceDetailerPlus): it may be a custom node that is not installed there',
		);
		expect(error.description).toMatch(/Install the custom node on the server/);
		expectNothingSubmitted();
	});

	test('widget values that do not fit the server’s definition', async () => {
		const workflow = uiTxt2img();
		workflow.nodes.find((node) => node.id === 5)!.widgets_values = [512, 'wide', 1];
		const error = (await run({ workflow: JSON.stringify(workflow) })).error('Node')!;
		expect(error.message).toBe(
			`Workflow: node 5 (EmptyLatentImage): its saved widget values do not fit the server's definition of EmptyLatentImage: value 2 of 3 in its widgets_values: read as widget "height", it should be a number, not "wide"`,
		);
		expectNothingSubmitted();
	});

	test('a link to a node that is missing; with Continue On Fail that item fails alone', async () => {
		const broken = uiTxt2img();
		broken.nodes = broken.nodes.filter((node) => node.id !== 4);
		const result = await run({ workflow: '={{ $json.workflow }}' }, [{ json: { workflow: broken } }, { json: { workflow: uiTxt2img() } }], {
			continueOnFail: true,
		});
		expect(result.items[0]!.json.error).toBe(
			'Workflow: node 6 "Positive" (CLIPTextEncode): input "clip" is linked to node 4, which is not in the workflow',
		);
		expect(result.items[1]!.json.status).toBe('completed');
		expect(cloud.sim.requestsTo('POST', '/api/prompt')).toHaveLength(1);
	});

	test('the node definitions cannot be read: the message says the UI format needed them; an API-format workflow still runs', async () => {
		// A refusal (not retried): the read fails at once.
		cloud.sim.faults.http5xx = { pathPrefix: '/api/object_info', count: 100, status: 403 };
		const ui = await run({ workflow: JSON.stringify(uiTxt2img()) });
		expect(ui.error('Node')?.message).toMatch(
			/^Workflow is in UI format, and the server's node definitions, needed to convert it, could not be read: .*HTTP 403/,
		);
		expect(cloud.sim.requestsTo('POST', '/api/prompt')).toHaveLength(0);
		const api = await run({ workflow: JSON.stringify(txt2img()) });
		expect(api.items[0]!.json.status).toBe('completed');
	});
});

describe('Convert to API Format', () => {
	test('returns the converted workflow without running it, with notes on what was assumed; an API-format one comes back as it is, with no request', async () => {
		const convert = (workflow: unknown) =>
			cloud.harness.runNode({
				type: 'hostCloud',
				parameters: {
					resource: 'workflow',
					operation: 'convert',
					workflow: JSON.stringify(workflow),
					inputOverrides: { values: [{ nodeId: '3', inputName: 'steps', value: '30' }] },
				},
				credentials: { hostCloudApi: cloud.credential },
			});
		const fromUi = await convert(uiTxt2img());
		expect(fromUi.items[0]!.json).toMatchObject({ converted: true, node_count: 7 });
		expect(fromUi.items[0]!.json.notes).toEqual(['node 13 (PreviewImage) is muted: not sent, and inputs linked to it are left out.']);
		const graph = fromUi.items[0]!.json.workflow as Graph;
		expect(graph['3']!.inputs.steps).toBe(30);
		expect(withoutMeta({ ...graph, '3': { ...graph['3']!, inputs: { ...graph['3']!.inputs, steps: 20 } } })).toEqual(txt2img());
		expect(cloud.sim.requestsTo('POST')).toHaveLength(0);
		expect(cloud.sim.requests.map((request) => request.path)).toEqual(['/api/object_info']);

		cloud.sim.reset();
		const fromApi = await convert(txt2img());
		expect(fromApi.items[0]!.json).toMatchObject({ converted: false, node_count: 7, notes: [] });
		expect(cloud.sim.requests).toHaveLength(0);
	});
});

describe('the editor’s dropdowns on a UI-format workflow', () => {
	/** Lists as the editor asks for them from the first entry of Set Inputs. */
	function loadOptions(method: 'getWorkflowNodes' | 'getNodeInputs' | 'getImageLoaderNodes', parameters: Record<string, unknown>) {
		const workflow = cloud.harness.buildWorkflow({
			nodes: [{ name: 'Node', type: 'hostCloud', parameters: parameters as never, credentials: { hostCloudApi: cloud.credential } }],
		});
		const node = workflow.getNode('Node')!;
		const additionalData = cloud.harness.additionalData('load-options') as IWorkflowExecuteAdditionalData & {
			currentNodeParameters?: unknown;
		};
		additionalData.currentNodeParameters = node.parameters;
		const context = new LoadOptionsContext(workflow, node, additionalData, 'parameters.inputOverrides.values[0].inputName');
		const type = cloud.harness.nodeTypes.getByNameAndVersion(node.type) as INodeType;
		return type.methods!.loadOptions![method]!.call(context);
	}

	test('list the converted nodes with their titles, a node’s inputs, and the Load Image nodes', async () => {
		const workflow = JSON.stringify(uiTxt2imgInSubgraph());
		const nodes = await loadOptions('getWorkflowNodes', { resource: 'workflow', operation: 'execute', workflow });
		expect(nodes.map((node) => node.name)).toEqual([
			'4 · CheckpointLoaderSimple (Load Checkpoint)',
			'5 · EmptyLatentImage (Empty Latent Image)',
			'6 · CLIPTextEncode (Positive)',
			'7 · CLIPTextEncode (Negative)',
			'9 · SaveImage (Save Image)',
			'20 · LoadImage (Reference photo)',
			'21 · PreviewImage (Preview Image)',
			'57:3 · KSampler',
			'57:8 · VAEDecode (VAE Decode)',
		]);
		const inputs = await loadOptions('getNodeInputs', {
			resource: 'workflow',
			operation: 'execute',
			workflow,
			inputOverrides: { values: [{ nodeId: '57:3' }] },
		});
		expect(inputs.map((input) => input.value)).toEqual(['seed', 'steps', 'cfg', 'sampler_name', 'scheduler', 'denoise']);
		const loaders = await loadOptions('getImageLoaderNodes', { resource: 'workflow', operation: 'execute', workflow });
		expect(loaders).toEqual([{ name: '20 · LoadImage (Reference photo)', value: '20' }]);
		expect(cloud.sim.requestsTo('GET', '/api/object_info')).toHaveLength(3);
	});
});

describe('hostile structure: the conversion has budgets', () => {
	test('Execute and Convert to API Format refuse a small workflow that expands to a million nodes, sending nothing', async () => {
		const workflow = JSON.stringify(nestedSubgraphs(6, 10));
		for (const operation of ['execute', 'convert']) {
			const result = await run({ operation, workflow }, [{ json: {} }], { continueOnFail: true });
			expect({ operation, error: result.items[0]!.json.error }).toEqual({
				operation,
				error: 'Workflow: the workflow expands to more than 20,000 nodes (subgraphs included), more than this node converts',
			});
		}
		expect(cloud.sim.requestsTo('POST', '/api/prompt')).toHaveLength(0);
	});

	test('2,000 reroutes read by 2,000 inputs run, every input linked to the real origin', async () => {
		const result = await run({ operation: 'convert', workflow: JSON.stringify(rerouteChain(2000, 2000)) });
		expect(result.status).toBe('success');
		const graph = result.items[0]!.json.workflow as Graph;
		const decoders = Object.values(graph).filter((node) => node.class_type === 'VAEDecode');
		expect(decoders).toHaveLength(2000);
		for (const decoder of decoders) expect(decoder.inputs.samples).toEqual(['1', 0]);
	});
});
