/**
 * The 47 saved workflows of the ComfyUI editor's own browser tests (../shared/ui-format/frontend-assets,
 * public data kept outside the repository: SOURCE.md there gives each file's origin) and what the
 * editor sends for each, written here as facts: the node ids with their classes, and the inputs
 * each file's edge case is about. The facts come from the editor's test specs beside those assets
 * (Comfy-Org/ComfyUI_frontend browser_tests), from SOURCE.md's notes and from its rules (RULES.md);
 * nothing of the specs or the files is copied.
 *
 * A file the editor's test suite runs on its own test nodes (DevTools…) or on core nodes newer than
 * the real server here (ComfyUI 0.3.64) cannot be converted against that server: not applicable.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

import type { NodeDefinitions } from '../../nodes/HostCloud/helpers/graph/class-definitions';

export interface AssetExpectation {
	/** Node id → the class the editor sends under it (every node, for a file short enough to list). */
	nodes?: Record<string, string>;
	/** How many nodes, for a file too long to list. */
	nodeCount?: number;
	/** "node id.input" → what the editor sends for it: the inputs the file's edge case is about. */
	inputs?: Record<string, unknown>;
	/** Words each of which some note must hold (what the conversion had to assume). */
	notes?: string[];
	/** The classes it needs that neither the shared definitions nor this server (0.3.64) have, and why. */
	notApplicable?: { classes: string[]; why: string };
	/** The editor sends nothing runnable either: the converter says so with these words. */
	nothingToSend?: string;
	/** Whether it has an output node, so the real server can judge it (else it answers prompt_no_outputs). */
	runnable?: boolean;
}

const TEST_NODES = "the editor's own test nodes (its devtools extension), on no stock server";
const NEWER = 'core nodes newer than ComfyUI 0.3.64';

const txt2img = {
	'3': 'KSampler',
	'4': 'CheckpointLoaderSimple',
	'5': 'EmptyLatentImage',
	'6': 'CLIPTextEncode',
	'7': 'CLIPTextEncode',
	'8': 'VAEDecode',
	'9': 'SaveImage',
};
/** The same graph with the sampler in a subgraph instance, 10. */
const { '3': _sampler, ...txt2imgAround } = txt2img;
const txt2imgInSubgraph = { ...txt2imgAround, '10:3': 'KSampler' };
const nestedStrings = (inner: [string, string, string, string]) => ({
	'1': 'PrimitiveStringMultiline',
	'2': 'PreviewAny',
	'5:3': 'StringConcatenate',
	'5:4': 'PrimitiveStringMultiline',
	[`5:6:${inner[0]}`]: 'StringConcatenate',
	[`5:6:${inner[1]}`]: 'PrimitiveStringMultiline',
	[`5:6:9:${inner[2]}`]: 'StringConcatenate',
	[`5:6:9:${inner[3]}`]: 'PrimitiveStringMultiline',
});
const PREVIEW_NOTE = ['node 2 (PreviewAny): 3 saved values after its widgets ([null,null,false]) not sent'];

