/**
 * What a subgraph instance's saved values give its definition, as the editor applies them, and what
 * the notes say when they do not pair up; node ids the file makes awkward (`__proto__`, duplicates
 * with a stale last_node_id); notes that stay small whatever the file's titles. One small
 * hand-written graph each.
 */
import { convertUiWorkflow } from '../../../../../nodes/HostCloud/helpers/ui-format/convert';
import { conversionNotes, type WorkflowGraph } from '../../../../../nodes/HostCloud/helpers/graph/workflow-graph';
import type { NodeDefinitions } from '../../../../../nodes/HostCloud/helpers/graph/class-definitions';
import { uiNode as node } from '../../../../support/ui-workflows';

const DEFINITIONS: NodeDefinitions = {
	Ints: {
		input: { required: { value: ['INT', { control_after_generate: true }] } },
		input_order: { required: ['value'] },
		output: ['INT'],
	},
	Latent: {
		input: { required: { width: ['INT', { default: 512 }], height: ['INT', { default: 512 }], batch_size: ['INT', { default: 1 }] } },
		input_order: { required: ['width', 'height', 'batch_size'] },
		output: ['LATENT'],
	},
	ShowAnything: { input: { required: { source: ['*', {}] } }, input_order: { required: ['source'] }, output: [] },
};

const SIZE = 'c0ffee00-0000-4000-8000-0000000000a1';
const TWO_INTS = 'c0ffee00-0000-4000-8000-0000000000a2';

const link = (id: number, originSlot: number, target: number, slot: number, type = 'INT') => ({
	id,
	origin_id: -10,
	origin_slot: originSlot,
	target_id: target,
	target_slot: slot,
	type,
});

/** The definition now: height, then width, then batch_size, each feeding the Latent widget of that name. */
const size = {
	id: SIZE,
	name: 'Size',
	inputs: [
		{ name: 'height', type: 'INT', linkIds: [1] },
		{ name: 'width', type: 'INT', linkIds: [2] },
		{ name: 'batch_size', type: 'INT', linkIds: [3] },
	],
	outputs: [],
	nodes: [
		node(1, 'Latent', {
			inputs: [
				['width', 'INT', 2, 'width'],
				['height', 'INT', 1, 'height'],
				['batch_size', 'INT', 3, 'batch_size'],
			],
			values: [64, 64, 9],
		}),
	],
	links: [link(1, 0, 1, 1), link(2, 1, 1, 0), link(3, 2, 1, 2)],
};

/** Inputs a and b, feeding the seed-like `value` of inner nodes 1 and 2 (each with a control after it). */
const twoInts = {
	id: TWO_INTS,
	name: 'Two ints',
	inputs: [
		{ name: 'a', type: 'INT', linkIds: [1] },
		{ name: 'b', type: 'INT', linkIds: [2] },
	],
	outputs: [],
	nodes: [
		node(1, 'Ints', { inputs: [['value', 'INT', 1, 'value']], outputs: ['INT'], values: [0, 'fixed'] }),
		node(2, 'Ints', { inputs: [['value', 'INT', 2, 'value']], outputs: ['INT'], values: [0, 'fixed'] }),
	],
	links: [link(1, 0, 1, 0), link(2, 1, 2, 0)],
};

type SavedInput = [string, string, null, string];
const widthHeight: SavedInput[] = [
	['width', 'INT', null, 'width'],
	['height', 'INT', null, 'height'],
];

function workflow(nodes: unknown[], links: unknown[] = [], more: Record<string, unknown> = {}) {
	return { last_node_id: 20, nodes, links, definitions: { subgraphs: [size, twoInts] }, version: 0.4, ...more };
}

function converted(ui: Record<string, unknown>): { graph: WorkflowGraph; notes: string[] } {
	const result = convertUiWorkflow(ui, DEFINITIONS, 'Workflow');
	if ('problem' in result) throw new Error(result.problem.message);
	return { graph: result.graph, notes: conversionNotes(result.graph) };
}

const sizeHost = (values: unknown[], proxyWidgets?: unknown, inputs: SavedInput[] = widthHeight) => {
	const host = node(5, SIZE, { inputs, values });
	if (proxyWidgets !== undefined) host.properties.proxyWidgets = proxyWidgets;
	return host;
};

