/**
 * The editor's UI → API rules (../shared/ui-format/RULES.md), one small case each, for what the
 * real pairs do not show, and for what they show but a clone without ../shared cannot read (legacy
 * group nodes): subgraphs (nested, promoted widgets, "57:3" ids), native reroutes,
 * dict-form values, combo controls, seed-control variants, wrapped arrays, old forceInput values,
 * bypass choices, muted links, and the refusals that name the node. The workflows and definitions
 * here are written for these tests, in the shapes the editor and the server use.
 */
import { convertUiWorkflow } from '../../../../../nodes/HostCloud/helpers/ui-format/convert';
import type { GraphResult, WorkflowGraph } from '../../../../../nodes/HostCloud/helpers/graph/workflow-graph';
import type { NodeDefinitions } from '../../../../../nodes/HostCloud/helpers/graph/class-definitions';
import { uiNode } from '../../../../support/ui-workflows';

type Spec = [unknown, Record<string, unknown>?];

function definition(name: string, required: Record<string, Spec>, output: string[] = [], optional: Record<string, Spec> = {}) {
	return {
		input: { required, optional },
		input_order: { required: Object.keys(required), optional: Object.keys(optional) },
		output,
		display_name: `${name} Node`,
	};
}

const DEFINITIONS: NodeDefinitions = {
	Loader: definition('Loader', { ckpt: [['a.safetensors', 'b.safetensors'], {}] }, ['MODEL', 'CLIP']),
	Sampler: definition(
		'Sampler',
		{ model: ['MODEL'], seed: ['INT', { default: 0, control_after_generate: true }], steps: ['INT', { default: 20 }] },
		['LATENT'],
	),
	Save: definition('Save', { samples: ['LATENT'], prefix: ['STRING', { default: 'out' }] }),
	Mask: definition('Mask', { image: ['IMAGE'], mask: ['MASK'], strength: ['FLOAT', { default: 1 }] }, ['MASK']),
	UseMask: definition('UseMask', { mask: ['MASK'] }),
};

const node = uiNode;

function workflow(nodes: unknown[], links: unknown[], more: Record<string, unknown> = {}) {
	return { last_node_id: 99, last_link_id: 99, nodes, links, version: 0.4, ...more };
}

function convert(ui: Record<string, unknown>, definitions: NodeDefinitions = DEFINITIONS): GraphResult {
	return convertUiWorkflow(ui, definitions, 'Workflow');
}

function graphOf(ui: Record<string, unknown>, definitions?: NodeDefinitions): WorkflowGraph {
	const result = convert(ui, definitions);
	if ('problem' in result) throw new Error(result.problem.message);
	return result.graph;
}

const loader = (id = 1) => node(id, 'Loader', { outputs: ['MODEL', 'CLIP'], values: ['b.safetensors'] });
const save = (id: number, link: number) => node(id, 'Save', { inputs: [['samples', 'LATENT', link]], values: ['pic'] });

