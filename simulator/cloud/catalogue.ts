/**
 * Cloud: the node catalogue served by GET /api/object_info, in the usual node-definition shape
 * (input.required / input.optional of type specs, output, output_name, output_node, ...), plus
 * what the simulated runner needs to know about each class: which output key its `executed`
 * message uses and which file format it writes.
 */
import type { MediaKind } from './media';

/** `[TYPE]`, `[TYPE, options]`, or a combo `[[choices], options]`. */
export type InputSpec = [string | string[]] | [string | string[], Record<string, unknown>];

export interface NodeDefinition {
	input: { required: Record<string, InputSpec>; optional?: Record<string, InputSpec>; hidden?: Record<string, string> };
	/** The key order of each section, as the real server sends it (JSON readers may lose key order; the editor's widget order needs it). */
	input_order: { required: string[]; optional?: string[]; hidden?: string[] };
	output: string[];
	output_is_list: boolean[];
	output_name: string[];
	name: string;
	display_name: string;
	description: string;
	python_module: string;
	category: string;
	output_node: boolean;
	/** Only nodes of the newer node API carry these two (the classic ones, as the upstream server sends them, do not). */
	deprecated?: boolean;
	experimental?: boolean;
	/** Partner nodes (calling external AI services) carry this flag. */
	api_node?: boolean;
}

/** How an output node reports its files in `executed`. */
export interface OutputBehaviour {
	key: 'images' | 'video' | 'gifs' | 'audio';
	/** Storage folder type written into the reference (temp for previews). */
	folder: 'output' | 'temp';
	kind: (inputs: Record<string, unknown>) => MediaKind;
}

export const CHECKPOINTS = [
	'v1-5-pruned-emaonly.safetensors',
	'v1-5-pruned-emaonly-fp16.safetensors',
	'sd_xl_base_1.0.safetensors',
	'sd_xl_refiner_1.0.safetensors',
	'sd3.5_medium.safetensors',
	'flux1-dev-fp8.safetensors',
	'flux1-schnell-fp8.safetensors',
	'dreamshaper_8.safetensors',
];

/** Present in the catalogue (so validation passes) but absent from the model store: loading fails at run time. */
export const UNAVAILABLE_CHECKPOINTS = ['sd_xl_turbo_1.0_fp16.safetensors'];

const SAMPLERS = ['euler', 'euler_ancestral', 'heun', 'dpm_2', 'dpmpp_2m', 'dpmpp_2m_sde', 'dpmpp_sde', 'ddim', 'uni_pc', 'lcm'];
const SCHEDULERS = ['normal', 'karras', 'exponential', 'sgm_uniform', 'simple', 'ddim_uniform', 'beta'];
const MAX_SEED = 0xffffffffffffffff;
const PROMPT_HIDDEN = { prompt: 'PROMPT', extra_pnginfo: 'EXTRA_PNGINFO' };

interface DefinitionParts {
	display: string;
	category: string;
	description: string;
	required: Record<string, InputSpec>;
	optional?: Record<string, InputSpec>;
	hidden?: Record<string, string>;
	output?: string[];
	outputName?: string[];
	outputNode?: boolean;
	module?: string;
	apiNode?: boolean;
}

function define(name: string, p: DefinitionParts): NodeDefinition {
	const output = p.output ?? [];
	const def: NodeDefinition = {
		input: { required: p.required },
		input_order: { required: Object.keys(p.required) },
		output,
		output_is_list: output.map(() => false),
		output_name: p.outputName ?? output,
		name,
		display_name: p.display,
		description: p.description,
		python_module: p.module ?? 'nodes',
		category: p.category,
		output_node: p.outputNode ?? false,
	};
	if (p.module && p.module !== 'nodes') Object.assign(def, { deprecated: false, experimental: false });
	if (p.optional) {
		def.input.optional = p.optional;
		def.input_order.optional = Object.keys(p.optional);
	}
	if (p.hidden) {
		def.input.hidden = p.hidden;
		def.input_order.hidden = Object.keys(p.hidden);
	}
	if (p.apiNode) def.api_node = true;
	return def;
}

const int = (dflt: number, min: number, max: number, extra: Record<string, unknown> = {}): InputSpec => [
	'INT',
	{ default: dflt, min, max, ...extra },
];
const float = (dflt: number, min: number, max: number, step: number): InputSpec => ['FLOAT', { default: dflt, min, max, step }];
const text = (dflt: string, multiline = false): InputSpec => ['STRING', { default: dflt, multiline }];

/**
 * The catalogue. `inputFiles` fills the LoadImage/LoadImageMask combos with the caller's uploaded
 * inputs, as the real service lists files the account can load.
 */