describe('without proxyWidgets, a host’s values go to its promoted inputs in the order it saved them', () => {
	test('saved as [width, height] = [640, 480], the definition now [height, width]: width 640, height 480', () => {
		const { graph, notes } = converted(workflow([sizeHost([640, 480])]));
		expect(graph['5:1']!.inputs).toEqual({ width: 640, height: 480, batch_size: 9 });
		expect(notes).toEqual([
			'node 5 (subgraph "Size") was saved with other inputs than the subgraph has now: rebound as the editor does when it opens the file ("width", "height" matched by name).',
		]);
	});

	test('saved as [b, a] with each seed’s control after it ([7, "fixed", 9, "randomize"]): b 7, a 9', () => {
		const host = node(5, TWO_INTS, {
			inputs: [
				['b', 'INT', null, 'b'],
				['a', 'INT', null, 'a'],
			],
			values: [7, 'fixed', 9, 'randomize'],
		});
		const { graph } = converted(workflow([host]));
		expect([graph['5:1']!.inputs.value, graph['5:2']!.inputs.value]).toEqual([9, 7]);
	});
});

describe('a host whose values and promoted widgets do not pair up says so, naming the instance and the widgets', () => {
	const list = [
		['-1', 'width'],
		['-1', 'batch_size'],
	];

	test('fewer values than widgets: the one without a value keeps the subgraph’s, and a note names it', () => {
		const { graph, notes } = converted(workflow([sizeHost([640], list)]));
		expect(graph['5:1']!.inputs).toEqual({ width: 640, height: 64, batch_size: 9 });
		expect(notes).toContain(
			'node 5 (subgraph "Size"): the file has no value for its promoted widgets "batch_size": the values inside the subgraph are sent, as the editor does.',
		);
	});

	test('more values than widgets: the rest are not sent, and a note shows them', () => {
		const { graph, notes } = converted(workflow([sizeHost([640, 2, 99], list)]));
		expect(graph['5:1']!.inputs).toEqual({ width: 640, height: 64, batch_size: 2 });
		expect(notes).toContain(
			'node 5 (subgraph "Size"): 1 saved value after its promoted widgets ([99]) not sent: the editor ignores values beyond an instance\'s widgets.',
		);
	});

	test('entries naming nothing in the subgraph: their values are not used, and a note names them', () => {
		const entries = [
			['-1', 'depth'],
			['7', 'width'],
			['1', 'sampler'],
			['-1', 'width'],
		];
		const { graph, notes } = converted(workflow([sizeHost([1, 2, 3, 640], entries)]));
		expect(graph['5:1']!.inputs.width).toBe(640);
		expect(notes).toContain(
			'node 5 (subgraph "Size"): its promoted widgets "depth", "width (node 7)", "sampler (node 1)" name nothing in the subgraph: their values are not used, as in the editor.',
		);
	});

	test('entries naming widgets the editor never sends (an image preview, a seed’s control) take their value’s place, with no note', () => {
		const entries = [
			['1', '$$canvas-image-preview'],
			['1', 'control_after_generate'],
			['-1', 'width'],
		];
		const { graph, notes } = converted(workflow([sizeHost([null, 'fixed', 640], entries, [])]));
		expect(graph['5:1']!.inputs.width).toBe(640);
		expect(notes).toEqual([]);
	});

	test.each([
		['with proxyWidgets', list],
		['without', undefined],
	])('a value of the wrong kind (%s) is refused, as in a node’s own values', (_name, entries) => {
		const result = convertUiWorkflow(workflow([sizeHost(['abc', 2], entries)]), DEFINITIONS, 'Workflow');
		expect('problem' in result && result.problem.message).toBe(
			'Workflow: node 5 (subgraph "Size"): its saved value 1 of 2 (widgets_values) for promoted widget "width" does not fit: read as widget "width", it should be a number, not "abc"',
		);
	});
});