describe('subgraphs (definitions.subgraphs)', () => {
	const SAMPLE = 'a3c1f9d2-1111-4222-8333-944455556666';
	const WRAP = 'b4d2e0c3-2222-4333-8444-a55566667777';
	/** A subgraph around one Sampler: its model and its steps (a promoted widget) come from outside. */
	const sampleSubgraph = {
		id: SAMPLE,
		name: 'Sample',
		inputs: [
			{ id: 'in-model', name: 'model', type: 'MODEL', linkIds: [10] },
			{ id: 'in-steps', name: 'steps', type: 'INT', linkIds: [11] },
		],
		outputs: [{ id: 'out-latent', name: 'LATENT', type: 'LATENT', linkIds: [12] }],
		nodes: [
			node(3, 'Sampler', {
				inputs: [
					['model', 'MODEL', 10],
					['steps', 'INT', 11, 'steps'],
				],
				outputs: ['LATENT'],
				values: [5, 'randomize', 20],
			}),
		],
		links: [
			{ id: 10, origin_id: -10, origin_slot: 0, target_id: 3, target_slot: 0, type: 'MODEL' },
			{ id: 11, origin_id: -10, origin_slot: 1, target_id: 3, target_slot: 1, type: 'INT' },
			{ id: 12, origin_id: 3, origin_slot: 0, target_id: -20, target_slot: 0, type: 'LATENT' },
		],
	};
	const instance = (id: number, modelLink: number | null, steps: unknown[], outputs = ['LATENT']) =>
		node(id, SAMPLE, {
			inputs: [
				['model', 'MODEL', modelLink],
				['steps', 'INT', null, 'steps'],
			],
			outputs,
			values: steps,
		});

	test('inner nodes are sent as "<instance>:<inner id>", with the instance’s promoted widget value', () => {
		const ui = workflow(
			[loader(), instance(57, 1, [30]), save(9, 2)],
			[
				[1, 1, 0, 57, 0, 'MODEL'],
				[2, 57, 0, 9, 0, 'LATENT'],
			],
			{ definitions: { subgraphs: [sampleSubgraph] } },
		);
		expect(graphOf(ui)).toEqual({
			'1': { class_type: 'Loader', inputs: { ckpt: 'b.safetensors' }, _meta: { title: 'Loader Node' } },
			'57:3': { class_type: 'Sampler', inputs: { model: ['1', 0], seed: 5, steps: 30 }, _meta: { title: 'Sampler Node' } },
			'9': { class_type: 'Save', inputs: { prefix: 'pic', samples: ['57:3', 0] }, _meta: { title: 'Save Node' } },
		});
	});

	test('two instances share the inner values and keep their own promoted values; a seed control saved after a promoted seed is skipped', () => {
		const ui = workflow(
			[loader(), instance(57, 1, [30]), instance(58, 1, [40]), save(9, 2), save(10, 3)],
			[
				[1, 1, 0, 57, 0, 'MODEL'],
				[4, 1, 0, 58, 0, 'MODEL'],
				[2, 57, 0, 9, 0, 'LATENT'],
				[3, 58, 0, 10, 0, 'LATENT'],
			],
			{ definitions: { subgraphs: [sampleSubgraph] } },
		);
		const graph = graphOf(ui);
		expect([graph['57:3']!.inputs.steps, graph['58:3']!.inputs.steps, graph['58:3']!.inputs.seed]).toEqual([30, 40, 5]);
		expect(graph['10']!.inputs.samples).toEqual(['58:3', 0]);
	});

	test('nested instances chain their ids ("18:58:3"); a link from the outer input reaches the innermost node', () => {
		const wrap = {
			id: WRAP,
			name: 'Wrap',
			inputs: [{ id: 'w-in', name: 'model', type: 'MODEL', linkIds: [20] }],
			outputs: [{ id: 'w-out', name: 'LATENT', type: 'LATENT', linkIds: [21] }],
			nodes: [instance(58, 20, [12])],
			links: [
				{ id: 20, origin_id: -10, origin_slot: 0, target_id: 58, target_slot: 0, type: 'MODEL' },
				{ id: 21, origin_id: 58, origin_slot: 0, target_id: -20, target_slot: 0, type: 'LATENT' },
			],
		};
		const ui = workflow(
			[loader(), node(18, WRAP, { inputs: [['model', 'MODEL', 1]], outputs: ['LATENT'] }), save(9, 2)],
			[
				[1, 1, 0, 18, 0, 'MODEL'],
				[2, 18, 0, 9, 0, 'LATENT'],
			],
			{ definitions: { subgraphs: [sampleSubgraph, wrap] } },
		);
		const graph = graphOf(ui);
		expect(Object.keys(graph).sort()).toEqual(['1', '18:58:3', '9']);
		expect(graph['18:58:3']!.inputs).toEqual({ model: ['1', 0], seed: 5, steps: 12 });
		expect(graph['9']!.inputs.samples).toEqual(['18:58:3', 0]);
	});

	test('a subgraph input linked from outside replaces the promoted value; a muted instance is not expanded and its links are dropped', () => {
		const ui = workflow(
			[
				loader(),
				node(45, 'PrimitiveNode', { outputs: ['INT'], values: [8, 'fixed'] }),
				{
					...instance(57, 1, [30]),
					inputs: [
						{ name: 'model', type: 'MODEL', link: 1 },
						{ name: 'steps', type: 'INT', link: 5, widget: { name: 'steps' } },
					],
				},
				{ ...instance(58, 4, [40]), mode: 2 },
				save(9, 2),
				save(10, 3),
			],
			[
				[1, 1, 0, 57, 0, 'MODEL'],
				[5, 45, 0, 57, 1, 'INT'],
				[4, 1, 0, 58, 0, 'MODEL'],
				[2, 57, 0, 9, 0, 'LATENT'],
				[3, 58, 0, 10, 0, 'LATENT'],
			],
			{ definitions: { subgraphs: [sampleSubgraph] } },
		);
		const graph = graphOf(ui);
		expect(graph['57:3']!.inputs.steps).toBe(8);
		expect(Object.keys(graph).sort()).toEqual(['1', '10', '57:3', '9']);
		expect(graph['10']!.inputs).toEqual({ prefix: 'pic' });
	});

	test('a subgraph whose definition is missing is refused by name', () => {
		const ui = workflow([loader(), instance(57, 1, [30])], [[1, 1, 0, 57, 0, 'MODEL']]);
		const result = convert(ui);
		expect('problem' in result && result.problem.message).toBe(
			'Workflow: node 57 (a subgraph) uses a subgraph whose definition is not in the workflow (definitions.subgraphs)',
		);
	});
});

