/**
 * Workflows as the ComfyUI editor saves them (UI format), written for the tests against the
 * simulator's node definitions: the standard text-to-image graph with what saved files carry
 * (titles, a Note, a Reroute, a PrimitiveNode feeding a widget, a muted preview), and variants with
 * a subgraph and with a Load Image node. Converted, the first one is test/fixtures/txt2img-api.json.
 */

type Input = [name: string, type: string, link: number | null, widget?: string];
type Link = [id: number, origin: number, originSlot: number, target: number, targetSlot: number, type: string];

export interface UiNodeJson {
	id: number;
	type: string;
	mode: number;
	title?: string;
	inputs: Array<{ name: string; type: string; link: number | null; widget?: { name: string } }>;
	outputs: Array<{ name: string; type: string; links: number[] }>;
	widgets_values?: unknown;
	properties: Record<string, unknown>;
}

export interface UiWorkflowJson {
	nodes: UiNodeJson[];
	links: unknown[];
	[key: string]: unknown;
}

/** A node as the editor saves it; an input's fourth entry names the widget it stands for (a converted widget). */
export function uiNode(
	id: number,
	type: string,
	options: { inputs?: Input[]; outputs?: string[]; values?: unknown; title?: string; mode?: number } = {},
): UiNodeJson {
	return {
		id,
		type,
		mode: options.mode ?? 0,
		...(options.title ? { title: options.title } : {}),
		inputs: (options.inputs ?? []).map(([name, kind, link, widget]) => ({
			name,
			type: kind,
			link,
			...(widget ? { widget: { name: widget } } : {}),
		})),
		outputs: (options.outputs ?? []).map((kind) => ({ name: kind, type: kind, links: [] })),
		...(options.values !== undefined ? { widgets_values: options.values } : {}),
		properties: { 'Node name for S&R': type },
	};
}

function saved(nodes: UiNodeJson[], links: Link[], more: Record<string, unknown> = {}): UiWorkflowJson {
	// Each output lists the links leaving it, as the editor writes them.
	for (const [id, origin, slot] of links) nodes.find((node) => node.id === origin)?.outputs[slot]?.links.push(id);
	return {
		last_node_id: Math.max(...nodes.map((node) => node.id)),
		last_link_id: Math.max(0, ...links.map(([id]) => id)),
		nodes,
		links,
		groups: [],
		config: {},
		extra: { ds: { scale: 1, offset: [0, 0] } },
		version: 0.4,
		...more,
	};
}

const PROMPT = 'a lighthouse on a cliff at dusk, oil painting';
const NEGATIVE = 'blurry, low quality';

/** Checkpoint, prompts and empty latent: links 3 and 5 carry the CLIP, 4 and 6 the prompts, 2 the latent, 1 the model, 8 the VAE. */
function promptNodes(): UiNodeJson[] {
	return [
		uiNode(4, 'CheckpointLoaderSimple', { outputs: ['MODEL', 'CLIP', 'VAE'], values: ['v1-5-pruned-emaonly.safetensors'] }),
		uiNode(6, 'CLIPTextEncode', { title: 'Positive', inputs: [['clip', 'CLIP', 3]], outputs: ['CONDITIONING'], values: [PROMPT] }),
		uiNode(7, 'CLIPTextEncode', { title: 'Negative', inputs: [['clip', 'CLIP', 5]], outputs: ['CONDITIONING'], values: [NEGATIVE] }),
		uiNode(5, 'EmptyLatentImage', { outputs: ['LATENT'], values: [512, 512, 1] }),
	];
}

/** The standard text-to-image graph as saved from the editor. */
export function uiTxt2img(): UiWorkflowJson {
	return saved(
		[
			...promptNodes(),
			uiNode(12, 'PrimitiveNode', { title: 'steps', outputs: ['INT'], values: [20, 'fixed'] }),
			uiNode(3, 'KSampler', {
				inputs: [
					['model', 'MODEL', 1],
					['positive', 'CONDITIONING', 4],
					['negative', 'CONDITIONING', 6],
					['latent_image', 'LATENT', 2],
					['steps', 'INT', 12, 'steps'],
				],
				outputs: ['LATENT'],
				values: [156680208700286, 'randomize', 25, 8, 'euler', 'normal', 1],
			}),
			uiNode(10, 'Reroute', { inputs: [['', '*', 8]], outputs: ['VAE'] }),
			uiNode(8, 'VAEDecode', {
				inputs: [
					['samples', 'LATENT', 7],
					['vae', 'VAE', 10],
				],
				outputs: ['IMAGE'],
			}),
			uiNode(9, 'SaveImage', { inputs: [['images', 'IMAGE', 9]], values: ['lighthouse'] }),
			uiNode(13, 'PreviewImage', { mode: 2, inputs: [['images', 'IMAGE', 11]] }),
			uiNode(11, 'Note', { values: ['Saved from the editor: run it as is.'] }),
		],
		[
			[1, 4, 0, 3, 0, 'MODEL'],
			[2, 5, 0, 3, 3, 'LATENT'],
			[3, 4, 1, 6, 0, 'CLIP'],
			[4, 6, 0, 3, 1, 'CONDITIONING'],
			[5, 4, 1, 7, 0, 'CLIP'],
			[6, 7, 0, 3, 2, 'CONDITIONING'],
			[7, 3, 0, 8, 0, 'LATENT'],
			[8, 4, 2, 10, 0, 'VAE'],
			[9, 8, 0, 9, 0, 'IMAGE'],
			[10, 10, 0, 8, 1, 'VAE'],
			[11, 8, 0, 13, 0, 'IMAGE'],
			[12, 12, 0, 3, 4, 'INT'],
		],
	);
}

