/**
 * Host Cloud's API-format graphs: reading and checking them (UI-format ones: ../ui-format/workflow.test.ts), setting inputs
 * and spotting partner nodes.
 */
import {
	applyInputOverrides,
	coerceInputValue,
	hasKnownPartnerNodes,
	hasPartnerNodes,
	parseWorkflowGraph,
	type WorkflowGraph,
} from '../../../../../nodes/HostCloud/helpers/graph/workflow-graph';
import { txt2img } from '../../../../support/cloud';

const FIELD = 'Workflow';

describe('parseWorkflowGraph', () => {
	test('reads JSON text or an object, and a whole submit body', () => {
		const graph = txt2img();
		expect(parseWorkflowGraph(JSON.stringify(graph), FIELD)).toEqual({ graph });
		expect(parseWorkflowGraph(graph, FIELD)).toEqual({ graph });
		expect(parseWorkflowGraph({ prompt: graph, extra_data: {} }, FIELD)).toEqual({ graph });
	});

	test('hands back a copy: changing it does not touch the parameter value', () => {
		const graph = txt2img();
		const parsed = parseWorkflowGraph(graph, FIELD) as { graph: WorkflowGraph };
		parsed.graph['3']!.inputs.seed = 1;
		expect(graph['3']!.inputs.seed).not.toBe(1);
	});

	test('hands a UI-format workflow (alone or inside a submit body) on to be converted', () => {
		const ui = { last_node_id: 2, nodes: [], links: [] };
		expect(parseWorkflowGraph(ui, FIELD)).toEqual({ uiWorkflow: ui });
		expect(parseWorkflowGraph(JSON.stringify({ prompt: { nodes: [], links: [], version: 0.4 } }), FIELD)).toEqual({
			uiWorkflow: { nodes: [], links: [], version: 0.4 },
		});
	});

	const problems: Array<[string, unknown, RegExp]> = [
		['bad JSON', '{"1":', /is not valid JSON/],
		['blank', '   ', /is empty/],
		['array', [], /must be a JSON object keyed by node id/],
		['number', 3, /must be a JSON object keyed by node id/],
		['no nodes', {}, /has no nodes/],
		['node not an object', { '1': 'x' }, /node "1" is not an object/],
		['empty class_type', { '1': { class_type: ' ', inputs: {} } }, /node "1" has no class_type/],
		['inputs not an object', { '1': { class_type: 'SaveImage', inputs: [] } }, /node "1" \(SaveImage\) has no inputs object/],
		[
			'dangling link',
			{ '1': { class_type: 'SaveImage', inputs: { images: ['7', 0] } } },
			/links to node "7", which is not in the workflow/,
		],
	];
	test.each(problems)('%s is refused with the field name', (_name, value, message) => {
		const result = parseWorkflowGraph(value, FIELD);
		expect('problem' in result && result.problem.message).toMatch(/^Workflow\b/);
		expect('problem' in result && result.problem.message).toMatch(message);
	});

	test('the hint says how to export the API format', () => {
		const result = parseWorkflowGraph('{"3": {', FIELD);
		expect('problem' in result && result.problem.hint).toMatch(/Export \(API\)/);
	});
});