describe('links', () => {
	test('native reroutes are not nodes: the link joins origin and target (version 1 links as objects, with parentId)', () => {
		const ui = {
			version: 1,
			state: { lastNodeId: 9, lastLinkId: 2 },
			nodes: [loader(), node(3, 'Sampler', { inputs: [['model', 'MODEL', 1]], outputs: ['LATENT'], values: [1, 'fixed', 4] }), save(9, 2)],
			links: [
				{ id: 1, origin_id: 1, origin_slot: 0, target_id: 3, target_slot: 0, type: 'MODEL', parentId: 2 },
				{ id: 2, origin_id: 3, origin_slot: 0, target_id: 9, target_slot: 0, type: 'LATENT' },
			],
			reroutes: [
				{ id: 1, pos: [10, 10], linkIds: [1] },
				{ id: 2, parentId: 1, pos: [20, 20], linkIds: [1] },
			],
			extra: { reroutes: [{ id: 1, pos: [10, 10], linkIds: [1] }] },
		};
		expect(graphOf(ui)['3']!.inputs).toEqual({ seed: 1, steps: 4, model: ['1', 0] });
	});

	test('Reroute nodes collapse to the real origin, and a PrimitiveNode pushes its value through them into the widget', () => {
		const ui = workflow(
			[
				loader(),
				node(20, 'Reroute', { inputs: [['', '*', 1]], outputs: ['MODEL'] }),
				node(21, 'Reroute', { inputs: [['', '*', 2]], outputs: ['MODEL'] }),
				node(30, 'PrimitiveNode', { outputs: ['INT'], values: [42, 'fixed'], title: 'seed' }),
				node(31, 'Reroute', { inputs: [['', '*', 4]], outputs: ['INT'] }),
				node(3, 'Sampler', {
					inputs: [
						['model', 'MODEL', 3],
						['seed', 'INT', 5, 'seed'],
					],
					outputs: ['LATENT'],
					values: [7, 'randomize', 9],
				}),
				node(40, 'Note', { values: ['a note'] }),
				node(41, 'MarkdownNote', { values: ['# a note'] }),
			],
			[
				[1, 1, 0, 20, 0, 'MODEL'],
				[2, 20, 0, 21, 0, 'MODEL'],
				[3, 21, 0, 3, 0, 'MODEL'],
				[4, 30, 0, 31, 0, 'INT'],
				[5, 31, 0, 3, 1, 'INT'],
			],
		);
		const graph = graphOf(ui);
		expect(Object.keys(graph).sort()).toEqual(['1', '3']);
		expect(graph['3']!.inputs).toEqual({ seed: 42, steps: 9, model: ['1', 0] });
	});

	test('a bypassed node passes on the input its output slot and the target’s type choose; with none, the input is left out', () => {
		const bypassed = (id: number, image: number | null, mask: number | null) =>
			node(id, 'Mask', {
				mode: 4,
				inputs: [
					['image', 'IMAGE', image],
					['mask', 'MASK', mask],
				],
				outputs: ['MASK'],
				values: [0.5],
			});
		const source = (id: number) => node(id, 'Source', { outputs: ['IMAGE', 'MASK'] });
		const definitions = { ...DEFINITIONS, Source: definition('Source', {}, ['IMAGE', 'MASK']) };
		const ui = workflow(
			[
				source(1),
				bypassed(5, 1, 2),
				node(6, 'UseMask', { inputs: [['mask', 'MASK', 3]] }),
				bypassed(7, 4, null),
				node(8, 'UseMask', { inputs: [['mask', 'MASK', 5]] }),
			],
			[
				[1, 1, 0, 5, 0, 'IMAGE'],
				[2, 1, 1, 5, 1, 'MASK'],
				[3, 5, 0, 6, 0, 'MASK'],
				[4, 1, 0, 7, 0, 'IMAGE'],
				[5, 7, 0, 8, 0, 'MASK'],
			],
		);
		const graph = graphOf(ui, definitions);
		// Slot 0 (IMAGE) does not fit MASK: the first input of the target's type is taken.
		expect(graph['6']!.inputs).toEqual({ mask: ['1', 1] });
		expect(graph['8']!.inputs).toEqual({});
	});

	test('a widget linked to a muted node loses its key, as the editor’s last pass does', () => {
		const ui = workflow(
			[
				node(2, 'Seed', { outputs: ['INT'], mode: 2, values: [3] }),
				node(3, 'Sampler', { inputs: [['seed', 'INT', 1, 'seed']], outputs: ['LATENT'], values: [7, 'fixed', 9] }),
			],
			[[1, 2, 0, 3, 0, 'INT']],
		);
		const definitions = { ...DEFINITIONS, Seed: definition('Seed', { value: ['INT', {}] }, ['INT']) };
		expect(graphOf(ui, definitions)['3']!.inputs).toEqual({ steps: 9 });
	});
});