describe('proxyWidgets is read all or nothing, as the editor parses it', () => {
	test.each([
		['an entry with one part', ['-1']],
		['a node id that is a number', [1, 'width']],
	])('%s: the whole list is ignored (no later value shifts), and a note says why', (_name, bad) => {
		const entries = [['-1', 'batch_size'], bad, ['-1', 'width']];
		const inputs: SavedInput[] = [
			['width', 'INT', null, 'width'],
			['batch_size', 'INT', null, 'batch_size'],
		];
		const { graph, notes } = converted(workflow([sizeHost([640, 3], entries, inputs)]));
		// Read with the bad entry left out, batch_size would be 640 and width 3.
		expect(graph['5:1']!.inputs).toEqual({ width: 640, height: 64, batch_size: 3 });
		expect(notes).toContainEqual(
			expect.stringMatching(/^node 5 \(subgraph "Size"\): its properties\.proxyWidgets is not a list the editor reads \(entry 2: /),
		);
	});
});

describe('node ids and input names from the file stay keys', () => {
	test('a node with id "__proto__" is sent under that id, and a link to it is kept', () => {
		const ui = workflow(
			[
				{ ...node(1, 'Ints', { outputs: ['INT'], values: [3, 'fixed'] }), id: '__proto__' },
				node(2, 'ShowAnything', { inputs: [['source', '*', 1]] }),
			],
			[[1, '__proto__', 0, 2, 0, 'INT']],
		);
		const { graph } = converted(ui);
		expect(Object.keys(graph).sort()).toEqual(['2', '__proto__']);
		expect(JSON.parse(JSON.stringify(graph))).toMatchObject({ __proto__: { class_type: 'Ints', inputs: { value: 3 } } });
		expect(graph['2']!.inputs.source).toEqual(['__proto__', 0]);
	});

	test('an input named "__proto__" is sent under that name', () => {
		const ui = workflow(
			[node(1, 'Ints', { outputs: ['INT'], values: [3, 'fixed'] }), node(2, 'ShowAnything', { inputs: [['__proto__', '*', 1]] })],
			[[1, 1, 0, 2, 0, 'INT']],
		);
		const sent = JSON.parse(JSON.stringify(converted(ui).graph)) as WorkflowGraph;
		expect(Object.keys(sent['2']!.inputs)).toEqual(['__proto__']);
		expect(sent['2']!.inputs['__proto__']).toEqual(['1', 0]);
	});
});

describe('duplicate ids with a stale last_node_id are numbered as the editor numbers them', () => {
	test('nodes [1, 1, 2] with last_node_id 1: the second 1 becomes 2, the node saved as 2 becomes 3 and keeps its links', () => {
		const nodes = [
			node(1, 'Ints', { outputs: ['INT'], values: [1, 'fixed'] }),
			node(1, 'Ints', { outputs: ['INT'], values: [2, 'fixed'] }),
			node(2, 'Ints', { outputs: ['INT'], values: [3, 'fixed'] }),
			node(4, 'ShowAnything', { inputs: [['source', '*', 7]] }),
		];
		const { graph, notes } = converted(workflow(nodes, [[7, 2, 0, 4, 0, 'INT']], { last_node_id: 1 }));
		expect([graph['1']!.inputs.value, graph['2']!.inputs.value, graph['3']!.inputs.value]).toEqual([1, 2, 3]);
		expect(graph['4']!.inputs.source).toEqual(['3', 0]);
		expect(notes).toEqual([
			'Two nodes have id 1: the second (Ints) is sent as node 2, as the editor renumbers it when it opens the file.',
			'Node 2 (Ints) is sent as node 3: its id went to a node renumbered before it, as the editor numbers them when it opens the file.',
		]);
	});
});

describe('notes stay small whatever the file holds', () => {
	test('a muted node with a 100,000-character title inside a subgraph used 40 times: notes of a few kilobytes', () => {
		const title = 'x'.repeat(100_000);
		const muted = {
			id: TWO_INTS,
			name: 'Muted',
			inputs: [],
			outputs: [],
			links: [],
			nodes: [node(1, 'Ints', { title, mode: 2, values: [1, 'fixed'] })],
		};
		const hosts = Array.from({ length: 40 }, (_, index) => node(index + 1, TWO_INTS, { title }));
		const ui = {
			nodes: [...hosts, node(50, 'Ints', { values: [1, 'fixed'] })],
			links: [],
			definitions: { subgraphs: [muted] },
			version: 0.4,
		};
		const { notes } = converted(ui);
		expect(JSON.stringify(notes).length).toBeLessThan(20_000);
		expect(notes[0]).toBe(`node 1:1 "${'x'.repeat(79)}…" (Ints) is muted: not sent, and inputs linked to it are left out.`);
	});
});
