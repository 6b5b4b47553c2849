/**
 * The editor's rules that real saved workflows showed we had wrong (issue 37), one small hand-written
 * graph each: a subgraph instance saved before its definition changed, editor-only widget values,
 * promoted values in the host's `proxyWidgets` order, a legacy PrimitiveNode inside a subgraph with
 * one value per host, duplicate node ids, and saved value counts that differ from the definition.
 * Each also checks the note a user reads in Convert to API Format.
 */
import { convertUiWorkflow } from '../../../../../nodes/HostCloud/helpers/ui-format/convert';
import { conversionNotes, type WorkflowGraph } from '../../../../../nodes/HostCloud/helpers/graph/workflow-graph';
import type { NodeDefinitions } from '../../../../../nodes/HostCloud/helpers/graph/class-definitions';
import { uiNode as node } from '../../../../support/ui-workflows';

type Spec = [unknown, Record<string, unknown>?];

function definition(required: Record<string, Spec>, output: string[] = []) {
	return { input: { required }, input_order: { required: Object.keys(required) }, output, display_name: 'x' };
}

const DEFINITIONS: NodeDefinitions = {
	Ints: definition({ value: ['INT', { control_after_generate: true }] }, ['INT']),
	Floats: definition({ value: ['FLOAT', {}] }, ['FLOAT']),
	Knobs: definition(
		{
			steps: ['INT', { default: 20 }],
			cfg: ['FLOAT', { default: 8 }],
			seed: ['INT', { default: 0, control_after_generate: false }],
			length: ['INT', { default: 1 }],
		},
		['LATENT'],
	),
	Latent: definition({ width: ['INT', { default: 512 }], height: ['INT', { default: 512 }], batch_size: ['INT', { default: 1 }] }, [
		'LATENT',
	]),
	ShowAnything: definition({ source: ['*', {}] }),
	Text: definition({ string_a: ['STRING', {}] }, ['STRING']),
	FromOutputs: definition({
		image: ['COMBO', { options: ['a.png', 'b.png'], image_upload: true, remote: { route: '/files', refresh_button: true } }],
	}),
};

const workflow = (nodes: unknown[], links: unknown[], more: Record<string, unknown> = {}) => ({
	last_node_id: 20,
	nodes,
	links,
	version: 0.4,
	...more,
});

function converted(ui: Record<string, unknown>): { graph: WorkflowGraph; notes: string[] } {
	const result = convertUiWorkflow(ui, DEFINITIONS, 'Workflow');
	if ('problem' in result) throw new Error(result.problem.message);
	return { graph: result.graph, notes: conversionNotes(result.graph) };
}

const link = (id: number, from: number, target: number, slot: number, type: string) => ({
	id,
	origin_id: from,
	origin_slot: 0,
	target_id: target,
	target_slot: slot,
	type,
});

