/**
 * Self-hosted: the model folders and the files in them, as the upstream server lists them
 * (GET /models, /models/{folder}, /embeddings), and POST /free, which only sets flags that the
 * server acts on between jobs (so it answers at once, with no body). The checkpoints are the
 * catalogue's, so a workflow naming a listed model passes validation.
 */
import type { ServerResponse } from 'node:http';

import { CHECKPOINTS, UNAVAILABLE_CHECKPOINTS } from '../cloud/catalogue';
import { isPlainObject, sendJson, type SimRequest } from '../shared/core';
import { bare, crash } from './files';

/** The folders upstream 0.3.64 registers, in its order (GET /models answers their names). */
const FOLDERS = [
	'checkpoints',
	'configs',
	'loras',
	'vae',
	'text_encoders',
	'diffusion_models',
	'clip_vision',
	'style_models',
	'embeddings',
	'diffusers',
	'vae_approx',
	'controlnet',
	'gligen',
	'upscale_models',
	'custom_nodes',
	'hypernetworks',
	'photomaker',
	'classifiers',
	'model_patches',
	'audio_encoders',
];

/** The simulated server's model files, by folder; a folder not named here is empty. */
const FILES: Record<string, string[]> = {
	checkpoints: [...CHECKPOINTS, ...UNAVAILABLE_CHECKPOINTS],
	loras: ['add_detail.safetensors', 'lcm_lora_sd15.safetensors'],
	vae: ['sdxl_vae.safetensors', 'vae-ft-mse-840000-ema-pruned.safetensors'],
	upscale_models: ['4x-UltraSharp.pth', 'RealESRGAN_x4plus.pth'],
	embeddings: ['easynegative.safetensors'],
};

/** What was asked of POST /free, in the order it came (tests read it). */
export interface FreeRequest {
	unload_models: unknown;
	free_memory: unknown;
}

export function createModelHandlers() {
	const freed: FreeRequest[] = [];
	return {
		freed: freed as ReadonlyArray<FreeRequest>,
		/** GET /models: the folder names. */
		folders(_req: SimRequest, res: ServerResponse): void {
			sendJson(res, 200, FOLDERS);
		},
		/** GET /models/{folder}: its files, sorted as upstream lists them; a folder it does not register is a bare 404. */
		files(req: SimRequest, res: ServerResponse): void {
			const folder = req.params.folder ?? '';
			if (!FOLDERS.includes(folder)) return bare(res, 404);
			sendJson(res, 200, [...(FILES[folder] ?? [])].sort());
		},
		/** GET /embeddings: the embeddings' names without their extension. */
		embeddings(_req: SimRequest, res: ServerResponse): void {
			sendJson(
				res,
				200,
				[...(FILES.embeddings ?? [])].sort().map((name) => name.replace(/\.[^.]+$/, '')),
			);
		},
		/** GET /extensions: the front end's extension scripts; a server without custom nodes has none. */
		extensions(_req: SimRequest, res: ServerResponse): void {
			sendJson(res, 200, []);
		},
		/** POST /free: upstream reads the JSON body without a check (anything but an object crashes it) and answers 200, no body. */
		free(req: SimRequest, res: ServerResponse): void {
			let body: unknown;
			try {
				body = JSON.parse(req.rawBody.toString('utf8'));
			} catch {
				return crash(res);
			}
			if (!isPlainObject(body)) return crash(res);
			freed.push({ unload_models: body.unload_models ?? false, free_memory: body.free_memory ?? false });
			bare(res, 200);
		},
		reset(): void {
			freed.length = 0;
		},
	};
}