export const EXPECTED: Record<string, AssetExpectation> = {
	'bad_link.json': { nodes: { '4': 'KSampler', '5': 'PrimitiveInt' }, inputs: { '4.steps': ['5', 0] } },
	'default.json': { nodes: txt2img, inputs: { '3.model': ['4', 0], '9.images': ['8', 0] }, runnable: true },
	'ecsMigration/conflicting_origins_execution.json': {
		nodes: { '1': 'EmptyImage', '2': 'EmptyImage', '3': 'ImageScale', '4': 'SaveImage' },
		inputs: { '3.image': ['2', 0] },
		runnable: true,
	},
	'ecsMigration/model_free_execution.json': { nodes: { '1': 'EmptyImage', '2': 'ImageScale', '3': 'SaveImage' }, runnable: true },
	'execution/nested-subgraph-test.json': { notApplicable: { classes: ['TestSleep', 'TestAsyncProgressNode'], why: TEST_NODES } },
	'execution/partial_execution.json': {
		nodes: { '1': 'PreviewAny', '3': 'PrimitiveString', '4': 'PreviewAny' },
		inputs: { '1.source': ['3', 0], '4.source': ['3', 0], '3.value': 'foo' },
		runnable: true,
	},
	'groupnodes/group_ksampler_external_latent.json': {
		nodes: {
			'20': 'EmptyLatentImage',
			'10:0': 'CheckpointLoaderSimple',
			'10:1': 'CLIPTextEncode',
			'10:2': 'CLIPTextEncode',
			'10:3': 'KSampler',
			'10:4': 'VAEDecode',
			'10:5': 'SaveImage',
		},
		inputs: { '10:3.latent_image': ['20', 0], '10:3.seed': 42424242 },
		runnable: true,
	},
	'groupnodes/group_node_identical_nodes_hidden_inputs.json': { nodes: { '19:0': 'VAEDecode', '19:1': 'VAEDecode' } },
	'groupnodes/group_node_v1.3.3.json': {
		nodes: {
			'10:0': 'EmptyLatentImage',
			'10:1': 'CheckpointLoaderSimple',
			'10:2': 'CLIPTextEncode',
			'10:3': 'CLIPTextEncode',
			'10:4': 'KSampler',
			'10:5': 'VAEDecode',
			'10:6': 'SaveImage',
		},
		runnable: true,
	},
	'inputs/dynamic_combo.json': { notApplicable: { classes: ['ResizeImageMaskNode'], why: NEWER } },
	'inputs/dynamic_group.json': { notApplicable: { classes: ['DevToolsNodeWithDynamicGroup'], why: TEST_NODES } },
	'inputs/force_input.json': { notApplicable: { classes: ['DevToolsNodeWithForceInput'], why: TEST_NODES } },
	'inputs/native_lora_model.json': {
		notApplicable: { classes: ['LoadLoraModel', 'NativeLoraTestSource', 'NativeLoraTestOutput'], why: `${NEWER}, and ${TEST_NODES}` },
	},
	'inputs/old_workflow_converted_input.json': { nodes: { '1': 'ControlNetApplyAdvanced' }, inputs: { '1.strength': 1 } },
	'inputs/only_optional_inputs.json': { notApplicable: { classes: ['DevToolsNodeWithOnlyOptionalInput'], why: TEST_NODES } },
	'inputs/renamed_converted_widget.json': {
		nodes: { '3': 'EmptyLatentImage' },
		inputs: { '3.width': 640, '3.height': 768, '3.batch_size': 3 },
	},
	'large-graph-workflow.json': {
		nodeCount: 245,
		inputs: { '105.model': ['101', 0], '105.positive': ['102', 0], '105.negative': ['103', 0], '105.latent_image': ['104', 0] },
	},
	'legacy-v1.52.5-entity-roundtrip.json': { nodes: txt2img, inputs: { '8.vae': ['4', 2], '8.samples': ['3', 0] }, runnable: true },
	'legacy_group_node.json': { nodes: { '15:0': 'KSamplerAdvanced', '15:1': 'KSampler' } },
	'links/conflicting-origins.json': {
		nodes: { '1': 'PrimitiveStringMultiline', '2': 'PreviewAny', '3': 'PrimitiveStringMultiline' },
		inputs: { '2.source': ['3', 0] },
		runnable: true,
	},
	'links/duplicate_links_slot_drift.json': { notApplicable: { classes: ['ComfySwitchNode'], why: NEWER } },
	'links/dynamic_combo_autogrow_images.json': {
		notApplicable: { classes: ['DevToolsNodeWithDynamicComboAutogrowImages'], why: TEST_NODES },
	},
	'links/rgthree_corrupt_link.json': { nodes: { '4': 'KSampler', '5': 'PrimitiveInt' }, inputs: { '4.steps': ['5', 0] } },
	'missing/missing_media_bypassed.json': { nothingToSend: 'every node is a note, muted or bypassed' },
	'missing/missing_models_in_bypassed_subgraph.json': {
		nodes: { '1': 'KSampler' },
		notes: ['is bypassed: not sent with the nodes inside it'],
	},
	'nodes/duplicate_node_ids.json': {
		nodes: { '3': 'KSampler', '10': 'KSampler' },
		notes: ['Two nodes have id 3: the second (KSampler) is sent as node 10'],
	},
	'nodes/string_node_id.json': {
		nodes: {
			'CheckpointLoaderSimple.0': 'CheckpointLoaderSimple',
			'CLIPTextEncode.0': 'CLIPTextEncode',
			'CLIPTextEncode.1': 'CLIPTextEncode',
			'EmptyLatentImage.0': 'EmptyLatentImage',
			'KSampler.0': 'KSampler',
			'VAEDecode.0': 'VAEDecode',
			'SaveImage.0': 'SaveImage',
		},
		inputs: { 'KSampler.0.model': ['CheckpointLoaderSimple.0', 0] },
		runnable: true,
	},
	'primitive/primitive_combo_sampler_name.json': { nodes: { '2': 'KSampler' }, inputs: { '2.sampler_name': 'euler' } },
	'primitive/primitive_node.json': { nodes: { '2': 'KSampler' }, inputs: { '2.steps': 20 } },
	// The saved value is sent; "increment" applies after queueing.
	'primitive/primitive_node_control_increment.json': { nodes: { '2': 'KSampler' }, inputs: { '2.seed': 0 } },
	'reroute/native_reroute.json': { nodes: { '4': 'CheckpointLoaderSimple', '19': 'VAEDecode' }, inputs: { '19.vae': ['4', 2] } },
	'reroute_nodes.json': {
		nodes: { '4': 'CheckpointLoaderSimple', '5': 'EmptyLatentImage', '6': 'CLIPTextEncode', '7': 'CLIPTextEncode' },
		inputs: { '6.clip': ['4', 1], '7.clip': ['4', 1] },
	},
	'single_connected_reroute_node.json': { nodes: { '4': 'CheckpointLoaderSimple', '12': 'VAEDecode' }, inputs: { '12.vae': ['4', 2] } },
	'subgraphs/basic-subgraph-zero-uuid.json': { nodes: { '2:1': 'KSampler', '2:2': 'VAEEncode' } },
	// The host's value 1 wins over the inner seed.
	'subgraphs/link-seed.json': { nodes: txt2imgInSubgraph, inputs: { '10:3.seed': 1, '8.samples': ['10:3', 0] }, runnable: true },
	'subgraphs/nested-subgraph-legacy-prefixed-proxy-widgets.json': {
		nodes: nestedStrings(['5', '6', '7', '8']),
		inputs: { '2.source': ['5:6:9:7', 0], '5:6:9:7.string_a': ['5:6:5', 0] },
		notes: PREVIEW_NOTE,
		runnable: true,
	},
	'subgraphs/proxy-seed.json': { nodes: txt2imgInSubgraph, inputs: { '10:3.seed': 1 }, runnable: true },
	'subgraphs/subgraph-compressed-target-slot.json': { nodes: { '2:1': 'EmptyLatentImage' }, inputs: { '2:1.batch_size': 1 } },
	'subgraphs/subgraph-input-fanout.json': { nodes: { '2:1': 'KSampler', '2:2': 'VAEEncode', '2:3': 'KSampler' } },
	'subgraphs/subgraph-nested-duplicate-ids.json': {
		nodes: nestedStrings(['5', '6', '7', '8']),
		inputs: { '2.source': ['5:6:9:7', 0], '5:3.string_a': ['1', 0] },
		notes: PREVIEW_NOTE,
		runnable: true,
	},
	'subgraphs/subgraph-nested-promotion.json': {
		nodes: nestedStrings(['10', '11', '7', '8']),
		inputs: { '2.source': ['5:6:9:7', 0], '5:6:9:7.string_a': ['5:6:10', 0] },
		runnable: true,
	},
	// "Multiple SubgraphNode hosts keep independent migrated widget values".
	'subgraphs/subgraph-primitive-fanout-multi-host.json': {
		nodes: { '2:1': 'PrimitiveString', '2:3': 'PrimitiveInt', '12:1': 'PrimitiveString', '12:3': 'PrimitiveInt' },
		inputs: { '2:1.value': 'first-host', '2:3.value': 11, '12:1.value': 'second-host', '12:3.value': 22 },
	},
	'subgraphs/subgraph-promoted-int-text-with-primitives.json': {
		nodes: {
			'2': 'PrimitiveInt',
			'3': 'PrimitiveString',
			'4': 'EmptyLatentImage',
			'5': 'CLIPTextEncode',
			'1:10': 'CLIPTextEncode',
			'1:11': 'EmptyLatentImage',
		},
		inputs: { '1:10.text': '', '1:11.width': 512, '1:11.height': 512 },
	},
	// The host's [1, 512] follows its proxyWidgets order [batch_size, width].
	'subgraphs/subgraph-with-legacy-reordered-links.json': {
		nodes: { '2:1': 'EmptyLatentImage' },
		inputs: { '2:1.width': 512, '2:1.batch_size': 1 },
	},
	'subgraphs/subgraph-with-link-and-proxied-primitive.json': {
		nodes: { '2:1': 'PrimitiveString', '2:3': 'PrimitiveInt' },
		inputs: { '2:1.value': '', '2:3.value': 0 },
	},
	'vueNodes/ksampler-denoise-widget-link.json': {
		nodes: { '10': 'KSampler', '11': 'PrimitiveFloat' },
		inputs: { '10.denoise': ['11', 0] },
	},
	'widgets/seed_widget.json': { notApplicable: { classes: ['DevToolsNodeWithSeedInput'], why: TEST_NODES } },
};