describe('a subgraph instance saved before its definition changed is rebound by name and type, as the editor does', () => {
	const KNOBS = 'c0ffee00-0000-4000-8000-000000000001';
	/** The definition now: steps, cfg, seed, length, each feeding the inner node's widget of that name. */
	const knobs = {
		id: KNOBS,
		name: 'Knobs',
		inputs: [
			{ name: 'steps', type: 'INT', linkIds: [1] },
			{ name: 'cfg', type: 'FLOAT', linkIds: [2] },
			{ name: 'seed', type: 'INT', linkIds: [3] },
			{ name: 'length', type: 'INT', linkIds: [4] },
		],
		outputs: [],
		nodes: [
			node(1, 'Knobs', {
				inputs: [
					['steps', 'INT', 1, 'steps'],
					['cfg', 'FLOAT', 2, 'cfg'],
					['seed', 'INT', 3, 'seed'],
					['length', 'INT', 4, 'length'],
				],
				values: [20, 8, 42, 1],
			}),
		],
		links: ['INT', 'FLOAT', 'INT', 'INT'].map((type, slot) => ({ ...link(slot + 1, -10, 1, slot, type), origin_slot: slot })),
	};

	test('fewer inputs, in another order: each link reaches the input of its name; the ones not saved keep the inner value', () => {
		// Saved when the subgraph had cfg, steps, length (in that order) and no seed.
		const host = node(5, KNOBS, {
			inputs: [
				['cfg', 'FLOAT', 11],
				['steps', 'INT', 12],
				['length', 'INT', 13],
			],
		});
		const ui = workflow(
			[
				node(2, 'Floats', { outputs: ['FLOAT'], values: [6.5] }),
				node(3, 'Ints', { outputs: ['INT'], values: [30, 'fixed'] }),
				node(4, 'Ints', { outputs: ['INT'], values: [81, 'fixed'] }),
				host,
			],
			[
				[11, 2, 0, 5, 0, 'FLOAT'],
				[12, 3, 0, 5, 1, 'INT'],
				[13, 4, 0, 5, 2, 'INT'],
			],
			{ definitions: { subgraphs: [knobs] } },
		);
		const { graph, notes } = converted(ui);
		expect(graph['5:1']!.inputs).toEqual({ steps: ['3', 0], cfg: ['2', 0], seed: 42, length: ['4', 0] });
		expect(notes).toEqual([
			'node 5 (subgraph "Knobs") was saved with other inputs than the subgraph has now: rebound as the editor does when it opens the file ("cfg", "steps", "length" matched by name).',
		]);
	});

	test('a saved input the definition no longer has: its link is not used, and the note says so', () => {
		const host = node(5, KNOBS, { inputs: [['strength', 'FLOAT', 11]] });
		const ui = workflow([node(2, 'Floats', { outputs: ['FLOAT'], values: [0.4] }), host], [[11, 2, 0, 5, 0, 'FLOAT']], {
			definitions: { subgraphs: [knobs] },
		});
		const { graph, notes } = converted(ui);
		// Positionally, strength's FLOAT would have reached steps.
		expect(graph['5:1']!.inputs).toEqual({ steps: 20, cfg: 8, seed: 42, length: 1 });
		expect(notes).toEqual([
			'node 5 (subgraph "Knobs") was saved with other inputs than the subgraph has now: rebound as the editor does when it opens the file ("strength" no longer in the subgraph, so its link is not used).',
		]);
	});
});

describe('editor-only widget values are skipped, and nobody blames the server version', () => {
	test('a preview node’s display values ([null, null, false]) beyond its one socket: converted, with a note', () => {
		const ui = workflow(
			[
				node(1, 'Ints', { outputs: ['INT'], values: [3, 'fixed'] }),
				node(2, 'ShowAnything', { inputs: [['source', '*', 1]], values: [null, null, false] }),
			],
			[[1, 1, 0, 2, 0, 'INT']],
		);
		const { graph, notes } = converted(ui);
		expect(graph['2']!.inputs).toEqual({ source: ['1', 0] });
		expect(notes).toEqual([
			"node 2 (ShowAnything): 3 saved values after its widgets ([null,null,false]) not sent: the editor ignores values beyond a node's widgets (its own widgets such as preview toggles and buttons, or widgets this server's version of the node has not).",
		]);
	});

	test.each([
		['auto-refresh toggle, refresh button and upload button', ['b.png', false, 'refresh', 'image']],
		['refresh button and upload button', ['b.png', 'refresh', 'image']],
		['upload button only (an editor without the refresh widgets)', ['b.png', 'image']],
	])('a combo the editor reloads from the server: its %s are not inputs', (_name, values) => {
		const { graph, notes } = converted(workflow([node(1, 'FromOutputs', { outputs: ['IMAGE'], values })], []));
		expect(graph['1']!.inputs).toEqual({ image: 'b.png' });
		expect(notes).toEqual([]);
	});
});

