/**
 * What the recipe cases (cases/recipes.ts) read at the destinations: the recipes of
 * examples/recipes/, a cloud job's file as the simulator serves it, the entries of a zip, the size
 * of a PNG, a mail's headers and body.
 */
import { createHash } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';

import type { Simulator, V2Simulator } from '../../../simulator/server';
import type { WorkflowJson } from './n8n-client';
import { assetBytes } from './v2-server';
import { EXAMPLES_DIR, loadExamples } from './workflows';

export const RECIPES_DIR = `${EXAMPLES_DIR}/recipes`;

export function loadRecipe(file: string): WorkflowJson {
	const found = loadExamples(RECIPES_DIR).find((example) => example.file === file);
	if (!found) throw new Error(`examples/recipes/${file} is missing`);
	return found.workflow;
}

/** A copy of the workflow with one node's parameter changed (a dotted path), as a user edits it. */
export function withParameter(workflow: WorkflowJson, nodeName: string, path: string, value: unknown): WorkflowJson {
	const copy = JSON.parse(JSON.stringify(workflow)) as WorkflowJson;
	const node = copy.nodes.find((candidate) => candidate.name === nodeName);
	if (!node) throw new Error(`No node "${nodeName}" in "${workflow.name}"`);
	const keys = path.split('.');
	let target = node.parameters as Record<string, unknown>;
	for (const key of keys.slice(0, -1)) target = (target[key] ??= {}) as Record<string, unknown>;
	target[keys[keys.length - 1]!] = value;
	return copy;
}

interface LiveJob {
	status: string;
	graph: Record<string, { inputs: Record<string, unknown> }>;
	outputs: Record<string, Record<string, Array<{ filename: string; subfolder?: string; type?: string }> | undefined>>;
	error?: { exception_message: string };
}

/** The simulator's cloud jobs whose prompt (node 6's text) is `prompt`, with their prompt_id. */
export function jobsWithPrompt(simulator: Simulator, prompt: string): Array<LiveJob & { promptId: string }> {
	return [...simulator.cloud.jobs.values()]
		.map((job) => job as unknown as LiveJob & { promptId: string })
		.filter((job) => job.graph?.['6']?.inputs.text === prompt);
}

/** The bytes of a job's first image as the service serves them: /api/view, then its signed URL without the key. */
export async function jobImageBytes(simulator: Simulator, promptId: string): Promise<Buffer> {
	const job = simulator.cloud.jobs.get(promptId) as unknown as LiveJob | undefined;
	const image = Object.values(job?.outputs ?? {}).flatMap((output) => output.images ?? [])[0];
	if (!image) throw new Error(`Job ${promptId} has no image output (status ${job?.status ?? 'unknown'})`);
	const query = new URLSearchParams({ filename: image.filename, subfolder: image.subfolder ?? '', type: image.type ?? 'output' });
	const view = await fetch(`${simulator.baseUrl}/api/view?${query}`, { headers: { 'X-API-Key': simulator.apiKey }, redirect: 'manual' });
	const location = view.headers.get('location');
	if (!location) throw new Error(`/api/view answered ${view.status} without a Location for ${image.filename}`);
	const file = await fetch(location);
	if (file.status !== 200) throw new Error(`The signed URL of ${image.filename} answered ${file.status}`);
	return Buffer.from(await file.arrayBuffer());
}

/** A short digest of bytes, for comparing files in a readable assertion. */
export const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex').slice(0, 16);

/** POSTs `{prompt, seed}` to an image API's webhook, as its client does; expects a 200 PNG and answers its bytes. */
async function postForPng(url: string, prompt: string, seed: number): Promise<Buffer> {
	const response = await fetch(url, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ prompt, seed }),
	});
	const body = Buffer.from(await response.arrayBuffer());
	expect({ status: response.status, type: response.headers.get('content-type') }).toEqual({
		status: 200,
		type: expect.stringMatching(/^image\/png/),
	});
	return body;
}

/**
 * The image-API recipe as a client uses it: POST a prompt to its webhook, expect a 200 PNG, and
 * find the job that prompt started. Returns the answer's bytes and the bytes the service serves for
 * that job's image, for the caller to compare.
 */
export async function askImageApi(
	simulator: Simulator,
	url: string,
	prompt: string,
	seed: number,
): Promise<{ body: Buffer; served: Buffer; promptId: string }> {
	const body = await postForPng(url, prompt, seed);
	const [job] = jobsWithPrompt(simulator, prompt);
	expect(job?.status).toBe('completed');
	return { body, served: await jobImageBytes(simulator, job!.promptId), promptId: job!.promptId };
}