/** Every workflow file under `dir`, as paths relative to it. */
export function assetFiles(dir: string): string[] {
	const found: string[] = [];
	const walk = (at: string) => {
		for (const name of readdirSync(at).sort()) {
			const path = join(at, name);
			if (statSync(path).isDirectory()) walk(path);
			else if (name.endsWith('.json')) found.push(relative(dir, path));
		}
	};
	walk(dir);
	return found;
}

type Spec = [unknown, Record<string, unknown>?];
const core = (required: Record<string, Spec>, output: string[], optional: Record<string, Spec> = {}) => ({
	input: { required, optional },
	input_order: { required: Object.keys(required), optional: Object.keys(optional) },
	output,
});
const LIMIT = 9223372036854775807;

/**
 * Core classes the corpus uses that ../shared/ui-format/object_info.json lacks, as ComfyUI 0.3.64
 * declares them (its nodes.py and comfy_extras): inputs in order, with what makes a widget.
 */
export const MORE_CORE_DEFINITIONS: NodeDefinitions = {
	PrimitiveInt: core({ value: ['INT', { min: -LIMIT, max: LIMIT, control_after_generate: true }] }, ['INT']),
	PrimitiveFloat: core({ value: ['FLOAT', { min: -LIMIT, max: LIMIT }] }, ['FLOAT']),
	PrimitiveString: core({ value: ['STRING', { multiline: false }] }, ['STRING']),
	PrimitiveStringMultiline: core({ value: ['STRING', { multiline: true }] }, ['STRING']),
	PreviewAny: core({ source: ['*', {}] }, []),
	StringConcatenate: core(
		{ string_a: ['STRING', { multiline: true }], string_b: ['STRING', { multiline: true }], delimiter: ['STRING', { default: '' }] },
		['STRING'],
	),
	EmptyImage: core(
		{
			width: ['INT', { default: 512, min: 1 }],
			height: ['INT', { default: 512, min: 1 }],
			batch_size: ['INT', { default: 1, min: 1 }],
			color: ['INT', { default: 0, min: 0 }],
		},
		['IMAGE'],
	),
	ControlNetApplyAdvanced: core(
		{
			positive: ['CONDITIONING'],
			negative: ['CONDITIONING'],
			control_net: ['CONTROL_NET'],
			image: ['IMAGE'],
			strength: ['FLOAT', { default: 1 }],
			start_percent: ['FLOAT', { default: 0 }],
			end_percent: ['FLOAT', { default: 1 }],
		},
		['CONDITIONING', 'CONDITIONING'],
		{ vae: ['VAE'] },
	),
};
