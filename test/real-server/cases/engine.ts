/**
 * Host Cloud on the real upstream server, through n8n's engine (the engine harness, as the engine
 * tests run it against the simulator): what a self-hosted user does, on model-free core nodes
 * that really run on a CPU, and on model workflows the real validator checks; and the Server
 * resource's controls against what the server really answers.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { EngineHarness, readBinary, type WorkflowNodeSpec } from '../../support/engine';
import { TINY_PNG } from '../../support/cloud';
import { describeWithShared } from '../../support/shared-data';
import { emptyImage, type Graph, save, slowGraph } from '../../support/contract/scenarios';
import { drainQueue, realServer } from '../support/real-server';
import { selfHostedCredential } from '../../support/credential-fixtures';

const WAIT = { pollIntervalSeconds: 0.2, silenceSeconds: 15, maxWaitMinutes: 3 };

/** EmptyImage → SaveImage: a model-free workflow the CPU server really runs. */
const emptyImageGraph = (colour: number): Graph => ({ '1': emptyImage(colour), '2': save('1', 'n8n-real') });

/** A small PNG put into the server's input folder under `name`. */
async function upload(name: string): Promise<void> {
	const form = new FormData();
	form.append('image', new Blob([TINY_PNG], { type: 'image/png' }), name);
	form.append('overwrite', 'true');
	const answer = await fetch(`${realServer().url}/upload/image`, { method: 'POST', body: form });
	if (answer.status !== 200) throw new Error(`uploading ${name} answered ${answer.status}`);
}

const size = (png: Buffer) => [png.readUInt32BE(16), png.readUInt32BE(20)];
const colour = () => Math.floor(Math.random() * 0xffffff);