describe('widget values', () => {
	test('dict-form values are read by name: editor state and upload buttons left out, unknown keys sent, missing widgets at their defaults', () => {
		const definitions = {
			VideoSave: definition('VideoSave', {
				images: ['IMAGE'],
				frame_rate: ['FLOAT', { default: 8 }],
				format: [['image/gif', 'video/h264-mp4'], {}],
				save_output: ['BOOLEAN', { default: true }],
			}),
		};
		const values = {
			frame_rate: 12,
			format: 'video/h264-mp4',
			crf: 19,
			videopreview: { hidden: false, params: { filename: 'a.mp4' } },
			'choose video to upload': 'image',
		};
		const graph = graphOf(workflow([node(4, 'VideoSave', { inputs: [['images', 'IMAGE', null]], values })], []), definitions);
		expect(graph['4']!.inputs).toEqual({ frame_rate: 12, format: 'video/h264-mp4', crf: 19, save_output: true });
		expect(Object.keys(graph['4']!.inputs)).toEqual(['frame_rate', 'format', 'crf', 'save_output']);
	});

	test('a combo with control_after_generate has two unsent values after it (control and filter)', () => {
		const definitions = {
			Style: definition('Style', { style: [['a', 'b', 'c'], { control_after_generate: true }], strength: ['FLOAT', { default: 1 }] }),
		};
		expect(graphOf(workflow([node(2, 'Style', { values: ['b', 'increment', '', 0.5] })], []), definitions)['2']!.inputs).toEqual({
			style: 'b',
			strength: 0.5,
		});
		const shifted = convert(workflow([node(2, 'Style', { values: ['b', 0.5] })], []), definitions);
		expect('problem' in shifted && shifted.problem.message).toBe(
			'Workflow: node 2 (Style): its saved widget values do not fit the server\'s definition of Style: value 2 of 2 in its widgets_values: it should be the control after "style" (fixed, increment, decrement or randomize), not 0.5',
		);
	});

	test('INT controls: a seed-named input gets one without the flag, false means none, a mode word means one', () => {
		const definitions = {
			Noise: definition('Noise', {
				seed: ['INT', {}],
				amount: ['INT', { control_after_generate: false, default: 1 }],
				jitter: ['INT', { control_after_generate: 'fixed' }],
				label: ['STRING', {}],
			}),
		};
		const graph = graphOf(workflow([node(2, 'Noise', { values: [7, 'fixed', 3, 9, 'randomize', 'hi'] })], []), definitions);
		expect(graph['2']!.inputs).toEqual({ seed: 7, amount: 3, jitter: 9, label: 'hi' });
	});

	test('list values are wrapped so they cannot be read as links (a curve keeps its type)', () => {
		const definitions = {
			Shape: definition('Shape', { tags: ['COMBO', { options: ['x', 'y', 'z'], multiselect: true }], curve: ['CURVE', {}] }),
		};
		const graph = graphOf(
			workflow(
				[
					node(2, 'Shape', {
						values: [
							['x', 'z'],
							[
								[0, 0],
								[1, 1],
							],
						],
					}),
				],
				[],
			),
			definitions,
		);
		expect(graph['2']!.inputs).toEqual({
			tags: { __value__: ['x', 'z'] },
			curve: {
				__type__: 'CURVE',
				__value__: [
					[0, 0],
					[1, 1],
				],
			},
		});
	});

	test('the upload button’s value is not sent; dummy values old editors saved for forceInput inputs are dropped', () => {
		const definitions = {
			LoadPicture: definition('LoadPicture', { image: [['cat.png'], { image_upload: true }] }, ['IMAGE']),
			Mix: definition('Mix', { a: ['FLOAT', { forceInput: true }], ratio: ['FLOAT', { default: 0.5 }] }, ['FLOAT']),
		};
		const graph = graphOf(
			workflow(
				[node(1, 'LoadPicture', { values: ['cat.png', 'image'] }), node(2, 'Mix', { values: [0, 0.3] }), node(3, 'Mix', { values: [0.7] })],
				[],
			),
			definitions,
		);
		expect([graph['1']!.inputs, graph['2']!.inputs, graph['3']!.inputs]).toEqual([{ image: 'cat.png' }, { ratio: 0.3 }, { ratio: 0.7 }]);
	});

	test('widgets follow input_order, not the key order of the definition', () => {
		const definitions = {
			Size: { ...definition('Size', { height: ['INT', {}], width: ['INT', {}] }), input_order: { required: ['width', 'height'] } },
		};
		expect(graphOf(workflow([node(2, 'Size', { values: [640, 480] })], []), definitions)['2']!.inputs).toEqual({ width: 640, height: 480 });
	});
});