const SAMPLE_SUBGRAPH = '6f0e2c1a-5b7d-4e3f-9a8b-1c2d3e4f5a6b';

/**
 * The same graph with sampling and decoding inside a subgraph (instance 57: sent as "57:3" and
 * "57:8"), its seed promoted to the instance (the instance's value wins), and, with `loadImage`, a
 * Load Image node and its preview, for Input Images (the server refuses the placeholder file).
 */
export function uiTxt2imgInSubgraph(loadImage = true): UiWorkflowJson {
	const subgraph = {
		id: SAMPLE_SUBGRAPH,
		version: 1,
		name: 'Sample and decode',
		inputNode: { id: -10, bounding: [0, 0, 120, 100] },
		outputNode: { id: -20, bounding: [600, 0, 120, 60] },
		inputs: [
			{ id: 'i-model', name: 'model', type: 'MODEL', linkIds: [101] },
			{ id: 'i-pos', name: 'positive', type: 'CONDITIONING', linkIds: [102] },
			{ id: 'i-neg', name: 'negative', type: 'CONDITIONING', linkIds: [103] },
			{ id: 'i-latent', name: 'latent_image', type: 'LATENT', linkIds: [104] },
			{ id: 'i-vae', name: 'vae', type: 'VAE', linkIds: [105] },
			{ id: 'i-seed', name: 'seed', type: 'INT', linkIds: [106] },
		],
		outputs: [{ id: 'o-image', name: 'IMAGE', type: 'IMAGE', linkIds: [108] }],
		widgets: [],
		nodes: [
			uiNode(3, 'KSampler', {
				inputs: [
					['model', 'MODEL', 101],
					['positive', 'CONDITIONING', 102],
					['negative', 'CONDITIONING', 103],
					['latent_image', 'LATENT', 104],
					['seed', 'INT', 106, 'seed'],
				],
				outputs: ['LATENT'],
				values: [1, 'fixed', 20, 8, 'euler', 'normal', 1],
			}),
			uiNode(8, 'VAEDecode', {
				inputs: [
					['samples', 'LATENT', 107],
					['vae', 'VAE', 105],
				],
				outputs: ['IMAGE'],
			}),
		],
		links: [
			{ id: 101, origin_id: -10, origin_slot: 0, target_id: 3, target_slot: 0, type: 'MODEL' },
			{ id: 102, origin_id: -10, origin_slot: 1, target_id: 3, target_slot: 1, type: 'CONDITIONING' },
			{ id: 103, origin_id: -10, origin_slot: 2, target_id: 3, target_slot: 2, type: 'CONDITIONING' },
			{ id: 104, origin_id: -10, origin_slot: 3, target_id: 3, target_slot: 3, type: 'LATENT' },
			{ id: 105, origin_id: -10, origin_slot: 4, target_id: 8, target_slot: 1, type: 'VAE' },
			{ id: 106, origin_id: -10, origin_slot: 5, target_id: 3, target_slot: 4, type: 'INT' },
			{ id: 107, origin_id: 3, origin_slot: 0, target_id: 8, target_slot: 0, type: 'LATENT' },
			{ id: 108, origin_id: 8, origin_slot: 0, target_id: -20, target_slot: 0, type: 'IMAGE' },
		],
	};
	const instance = uiNode(57, SAMPLE_SUBGRAPH, {
		inputs: [
			['model', 'MODEL', 1],
			['positive', 'CONDITIONING', 4],
			['negative', 'CONDITIONING', 6],
			['latent_image', 'LATENT', 2],
			['vae', 'VAE', 8],
			['seed', 'INT', null, 'seed'],
		],
		outputs: ['IMAGE'],
		values: [156680208700286],
	});
	const loader = [
		uiNode(20, 'LoadImage', { title: 'Reference photo', outputs: ['IMAGE', 'MASK'], values: ['placeholder.png', 'image'] }),
		uiNode(21, 'PreviewImage', { inputs: [['images', 'IMAGE', 10]] }),
	];
	return saved(
		[
			...promptNodes(),
			instance,
			uiNode(9, 'SaveImage', { inputs: [['images', 'IMAGE', 9]], values: ['lighthouse'] }),
			...(loadImage ? loader : []),
		],
		[
			[1, 4, 0, 57, 0, 'MODEL'],
			[2, 5, 0, 57, 3, 'LATENT'],
			[3, 4, 1, 6, 0, 'CLIP'],
			[4, 6, 0, 57, 1, 'CONDITIONING'],
			[5, 4, 1, 7, 0, 'CLIP'],
			[6, 7, 0, 57, 2, 'CONDITIONING'],
			[8, 4, 2, 57, 4, 'VAE'],
			[9, 57, 0, 9, 0, 'IMAGE'],
			...(loadImage ? ([[10, 20, 0, 21, 0, 'IMAGE']] as Link[]) : []),
		],
		{ version: 0.4, definitions: { subgraphs: [subgraph] } },
	);
}

/** A saved workflow with a node type the server does not have (a custom node). */
export function uiWithCustomNode(): UiWorkflowJson {
	const workflow = uiTxt2img();
	workflow.nodes.push(uiNode(30, 'FaceDetailerPlus', { title: 'Fix faces', inputs: [['image', 'IMAGE', null]], outputs: ['IMAGE'] }));
	return workflow;
}