describe('Host Cloud on the real upstream server (engine)', () => {
	const harness = new EngineHarness();
	let credential: string;

	beforeAll(() => {
		credential = harness.addCredential('hostCloudApi', selfHostedCredential({ serverUrl: realServer().url, proxyHeaders: { values: [] } }));
	});

	afterEach(async () => {
		await drainQueue(realServer().url);
	});

	const node = (parameters: Record<string, unknown>): WorkflowNodeSpec => ({
		name: 'Host Cloud',
		type: 'hostCloud',
		parameters: { resource: 'workflow', operation: 'execute', waitOptions: WAIT, ...parameters } as WorkflowNodeSpec['parameters'],
		credentials: { hostCloudApi: credential },
		continueOnFail: true,
	});

	test('Execute with Set Inputs: the image of the size set, as binary data with the bytes the server serves', async () => {
		const result = await harness.runNode(
			node({
				workflow: JSON.stringify(emptyImageGraph(colour())),
				inputOverrides: {
					values: [
						{ nodeId: '1', inputName: 'width', value: '80' },
						{ nodeId: '1', inputName: 'height', value: '60' },
					],
				},
			}),
		);
		expect(result.status).toBe('success');
		const item = result.items[0]!;
		expect(item.json.status).toBe('completed');
		const image = (item.json.images as Array<{ filename: string; url: string }>)[0]!;
		const bytes = await readBinary(item.binary!.data!);
		expect(size(bytes)).toEqual([80, 60]);
		const served = Buffer.from(await (await fetch(image.url)).arrayBuffer());
		expect(bytes.equals(served)).toBe(true);
	});

	test('a batch of three at Max Concurrent Jobs 2: each item its own job and file, in order', async () => {
		const base = colour();
		const items = [0, 1, 2].map((i) => ({ json: { colour: base + i, width: 16 + 8 * i } }));
		const result = await harness.runNode(
			node({
				workflow: JSON.stringify(emptyImageGraph(0)),
				inputOverrides: {
					values: [
						{ nodeId: '1', inputName: 'color', value: '={{ $json.colour }}' },
						{ nodeId: '1', inputName: 'width', value: '={{ $json.width }}' },
					],
				},
				additionalFields: { maxConcurrentJobs: 2 },
			}),
			items,
		);
		expect(result.status).toBe('success');
		const widths = await Promise.all(result.items.map(async (item) => size(await readBinary(item.binary!.data!))[0]));
		expect(widths).toEqual([16, 24, 32]);
		expect(new Set(result.items.map((item) => item.json.prompt_id)).size).toBe(3);
		expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
	});

	test('the same workflow twice: the second is served from the server’s cache, with the same file', async () => {
		const workflow = JSON.stringify(emptyImageGraph(colour()));
		const first = await harness.runNode(node({ workflow }));
		const again = await harness.runNode(node({ workflow }));
		expect([first.status, again.status]).toEqual(['success', 'success']);
		const name = (result: typeof first) => (result.items[0]!.json.images as Array<{ filename: string }>)[0]!.filename;
		expect(name(again)).toBe(name(first));
		expect(again.items[0]!.binary?.data).toBeDefined();
	});

	test('Input Images: a file from an earlier node is uploaded and loaded, then scaled by the server', async () => {
		const graph: Graph = {
			'1': { class_type: 'LoadImage', inputs: { image: 'placeholder.png' } },
			'2': {
				class_type: 'ImageScale',
				inputs: { image: ['1', 0], upscale_method: 'nearest-exact', width: 40, height: 30, crop: 'disabled' },
			},
			'3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'n8n-scaled' } },
		};
		const result = await harness.runNode(
			node({ workflow: JSON.stringify(graph), inputImages: { values: [{ binaryPropertyName: 'data', nodeId: '1' }] } }),
			[
				{
					json: {},
					binaryBase64: { data: { data: TINY_PNG.toString('base64'), fileName: `tiny-${colour()}.png`, mimeType: 'image/png' } },
				},
			],
		);
		expect(result.status).toBe('success');
		expect(size(await readBinary(result.items[0]!.binary!.data!))).toEqual([40, 30]);
	});

	test('a refused workflow names the node, the input, the value and what the server allows', async () => {
		const graph: Graph = {
			'4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'no-such-model.safetensors' } },
			'5': { class_type: 'EmptyLatentImage', inputs: { width: 64, height: 64 } },
			'8': { class_type: 'VAEDecode', inputs: { samples: ['5', 0], vae: ['4', 2] } },
			'9': { class_type: 'SaveImage', inputs: { images: ['8', 0], filename_prefix: 'x' } },
		};
		const result = await harness.runNode(node({ workflow: JSON.stringify(graph) }));
		expect(result.items[0]!.json.error).toMatch(
			/^Your server rejected the request as invalid while submitting the workflow \(HTTP 400\): Prompt outputs failed validation: Node 4 \(CheckpointLoaderSimple\): input ckpt_name: 'no-such-model.safetensors' is not in the list \(allowed: '[^']+', '[^']+', '[^']+', '[^']+', '[^']+' and \d+ more\); Node 5 \(EmptyLatentImage\): required input batch_size is missing$/,
		);
	});

	test('an execution error names the node, its class and the exception, trimmed', async () => {
		const info = (await (await fetch(`${realServer().url}/object_info/CheckpointLoaderSimple`)).json()) as Record<string, any>;
		const checkpoint = info.CheckpointLoaderSimple.input.required.ckpt_name[0][0] as string;
		const graph: Graph = {
			'4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: checkpoint } },
			'5': { class_type: 'EmptyLatentImage', inputs: { width: 64, height: 64, batch_size: 1 } },
			'8': { class_type: 'VAEDecode', inputs: { samples: ['5', 0], vae: ['4', 2] } },
			'9': { class_type: 'SaveImage', inputs: { images: ['8', 0], filename_prefix: 'x' } },
		};
		const result = await harness.runNode(node({ workflow: JSON.stringify(graph) }));
		const json = result.items[0]!.json as Record<string, string>;
		expect(json.error).toMatch(new RegExp(`^Job ${json.prompt_id} failed at node 4 \\(CheckpointLoaderSimple\\): \\S+Error: .*\\S$`));
		expect(json.error).not.toMatch(/\n/);
	});

	test('Stop while a job runs: the execution is canceled and the job interrupted on the server', async () => {
		const controller = new AbortController();
		const execution = harness.runNode(node({ workflow: JSON.stringify(slowGraph(colour(), 60, 'n8n-slow')) }), [{ json: {} }], {
			signal: controller.signal,
		});
		for (const until = Date.now() + 30_000; Date.now() < until; await new Promise((resolve) => setTimeout(resolve, 100))) {
			const queue = (await (await fetch(`${realServer().url}/queue`)).json()) as { queue_running: unknown[] };
			if (queue.queue_running.length > 0) break;
		}
		controller.abort();
		const result = await execution;
		expect(result.status).toBe('canceled');
		for (const until = Date.now() + 30_000; Date.now() < until; await new Promise((resolve) => setTimeout(resolve, 100))) {
			const queue = (await (await fetch(`${realServer().url}/queue`)).json()) as { queue_running: unknown[] };
			if (queue.queue_running.length === 0) return;
		}
		throw new Error('the job still runs on the server 30 s after Stop');
	});

	test('Submit, Get Status and Wait for Completion: the job by its prompt_id, then its files', async () => {
		const submitted = await harness.runNode(node({ operation: 'submit', workflow: JSON.stringify(emptyImageGraph(colour())) }));
		const promptId = submitted.items[0]!.json.prompt_id as string;
		expect(promptId).toMatch(/^[0-9a-f-]{36}$/);
		const waited = await harness.runNode(node({ operation: 'waitForCompletion', promptId }));
		expect(waited.items[0]!.json).toMatchObject({ prompt_id: promptId, status: 'completed' });
		const status = await harness.runNode(node({ operation: 'getStatus', promptId }));
		expect(status.items[0]!.json).toMatchObject({ prompt_id: promptId, finished: true });
	});

	test('Queue → Get and Get Node Definitions read the server’s own answers', async () => {
		const queue = await harness.runNode(node({ resource: 'queue', operation: 'get' }));
		expect(queue.status).toBe('success');
		const definitions = await harness.runNode(node({ resource: 'system', operation: 'getNodeDefinitions' }));
		expect(definitions.status).toBe('success');
		expect(JSON.stringify(definitions.items)).toContain('CheckpointLoaderSimple');
	});

	test('Set Inputs → Value From Server List offers the server’s checkpoints and samplers', async () => {
		const txt2img = JSON.parse(readFileSync(join(__dirname, '../../fixtures/txt2img-api.json'), 'utf8')) as Graph;
		const info = (await (await fetch(`${realServer().url}/object_info/KSampler`)).json()) as Record<string, any>;
		const choices = (nodeId: string, inputName: string) =>
			harness.loadOptions(
				node({ workflow: JSON.stringify(txt2img), inputOverrides: { values: [{ nodeId, inputName }] } }),
				'getInputValues',
				'parameters.inputOverrides.values[0].listedValue',
			);
		const samplers = await choices('3', 'sampler_name');
		expect(samplers.map((option) => option.value)).toEqual(info.KSampler.input.required.sampler_name[0]);
		const checkpoints = await choices('4', 'ckpt_name');
		expect(checkpoints.length).toBeGreaterThan(0);
	});

	describeWithShared('ui-format', 'the real UI-format pairs (../shared/ui-format/pairs)', (shared) => {
		const pairs = join(shared, 'pairs');
		test.each(readdirSync(pairs).sort())('UI-format %s: converted by the node and accepted by the real validator', async (pair) => {
			const workflow = readFileSync(join(pairs, pair, 'workflow.json'), 'utf8');
			// The images its Load Image nodes name must be in the server's input folder, as on the machine it was saved on.
			const loaders = (JSON.parse(workflow) as { nodes: Array<{ type: string; widgets_values?: unknown[] }> }).nodes.filter(
				(n) => n.type === 'LoadImage',
			);
			for (const loader of loaders) await upload(String(loader.widgets_values?.[0]));
			const result = await harness.runNode(node({ operation: 'submit', workflow }));
			expect(result.items[0]!.json.error).toBeUndefined();
			expect(result.items[0]!.json.prompt_id).toMatch(/^[0-9a-f-]{36}$/);
		});
	});

	describe('Server (the server’s own controls)', () => {
		const run = (operation: string, parameters: Record<string, unknown> = {}) =>
			harness.runNode({
				type: 'hostCloud',
				parameters: { resource: 'server', operation, ...parameters } as never,
				credentials: { hostCloudApi: credential },
				continueOnFail: true,
			});

		/** A model-free job the CPU server really runs; answers its prompt_id. */
		async function finishedJob(): Promise<string> {
			const graph = { '1': emptyImage(Math.floor(Math.random() * 0xffffff)), '2': save('1', 'n8n-server-controls') };
			const done = await harness.runNode(node({ workflow: JSON.stringify(graph), downloadFiles: false }));
			expect(done.items[0]!.json.status).toBe('completed');
			return done.items[0]!.json.prompt_id as string;
		}

		test('System Stats: the server’s version and devices', async () => {
			const result = await run('getSystemStats');
			expect(result.items[0]!.json).toMatchObject({ system: { comfyui_version: realServer().version } });
			expect((result.items[0]!.json.devices as unknown[]).length).toBeGreaterThan(0);
		});

		test('List Models: the folders, one folder’s files, and an unknown folder in words', async () => {
			const folders = await run('listModels', { scope: 'allFolders' });
			expect(folders.items[0]!.json.folders).toEqual(expect.arrayContaining(['checkpoints', 'loras']));
			const listed = (await (await fetch(`${realServer().url}/models/checkpoints`)).json()) as string[];
			const checkpoints = await run('listModels', { scope: 'folder', folder: 'checkpoints' });
			expect(checkpoints.items[0]!.json).toEqual({ folder: 'checkpoints', models: listed });
			const unknown = await run('listModels', { scope: 'folder', folder: 'no-such-folder' });
			expect(unknown.items[0]!.json.error).toMatch(/^Your server has no model folder "no-such-folder"/);
		});

		test('Free Memory: the server takes it (200, no body) and the item says what was asked', async () => {
			const result = await run('freeMemory', { unloadModels: true, freeMemory: true });
			expect(result.items[0]!.json).toEqual({ unload_models: true, free_memory: true, requested: true });
		});

		test('Get History and Delete History: a finished job listed with its file link, then removed and said so', async () => {
			const promptId = await finishedJob();
			const recent = await run('getHistory', { scope: 'recent', maxItems: 5 });
			const entry = recent.items.find((item) => item.json.prompt_id === promptId)!;
			expect(entry.json.status).toBe('completed');
			const image = (entry.json.images as Array<{ url: string }>)[0]!;
			expect((await fetch(image.url)).status).toBe(200);
			const unknown = '00000000-0000-4000-8000-000000000000';
			const byId = await run('getHistory', { scope: 'promptIds', promptIds: `${promptId}, ${unknown}` });
			expect(byId.items.map((item) => item.json.status)).toEqual(['completed', 'not_in_history']);

			const deleted = await run('deleteHistory', { scope: 'promptIds', promptIds: `${promptId} ${unknown}` });
			expect(deleted.items[0]!.json).toEqual({ deleted: [promptId], not_in_history: [unknown] });
			expect(await (await fetch(`${realServer().url}/history/${promptId}`)).json()).toEqual({});

			const other = await finishedJob();
			const cleared = await run('deleteHistory', { scope: 'all' });
			expect(cleared.items[0]!.json).toMatchObject({ cleared: true, deleted: expect.arrayContaining([other]) });
			expect(await (await fetch(`${realServer().url}/history`)).json()).toEqual({});
		}, 120_000);
	});
});