describe('legacy group nodes (extra.groupNodes)', () => {
	/**
	 * A group "Sample" as the editor saves one: inner node i is its entry i; link entries are
	 * [origin, slot, target, slot, id, type] between entries; `external` lists the inner outputs used
	 * outside. Its input is the Sampler's model (not linked inside); its output the Sampler's LATENT
	 * (linked inside, and external too). The inner values are the ones the instance's list overrides.
	 */
	const group = {
		nodes: [
			node(0, 'Sampler', { inputs: [['model', 'MODEL', null]], outputs: ['LATENT'], values: [1, 'randomize', 33] }),
			node(1, 'Save', { inputs: [['samples', 'LATENT', null]], values: ['inner'] }),
		],
		links: [
			[null, 0, 0, 0, 1, 'MODEL'],
			[0, 0, 1, 0, 2, 'LATENT'],
		],
		external: [[0, 0, 'LATENT']],
	};
	const instance = (values: unknown[]) => node(10, 'workflow>Sample', { inputs: [['model', 'MODEL', 1]], outputs: ['LATENT'], values });
	const withGroup = (values: unknown[], definition: Record<string, unknown> = group) =>
		workflow(
			[loader(), instance(values), save(9, 2)],
			[
				[1, 1, 0, 10, 0, 'MODEL'],
				[2, 10, 0, 9, 0, 'LATENT'],
			],
			{ extra: { groupNodes: { Sample: definition } } },
		);

	test('inner node i is sent as "<instance>:<i>"; the instance’s values, controls included, are the inner widgets in order', () => {
		expect(graphOf(withGroup([7, 'fixed', 25, 'grouped']))).toEqual({
			'1': { class_type: 'Loader', inputs: { ckpt: 'b.safetensors' }, _meta: { title: 'Loader Node' } },
			'10:0': { class_type: 'Sampler', inputs: { model: ['1', 0], seed: 7, steps: 25 }, _meta: { title: 'Sampler Node' } },
			'10:1': { class_type: 'Save', inputs: { samples: ['10:0', 0], prefix: 'grouped' }, _meta: { title: 'Save Node' } },
			'9': { class_type: 'Save', inputs: { samples: ['10:0', 0], prefix: 'pic' }, _meta: { title: 'Save Node' } },
		});
	});

	test('an inner widget the instance’s list does not reach keeps the value saved in the group', () => {
		const graph = graphOf(withGroup([7, 'fixed']));
		expect([graph['10:0']!.inputs.steps, graph['10:1']!.inputs.prefix]).toEqual([33, 'inner']);
	});

	test('a group whose definition holds something that is not a node is refused, naming the instance', () => {
		const result = convert(withGroup([], { ...group, nodes: [42] }));
		expect('problem' in result && result.problem.message).toBe(
			'Workflow: node 10 (group node Sample): group node "Sample": entry 1 of "nodes" is not a node (it needs an id and a type)',
		);
	});
});