describe('promoted widgets of a subgraph host follow its proxyWidgets order', () => {
	const LATENT = 'c0ffee00-0000-4000-8000-000000000002';
	const subgraph = {
		id: LATENT,
		name: 'Size',
		inputs: [
			{ name: 'width', type: 'INT', linkIds: [1] },
			{ name: 'batch_size', type: 'INT', linkIds: [2] },
		],
		outputs: [],
		nodes: [
			node(1, 'Latent', {
				inputs: [
					['width', 'INT', 1, 'width'],
					['batch_size', 'INT', 2, 'batch_size'],
				],
				values: [64, 64, 9],
			}),
		],
		links: [
			{ ...link(1, -10, 1, 0, 'INT'), origin_slot: 0 },
			{ ...link(2, -10, 1, 1, 'INT'), origin_slot: 1 },
		],
	};
	const host = (proxyWidgets: unknown) => ({ ...node(2, LATENT, { values: [1, 512] }), properties: { proxyWidgets } });

	test('values [1, 512] with proxyWidgets [batch_size, width]: width 512, batch size 1 (not the subgraph-input order)', () => {
		const { graph } = converted(
			workflow(
				[
					host([
						['-1', 'batch_size'],
						['-1', 'width'],
					]),
				],
				[],
				{ definitions: { subgraphs: [subgraph] } },
			),
		);
		expect(graph['2:1']!.inputs).toEqual({ width: 512, height: 64, batch_size: 1 });
	});

	test('the list saved as JSON text reads the same; without a list the values follow the host’s inputs', () => {
		const asText = converted(workflow([host('[["-1","batch_size"],["-1","width"]]')], [], { definitions: { subgraphs: [subgraph] } }));
		expect(asText.graph['2:1']!.inputs).toEqual({ width: 512, height: 64, batch_size: 1 });
		const inputs: Array<[string, string, null]> = [
			['width', 'INT', null],
			['batch_size', 'INT', null],
		];
		const noList = converted(workflow([node(2, LATENT, { inputs, values: [1, 512] })], [], { definitions: { subgraphs: [subgraph] } }));
		expect(noList.graph['2:1']!.inputs).toEqual({ width: 1, height: 64, batch_size: 512 });
	});
});

describe('a host promotes a widget of a subgraph nested in its own', () => {
	const INNER = 'c0ffee00-0000-4000-8000-000000000004';
	const OUTER = 'c0ffee00-0000-4000-8000-000000000005';
	const inner = {
		id: INNER,
		name: 'Inner',
		inputs: [{ name: 'string_a', type: 'STRING', linkIds: [1] }],
		outputs: [],
		nodes: [node(3, 'Text', { inputs: [['string_a', 'STRING', 1, 'string_a']], values: ['inner'] })],
		links: [link(1, -10, 3, 0, 'STRING')],
	};
	const nestedHost = {
		...node(6, INNER, { inputs: [['string_a', 'STRING', null, 'string_a']], values: ['middle'] }),
		properties: { proxyWidgets: [['-1', 'string_a']] },
	};
	const outer = { id: OUTER, name: 'Outer', inputs: [], outputs: [], nodes: [nestedHost], links: [] };
	const host = (name: string) => ({ ...node(5, OUTER, { values: ['outer'] }), properties: { proxyWidgets: [['6', name]] } });

	test.each([
		['by the widget name', 'string_a'],
		['by the prefixed name older editors saved ("6: 3: string_a")', '6: 3: string_a'],
	])('%s: the outer host’s value wins over the nested host’s', (_name, name) => {
		const { graph } = converted(workflow([host(name)], [], { definitions: { subgraphs: [inner, outer] } }));
		expect(graph['5:6:3']!.inputs.string_a).toBe('outer');
	});

	test('an outer host without values leaves the nested host’s', () => {
		const { graph } = converted(
			workflow([{ ...host('string_a'), widgets_values: [] }], [], { definitions: { subgraphs: [inner, outer] } }),
		);
		expect(graph['5:6:3']!.inputs.string_a).toBe('middle');
	});
});

