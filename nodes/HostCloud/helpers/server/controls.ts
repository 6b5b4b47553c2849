/**
 * server/: what the Server resource's operations share (System Stats, Free Memory, List Models,
 * Get History, Delete History): they are controls of a self-hosted ComfyUI-compatible server, which
 * the cloud does not offer. The node cannot hide operations by credential, so each refuses a cloud
 * credential by name before anything is sent. It may call transport/, nodes/shared, and of the
 * other helper folders job-reports/ (a history entry in the package's job words, with its files)
 * and ownership/ (which ids can name a job); none of them calls it.
 */
import type { IDataObject, IExecuteFunctions, ILoadOptionsFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { CloudServer } from '../../../../credentials/cloud-server';
import { clipText, clipTextsDeep } from '../../../shared/transport/service-values';
import { hostCloudServer } from '../../transport/cloud-service';
import { PICK_V1, type GenerationRefusal } from '../../transport/v2-service';
import { isRecord } from '../../../shared/items/validation';

/**
 * The credential's server, when it is a self-hosted one; on the cloud, the error that names the
 * operation. Reading the credential sends nothing, so nothing reaches the cloud.
 */
export async function selfHostedServer(
	context: IExecuteFunctions | ILoadOptionsFunctions,
	operation: string,
	itemIndex = 0,
): Promise<CloudServer> {
	const server = await hostCloudServer(context, itemIndex);
	if (server.kind === 'selfHosted') return server;
	throw new NodeOperationError(
		context.getNode(),
		`${operation} needs a self-hosted server: this Host Cloud API credential points at the Host cloud, which has no such control`,
		{
			itemIndex,
			description: `The Server operations control a ComfyUI-compatible server of your own. Pick a Host Cloud API credential whose Server is "Self-Hosted"; nothing was sent to the cloud.`,
		},
	);
}

/** Why the Server operations cannot run on the v2 API, and what to do instead (the router refuses them there by this). */
export const SERVER_CONTROLS_NOT_ON_V2: GenerationRefusal = {
	why: 'the Server operations are controls of a self-hosted ComfyUI-compatible server, which the v2 API does not offer',
	instead: `Use a Host Cloud API credential (${PICK_V1}) whose Server is "Self-Hosted".`,
};

/** The longest model or folder name passed on: no file is named by a longer text. */
const NAME_MAX_CHARS = 1024;

/**
 * The most names one listing passes on, and the most characters they take together: a server's
 * answer (which may be up to 64 MiB) never becomes an item of that size. A real server lists a
 * few hundred models a folder; the names left out are counted.
 */
export const MAX_LISTED_NAMES = 10_000;
export const MAX_LISTED_CHARS = 1024 * 1024;

/** What an answer that is not a list of names is, in words. */
function whatCame(answer: unknown): string {
	if (answer === null || answer === undefined || answer === '') return 'nothing';
	return typeof answer === 'object' ? 'an object' : `a ${typeof answer}`;
}

/**
 * The names of a listing (`GET /models`, `GET /models/{folder}`: a JSON list of texts), each
 * clipped and listed once, within MAX_LISTED_NAMES and MAX_LISTED_CHARS (`notListed` counts the
 * others); an answer of another shape is an error that says what came, never an empty list.
 */
export function namesOf(
	context: IExecuteFunctions | ILoadOptionsFunctions,
	answer: unknown,
	what: string,
	itemIndex = 0,
): { names: string[]; notListed: number } {
	if (!Array.isArray(answer))
		throw new NodeOperationError(context.getNode(), `Your server answered ${whatCame(answer)} instead of a list of names while ${what}`, {
			itemIndex,
			description: 'A ComfyUI-compatible server answers a JSON list of names here. Check the Server URL of the credential, then try again.',
		});
	const names = new Set<string>();
	const left = new Set<string>();
	let chars = 0;
	for (const entry of answer) {
		if (typeof entry !== 'string') continue;
		const name = clipText(entry, NAME_MAX_CHARS);
		if (names.has(name)) continue;
		if (names.size < MAX_LISTED_NAMES && chars + name.length <= MAX_LISTED_CHARS) {
			names.add(name);
			chars += name.length;
		} else left.add(name);
	}
	return { names: [...names], notListed: left.size };
}

/** The texts and numbers of /system_stats a user reads, by where they are (a field left out is let be: servers differ). */
const SYSTEM_TEXTS = ['os', 'comfyui_version', 'python_version', 'pytorch_version'];
const SYSTEM_NUMBERS = ['ram_total', 'ram_free'];
const DEVICE_TEXTS = ['name', 'type'];
const DEVICE_NUMBERS = ['vram_total', 'vram_free', 'torch_vram_total', 'torch_vram_free'];

/** Why a /system_stats answer is not what the server sends, or undefined when it is. */
function systemStatsProblem(answer: IDataObject): string | undefined {
	const { system, devices } = answer;
	if (!isRecord(system)) return 'it has no "system" object';
	if (!Array.isArray(devices)) return 'it has no "devices" list';
	const wrong = (record: Record<string, unknown>, texts: string[], numbers: string[], where: string) =>
		(texts.find((key) => key in record && typeof record[key] !== 'string') ??
		numbers.find((key) => key in record && (typeof record[key] !== 'number' || !Number.isFinite(record[key]))))
			? `${where} has a value of the wrong type`
			: undefined;
	const inSystem = wrong(system, SYSTEM_TEXTS, SYSTEM_NUMBERS, '"system"');
	if (inSystem) return inSystem;
	for (const [index, device] of devices.entries()) {
		if (!isRecord(device) || DEVICE_TEXTS.some((key) => typeof device[key] !== 'string')) return `device ${index + 1} has no name or type`;
		const inDevice = wrong(device, [], DEVICE_NUMBERS, `device ${index + 1}`);
		if (inDevice) return inDevice;
	}
	return undefined;
}

/** A /system_stats answer with its texts clipped, or an error saying what is wrong with it: never a success from a broken answer. */
export function checkedSystemStats(context: IExecuteFunctions, answer: IDataObject, itemIndex: number): IDataObject {
	const problem = systemStatsProblem(answer);
	if (problem) {
		throw new NodeOperationError(
			context.getNode(),
			`Your server's answer to reading the system stats is not what a ComfyUI-compatible server sends: ${problem}`,
			{
				itemIndex,
				description: 'Nothing was read from this answer. Check the Server URL of the credential, then try again.',
			},
		);
	}
	return clipTextsDeep(answer);
}