describe('setting inputs', () => {
	test('values take the type the input holds now', () => {
		expect(coerceInputValue(20, '30')).toEqual({ value: 30 });
		expect(coerceInputValue(1.5, ' 0.25 ')).toEqual({ value: 0.25 });
		expect(coerceInputValue(20, 'lots')).toEqual({ problem: '"lots" is not a number' });
		expect(coerceInputValue(20, '')).toEqual({ problem: '"" is not a number' });
		expect(coerceInputValue(false, 'TRUE')).toEqual({ value: true });
		expect(coerceInputValue(true, 'yes')).toEqual({ problem: '"yes" is not true or false' });
		expect(coerceInputValue('euler', '42')).toEqual({ value: '42' });
		expect(coerceInputValue(undefined, '42')).toEqual({ value: 42 });
		expect(coerceInputValue(undefined, 'false')).toEqual({ value: false });
		expect(coerceInputValue(undefined, 'hello')).toEqual({ value: 'hello' });
		// Values that are not text (from expressions or AI agents) keep the input's kind, or are refused.
		expect(coerceInputValue('text', 7)).toEqual({ value: '7' });
		expect(coerceInputValue('text', true)).toEqual({ value: 'true' });
		expect(coerceInputValue(20, 7)).toEqual({ value: 7 });
		expect(coerceInputValue(undefined, 7)).toEqual({ value: 7 });
		expect(coerceInputValue('text', ['4', 0])).toEqual({ problem: 'a list was given (["4",0])' });
		expect(coerceInputValue(undefined, ['4', 0])).toEqual({ problem: 'a list was given (["4",0])' });
		expect(coerceInputValue(20, true)).toEqual({ problem: 'a boolean was given (true)' });
		expect(coerceInputValue(true, 1)).toEqual({ problem: 'a number was given (1)' });
		expect(coerceInputValue('text', { a: 1 })).toEqual({ problem: 'an object was given ({"a":1})' });
		expect(coerceInputValue({ __value__: ['a'] }, { __value__: ['b'] })).toEqual({ value: { __value__: ['b'] } });
	});

	test('overrides apply in order and name the entry at fault', () => {
		const graph = txt2img() as WorkflowGraph;
		expect(
			applyInputOverrides(
				graph,
				[
					{ nodeId: '6', inputName: 'text', value: 'a fox' },
					{ nodeId: ' 3 ', inputName: 'steps', value: '8' },
				],
				'Set Inputs',
			),
		).toBeUndefined();
		expect(graph['6']!.inputs.text).toBe('a fox');
		expect(graph['3']!.inputs.steps).toBe(8);
		expect(
			applyInputOverrides(
				graph,
				[
					{ nodeId: '6', inputName: 'text', value: 'x' },
					{ nodeId: '', inputName: 'a', value: 1 },
				],
				'Set Inputs',
			)?.message,
		).toBe('Set Inputs (entry 2) has no node');
		expect(applyInputOverrides(graph, [{ nodeId: '3', inputName: '', value: 1 }], 'Set Inputs')).toMatchObject({
			message: 'Set Inputs (entry 1) has no input name',
			hint: expect.stringContaining('seed, steps, cfg'),
		});
	});
});

describe('partner nodes', () => {
	const graph = (classType: string): WorkflowGraph => ({ '1': { class_type: classType, inputs: {} } });
	test('the node definitions decide where they know the class', () => {
		expect(hasPartnerNodes(graph('MyNode'), { MyNode: { api_node: true } })).toBe(true);
		expect(hasPartnerNodes(graph('MyNode'), { MyNode: { python_module: 'host_api_nodes.nodes_x' } })).toBe(true);
		expect(hasPartnerNodes(graph('MyNode'), { MyNode: { input: { hidden: { api_key_host_org: 'API_KEY_HOST_ORG' } } } })).toBe(true);
		expect(hasPartnerNodes(graph('KSampler'), { KSampler: { python_module: 'nodes' } })).toBe(false);
		// Known to the definitions as a plain node, even with a partner-like name.
		expect(hasPartnerNodes(graph('PartnerLookalike'), { PartnerLookalike: { api_node: false, python_module: 'nodes' } })).toBe(false);
	});

	test('the documented fallback list decides otherwise', () => {
		expect(hasPartnerNodes(graph('OpenAIGPTImage1'))).toBe(true);
		expect(hasPartnerNodes(graph('KlingTextToVideoNode'), {})).toBe(true);
		expect(hasPartnerNodes(graph('KSampler'))).toBe(false);
		expect(hasKnownPartnerNodes(graph('PartnerImageGenerate'))).toBe(true);
		expect(hasKnownPartnerNodes(graph('SaveImage'))).toBe(false);
	});
});