/**
 * The v2 image-API recipe (v2-webhook-image-api.json) as a client uses it: POST a prompt and a seed,
 * expect a 200 PNG, and find the one job of the v2 server it started, succeeded, with that prompt
 * (node 6) and seed (node 3) in its graph. Returns the answer's bytes and the bytes the server keeps
 * for the job's first output asset, for the caller to compare.
 */
export async function askV2ImageApi(
	simulator: V2Simulator,
	url: string,
	prompt: string,
	seed: number,
): Promise<{ body: Buffer; served: Buffer; jobId: string }> {
	const before = new Set(simulator.v2.jobs.keys());
	const body = await postForPng(url, prompt, seed);
	const jobs = [...simulator.v2.jobs.values()].filter((job) => !before.has(job.id));
	expect(jobs.map((job) => job.status)).toEqual(['succeeded']);
	const [job] = jobs;
	expect((job!.workflow['6'] as { inputs: Record<string, unknown> }).inputs.text).toBe(prompt);
	expect((job!.workflow['3'] as { inputs: Record<string, unknown> }).inputs.seed).toBe(seed);
	return { body, served: await assetBytes(simulator, job!.outputs[0]!.asset.id), jobId: job!.id };
}

/** Width and height from a PNG's IHDR chunk. */
export function pngSize(bytes: Buffer): { width: number; height: number } {
	if (bytes.length < 24 || bytes.readUInt32BE(0) !== 0x89504e47) throw new Error(`Not a PNG (${bytes.subarray(0, 8).toString('hex')})`);
	return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** The entries of a zip archive, read from its central directory (stored or deflated). */
export function zipEntries(zip: Buffer): Array<{ name: string; bytes: Buffer }> {
	const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
	if (end < 0) throw new Error('Not a zip archive: no end of central directory');
	const count = zip.readUInt16LE(end + 10);
	let offset = zip.readUInt32LE(end + 16);
	const entries: Array<{ name: string; bytes: Buffer }> = [];
	for (let index = 0; index < count; index++) {
		const method = zip.readUInt16LE(offset + 10);
		const compressedSize = zip.readUInt32LE(offset + 20);
		const nameLength = zip.readUInt16LE(offset + 28);
		const extraLength = zip.readUInt16LE(offset + 30);
		const commentLength = zip.readUInt16LE(offset + 32);
		const localOffset = zip.readUInt32LE(offset + 42);
		const name = zip.toString('utf8', offset + 46, offset + 46 + nameLength);
		const dataStart = localOffset + 30 + zip.readUInt16LE(localOffset + 26) + zip.readUInt16LE(localOffset + 28);
		const data = zip.subarray(dataStart, dataStart + compressedSize);
		entries.push({ name, bytes: method === 8 ? inflateRawSync(data) : Buffer.from(data) });
		offset += 46 + nameLength + extraLength + commentLength;
	}
	return entries;
}

/** A raw mail's Subject header and its body (after the first blank line, soft line breaks undone). */
export function mailParts(raw: string): { subject: string; to: string; body: string } {
	const split = raw.search(/\r?\n\r?\n/);
	const headers = raw.slice(0, split).replace(/\r?\n[ \t]+/g, ' ');
	const header = (name: string) => new RegExp(`^${name}: (.*)$`, 'im').exec(headers)?.[1]?.trim() ?? '';
	let body = raw.slice(split).trim();
	if (/quoted-printable/i.test(headers)) {
		body = body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
	}
	return { subject: header('Subject'), to: header('To'), body };
}

/**
 * Resolves once n8n serves the production webhook at `url`. n8n answers the activate request before
 * its webhooks are routed (a POST at once got 404 here): a GET to a POST webhook says "not registered
 * for GET requests" once it is, and a form answers 200, without starting an execution.
 */
export async function webhookServed(url: string, method: 'POST' | 'GET', timeoutMs = 30000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const response = await fetch(url);
		const text = await response.text();
		if (method === 'GET' ? response.status === 200 : text.includes(`${method} request`)) return;
		if (Date.now() > deadline)
			throw new Error(`n8n did not serve ${method} ${url} within ${timeoutMs} ms: ${response.status} ${text.slice(0, 200)}`);
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
}