describe('a legacy PrimitiveNode inside a subgraph gives each host its own value', () => {
	const FAN = 'c0ffee00-0000-4000-8000-000000000003';
	const subgraph = {
		id: FAN,
		name: 'Fan',
		inputs: [],
		outputs: [],
		nodes: [
			node(3, 'Ints', { inputs: [['value', 'INT', 1, 'value']], outputs: ['INT'], values: [0, 'randomize'] }),
			node(4, 'PrimitiveNode', { outputs: ['INT'], values: [0, 'randomize'] }),
		],
		links: [link(1, 4, 3, 0, 'INT')],
	};
	const host = (id: number, value: number) => ({ ...node(id, FAN, { values: [value] }), properties: { proxyWidgets: [['4', 'value']] } });

	test('two hosts of one definition, 11 and 22: each inner node gets its host’s value', () => {
		const { graph } = converted(workflow([host(2, 11), host(12, 22)], [], { definitions: { subgraphs: [subgraph] } }));
		expect([graph['2:3']!.inputs.value, graph['12:3']!.inputs.value]).toEqual([11, 22]);
	});

	test('a host with no value keeps the primitive’s own', () => {
		const { graph } = converted(workflow([{ ...host(2, 11), widgets_values: [] }], [], { definitions: { subgraphs: [subgraph] } }));
		expect(graph['2:3']!.inputs.value).toBe(0);
	});
});

describe('two nodes with the same id are both sent: the second is renumbered as the editor does', () => {
	test('the second gets the next id after last_node_id; a link naming the id stays with the first, as in the editor', () => {
		const first = node(3, 'Ints', { outputs: ['INT'], values: [1, 'fixed'] });
		const second = node(3, 'Ints', { outputs: ['INT'], values: [2, 'fixed'] });
		second.outputs[0]!.links.push(7);
		const show = node(4, 'ShowAnything', { inputs: [['source', '*', 7]] });
		const { graph, notes } = converted(workflow([first, second, show], [[7, 3, 0, 4, 0, 'INT']]));
		expect(Object.keys(graph).sort()).toEqual(['21', '3', '4']);
		expect([graph['3']!.inputs.value, graph['21']!.inputs.value]).toEqual([1, 2]);
		// Link 7 names node 3, which two nodes had: the editor keeps it on the first.
		expect(graph['4']!.inputs.source).toEqual(['3', 0]);
		expect(notes).toEqual([
			'Two nodes have id 3: the second (Ints) is sent as node 21, as the editor renumbers it when it opens the file.',
		]);
	});
});

describe('saved value counts that differ from the definition say which node, which widget, what was assumed', () => {
	test('fewer values: the widgets without one are sent at their defaults, named in a note', () => {
		const { graph, notes } = converted(workflow([node(6, 'Knobs', { title: 'Old knobs', values: [25, 7] })], []));
		expect(graph['6']!.inputs).toEqual({ steps: 25, cfg: 7, seed: 0, length: 1 });
		expect(notes).toEqual([
			'node 6 "Old knobs" (Knobs): the file has no value for "seed" (0), "length" (1), widgets the server\'s definition has and the saved node had not: sent at their defaults, as the editor does.',
		]);
	});

	test('a value of the wrong kind is refused: its position, the widget it was read as, and the value', () => {
		const result = convertUiWorkflow(workflow([node(6, 'Knobs', { values: [25, 'euler', 1, 1] })], []), DEFINITIONS, 'Workflow');
		expect('problem' in result && result.problem).toEqual({
			message:
				'Workflow: node 6 (Knobs): its saved widget values do not fit the server\'s definition of Knobs: value 2 of 4 in its widgets_values: read as widget "cfg", it should be a number, not "euler"',
			hint: expect.stringContaining('whose widgets differ from the server'),
		});
	});
});

describe('nodes not sent are named in the notes', () => {
	test('a muted node and a bypassed one', () => {
		const ui = workflow(
			[
				node(1, 'Ints', { outputs: ['INT'], values: [3, 'fixed'] }),
				node(2, 'Ints', { title: 'Off', mode: 2, outputs: ['INT'], values: [4, 'fixed'] }),
				node(3, 'ShowAnything', { mode: 4, inputs: [['source', '*', 1]], values: [] }),
				node(4, 'Note', { mode: 2, values: ['a muted note is no node to send: no note about it'] }),
			],
			[[1, 1, 0, 3, 0, 'INT']],
		);
		expect(converted(ui).notes).toEqual([
			'node 2 "Off" (Ints) is muted: not sent, and inputs linked to it are left out.',
			'node 3 (ShowAnything) is bypassed: not sent; the nodes after it get what it would pass through.',
		]);
	});
});
