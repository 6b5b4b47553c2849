/**
 * Host Cloud's API-format graphs: reading and checking them (UI-format ones: ../ui-format/workflow.test.ts).
 */
import { parseWorkflowGraph, type WorkflowGraph } from '../../../../../nodes/HostCloud/helpers/graph/workflow-graph';
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
