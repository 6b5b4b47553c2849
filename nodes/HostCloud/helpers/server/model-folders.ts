/**
 * The model files an input of a workflow node may name, from a self-hosted server's model folders
 * (GET /models/{folder}), for the editor's Value From Server List where the server's node
 * definitions list no values for that input (a custom loader that takes a text, a class the server
 * does not describe). The folder is found from the input's name, as ComfyUI's own loaders name
 * them (`lora_name` reads `loras`), and only among the folders the server says it has.
 */
import type { ILoadOptionsFunctions } from 'n8n-workflow';

import { hostCloudServer } from '../../transport/cloud-service';
import { readModelFiles, readModelFolders } from '../../transport/cloud-api';
import { namesOf } from './controls';

/** Input name → the model folders it names files of, first the current name, then older ones. */
const FOLDERS_OF_INPUT: Record<string, string[]> = {
	ckpt_name: ['checkpoints'],
	lora_name: ['loras'],
	vae_name: ['vae'],
	control_net_name: ['controlnet'],
	upscale_model_name: ['upscale_models'],
	unet_name: ['diffusion_models', 'unet'],
	clip_name: ['text_encoders', 'clip'],
	clip_name1: ['text_encoders', 'clip'],
	clip_name2: ['text_encoders', 'clip'],
	clip_name3: ['text_encoders', 'clip'],
	clip_vision_name: ['clip_vision'],
	style_model_name: ['style_models'],
	gligen_name: ['gligen'],
	hypernetwork_name: ['hypernetworks'],
	photomaker_model_name: ['photomaker'],
	config_name: ['configs'],
};

/** The files of the folder `inputName` names on a self-hosted server; undefined where there is none (or on the cloud). */
export async function modelFilesForInput(
	context: ILoadOptionsFunctions,
	inputName: string,
): Promise<{ folder: string; files: string[] } | undefined> {
	const candidates = Object.prototype.hasOwnProperty.call(FOLDERS_OF_INPUT, inputName) ? FOLDERS_OF_INPUT[inputName]! : [];
	if (candidates.length === 0 || (await hostCloudServer(context)).kind !== 'selfHosted') return undefined;
	const folders = namesOf(context, await readModelFolders(context), 'listing the model folders').names;
	const folder = candidates.find((candidate) => folders.includes(candidate));
	if (!folder) return undefined;
	return { folder, files: namesOf(context, await readModelFiles(context, folder, 0), `listing the models of folder "${folder}"`).names };
}