describe('refusals name the node (id, title, class) and what is wrong', () => {
	const cases: Array<[string, Record<string, unknown>, string]> = [
		[
			'classes the server does not know (custom nodes not installed)',
			workflow(
				[node(12, 'FancyUpscale', { title: 'Upscale 2x' }), node(13, 'OtherCustom'), node(14, 'Unknown But Muted', { mode: 2 })],
				[],
			),
			'Workflow: the server does not know the node type of node 12 "Upscale 2x" (FancyUpscale), node 13 (OtherCustom): it may be a custom node that is not installed there',
		],
		[
			'a node type named like what every object carries (constructor, toString) is no class the server has',
			workflow([node(12, 'constructor'), node(13, 'toString')], []),
			'Workflow: the server does not know the node type of node 12 (constructor), node 13 (toString): it may be a custom node that is not installed there',
		],
		[
			'a value of the wrong kind',
			workflow([node(3, 'Sampler', { values: ['euler', 'fixed', 20] })], []),
			'Workflow: node 3 (Sampler): its saved widget values do not fit the server\'s definition of Sampler: value 1 of 3 in its widgets_values: read as widget "seed", it should be a number, not "euler"',
		],
		[
			'a link to a node that is not there',
			workflow([node(9, 'Save', { title: 'Keep', inputs: [['samples', 'LATENT', 7]] })], [[7, 44, 0, 9, 0, 'LATENT']]),
			'Workflow: node 9 "Keep" (Save): input "samples" is linked to node 44, which is not in the workflow',
		],
		[
			'a link id that is not in the links',
			workflow([node(9, 'Save', { inputs: [['samples', 'LATENT', 8]] })], []),
			'Workflow: node 9 (Save): input "samples" uses link 8, which is not in the workflow\'s links',
		],
		[
			'a group node without its definition',
			workflow([node(37, 'workflow>Missing', { outputs: ['LATENT'] })], []),
			"Workflow: node 37 (group node Missing): the workflow does not hold this group node's definition (extra.groupNodes)",
		],
		[
			'nothing to run',
			workflow([node(1, 'Note', { values: ['hi'] }), { ...loader(), mode: 4 }], []),
			'Workflow has no nodes to run: every node is a note, muted or bypassed',
		],
	];
	test.each(cases)('%s', (_name, ui, message) => {
		const result = convert(ui);
		expect('problem' in result && result.problem.message).toBe(message);
		expect('problem' in result && result.problem.hint).toEqual(expect.any(String));
	});
});