export function buildCatalogue(inputFiles: string[] = []): Record<string, NodeDefinition> {
	const files = [...inputFiles].sort();
	const defs: NodeDefinition[] = [
		define('CheckpointLoaderSimple', {
			display: 'Load Checkpoint',
			category: 'loaders',
			description: 'Loads a diffusion model checkpoint, diffusion models are used to denoise latents.',
			required: { ckpt_name: [[...CHECKPOINTS, ...UNAVAILABLE_CHECKPOINTS], { tooltip: 'The name of the checkpoint (model) to load.' }] },
			output: ['MODEL', 'CLIP', 'VAE'],
		}),
		define('CLIPTextEncode', {
			display: 'CLIP Text Encode (Prompt)',
			category: 'conditioning',
			description: 'Encodes a text prompt using a CLIP model into an embedding that can be used to guide the diffusion model.',
			required: { text: ['STRING', { multiline: true, dynamicPrompts: true }], clip: ['CLIP'] },
			output: ['CONDITIONING'],
		}),
		define('EmptyLatentImage', {
			display: 'Empty Latent Image',
			category: 'latent',
			description: 'Create a new batch of empty latent images to be denoised via sampling.',
			required: { width: int(512, 16, 16384, { step: 8 }), height: int(512, 16, 16384, { step: 8 }), batch_size: int(1, 1, 4096) },
			output: ['LATENT'],
		}),
		define('KSampler', {
			display: 'KSampler',
			category: 'sampling',
			description: 'Uses the provided model, positive and negative conditioning to denoise the latent image.',
			required: {
				model: ['MODEL'],
				seed: int(0, 0, MAX_SEED, { control_after_generate: true }),
				steps: int(20, 1, 10000),
				cfg: float(8, 0, 100, 0.1),
				sampler_name: [SAMPLERS, {}],
				scheduler: [SCHEDULERS, {}],
				positive: ['CONDITIONING'],
				negative: ['CONDITIONING'],
				latent_image: ['LATENT'],
				denoise: float(1, 0, 1, 0.01),
			},
			output: ['LATENT'],
		}),
		define('VAEDecode', {
			display: 'VAE Decode',
			category: 'latent',
			description: 'Decodes latent images back into pixel space images.',
			required: { samples: ['LATENT'], vae: ['VAE'] },
			output: ['IMAGE'],
		}),
		define('VAEEncode', {
			display: 'VAE Encode',
			category: 'latent',
			description: 'Encodes pixel space images into latent space images (the start of image to image).',
			required: { pixels: ['IMAGE'], vae: ['VAE'] },
			output: ['LATENT'],
		}),
		define('SaveImage', {
			display: 'Save Image',
			category: 'image',
			description: 'Saves the input images to your output directory.',
			required: {
				images: ['IMAGE', { tooltip: 'The images to save.' }],
				filename_prefix: [
					'STRING',
					{
						default: 'ComfyUI',
						tooltip:
							'The prefix for the file to save. This may include formatting information such as %date:yyyy-MM-dd% or %Empty Latent Image.width% to include values from nodes.',
					},
				],
			},
			hidden: PROMPT_HIDDEN,
			outputNode: true,
		}),
		define('PreviewImage', {
			display: 'Preview Image',
			category: 'image',
			description: 'Saves the input images to a temporary location for previewing.',
			required: { images: ['IMAGE'] },
			hidden: PROMPT_HIDDEN,
			outputNode: true,
		}),
		// Model-free image nodes, defined as the upstream server defines them (test/fixtures/real-server/reads.json).
		define('EmptyImage', {
			display: 'EmptyImage',
			category: 'image',
			description: '',
			required: {
				width: int(512, 1, 16384, { step: 1 }),
				height: int(512, 1, 16384, { step: 1 }),
				batch_size: int(1, 1, 4096),
				color: int(0, 0, 16777215, { step: 1, display: 'color' }),
			},
			output: ['IMAGE'],
		}),
		define('ImageBlur', {
			display: 'Image Blur',
			category: 'image/postprocessing',
			description: '',
			required: { image: ['IMAGE', {}], blur_radius: int(1, 1, 31, { step: 1 }), sigma: float(1, 0.1, 10, 0.1) },
			output: ['IMAGE'],
			module: 'comfy_extras.nodes_post_processing',
		}),
		define('SaveImageWebsocket', {
			display: 'SaveImageWebsocket',
			category: 'api/image',
			description: '',
			required: { images: ['IMAGE'] },
			outputNode: true,
			module: 'custom_nodes.websocket_image_save',
		}),
		define('LoadImage', {
			display: 'Load Image',
			category: 'image',
			description: 'Loads an uploaded input image and its alpha channel as a mask.',
			required: { image: [files, { image_upload: true }] },
			output: ['IMAGE', 'MASK'],
		}),
		define('LoadImageMask', {
			display: 'Load Image (as Mask)',
			category: 'mask',
			description: 'Loads one channel of an uploaded input image as a mask.',
			required: { image: [files, { image_upload: true }], channel: [['alpha', 'red', 'green', 'blue'], {}] },
			output: ['MASK'],
		}),
		define('CreateVideo', {
			display: 'Create Video',
			category: 'image/video',
			description: 'Create a video from images.',
			required: { images: ['IMAGE'], fps: float(30, 1, 120, 1) },
			optional: { audio: ['AUDIO'] },
			output: ['VIDEO'],
			module: 'comfy_extras.nodes_video',
		}),
		define('SaveVideo', {
			display: 'Save Video',
			category: 'image/video',
			description: 'Saves the input video to your output directory.',
			required: {
				video: ['VIDEO'],
				filename_prefix: text('video/ComfyUI'),
				format: [['auto', 'mp4'], { default: 'auto' }],
				codec: [['auto', 'h264'], { default: 'auto' }],
			},
			hidden: PROMPT_HIDDEN,
			outputNode: true,
			module: 'comfy_extras.nodes_video',
		}),
		define('VHS_VideoCombine', {
			display: 'Video Combine 🎥🅥🅗🅢',
			category: 'Video Helper Suite 🎥🅥🅗🅢',
			description: 'Combines a batch of images (and optional audio) into an animated image or a video file.',
			required: {
				images: ['IMAGE'],
				frame_rate: float(8, 1, 120, 1),
				loop_count: int(0, 0, 100),
				filename_prefix: text('AnimateDiff'),
				format: [['image/gif', 'video/h264-mp4', 'video/h265-mp4'], {}],
				pingpong: ['BOOLEAN', { default: false }],
				save_output: ['BOOLEAN', { default: true }],
			},
			optional: { audio: ['AUDIO'], meta_batch: ['VHS_BatchManager'], vae: ['VAE'] },
			hidden: { ...PROMPT_HIDDEN, unique_id: 'UNIQUE_ID' },
			output: ['VHS_FILENAMES'],
			outputName: ['Filenames'],
			outputNode: true,
			module: 'custom_nodes.ComfyUI-VideoHelperSuite',
		}),
		define('EmptyLatentAudio', {
			display: 'Empty Latent Audio',
			category: 'latent/audio',
			description: 'Create an empty latent for audio generation.',
			required: { seconds: float(47.6, 1, 1000, 0.1), batch_size: int(1, 1, 4096) },
			output: ['LATENT'],
			module: 'comfy_extras.nodes_audio',
		}),
		define('VAEDecodeAudio', {
			display: 'VAE Decode Audio',
			category: 'latent/audio',
			description: 'Decodes audio latents into a waveform.',
			required: { samples: ['LATENT'], vae: ['VAE'] },
			output: ['AUDIO'],
			module: 'comfy_extras.nodes_audio',
		}),
		define('SaveAudio', {
			display: 'Save Audio',
			category: 'audio',
			description: 'Saves the input audio to your output directory.',
			required: { audio: ['AUDIO'], filename_prefix: text('audio/ComfyUI') },
			hidden: PROMPT_HIDDEN,
			outputNode: true,
			module: 'comfy_extras.nodes_audio',
		}),
		define('PartnerImageGenerate', {
			display: 'Partner Image Generate',
			category: 'api node/image/Partner',
			description:
				'Generates an image with an external partner service; billed to the platform account (needs extra_data.api_key_host_org).',
			required: {
				prompt: text('', true),
				width: int(1024, 256, 2048, { step: 64 }),
				height: int(1024, 256, 2048, { step: 64 }),
				seed: int(0, 0, 2147483647, { control_after_generate: true }),
			},
			hidden: { auth_token_host_org: 'AUTH_TOKEN_HOST_ORG', api_key_host_org: 'API_KEY_HOST_ORG', unique_id: 'UNIQUE_ID' },
			output: ['IMAGE'],
			module: 'comfy_api_nodes.nodes_partner',
			apiNode: true,
		}),
	];
	return Object.fromEntries(defs.map((d) => [d.name, d]));
}

/** Output nodes and how they report files. */
export const OUTPUT_BEHAVIOUR: Record<string, OutputBehaviour> = {
	SaveImage: { key: 'images', folder: 'output', kind: () => 'png' },
	PreviewImage: { key: 'images', folder: 'temp', kind: () => 'png' },
	SaveVideo: { key: 'video', folder: 'output', kind: () => 'mp4' },
	VHS_VideoCombine: { key: 'gifs', folder: 'output', kind: (inputs) => (String(inputs.format ?? '').startsWith('video/') ? 'mp4' : 'gif') },
	SaveAudio: { key: 'audio', folder: 'output', kind: () => 'wav' },
};

/** Classes with extra runtime behaviour: sampling steps (progress + previews). */
export const SAMPLER_CLASSES = new Set(['KSampler']);
