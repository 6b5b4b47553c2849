/**
 * The Host Cloud examples in examples/: importable n8n workflows whose Host Cloud node runs as
 * configured. Nodes of n8n itself (trigger, Set, Convert to File) are not in the harness, so the
 * Host Cloud node is run with the items they would hand it. The cloud examples run against the
 * cloud simulator with a cloud credential; the self-hosted one against the simulator's
 * self-hosted flavour behind a reverse proxy, with a self-hosted credential.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import axios from 'axios';

import { parseWorkflowGraph } from '../../../nodes/HostCloud/helpers/graph/workflow-graph';
import type { SelfHostedArea } from '../../../simulator/self-hosted/area';
import { startSimulator, type Simulator } from '../../../simulator/server';
import { EngineHarness, readBinary } from '../../support/engine';
import { cloudForSuite } from '../../support/cloud';
import { selfHostedCredential } from '../../support/credential-fixtures';

interface ExampleNode {
	name: string;
	type: string;
	typeVersion: number;
	parameters: Record<string, any>;
	credentials?: Record<string, { id: string; name: string }>;
}
interface Example {
	name: string;
	nodes: ExampleNode[];
	connections: Record<string, { main: Array<Array<{ node: string }>> }>;
}

const load = (file: string): Example => JSON.parse(readFileSync(join(__dirname, '../../../examples', file), 'utf8')) as Example;
const hostCloudNode = (example: Example): ExampleNode => example.nodes.find((node) => node.type === 'n8n-nodes-host.hostCloud')!;

const cloud = cloudForSuite();

describe.each(['text-to-image.json', 'image-to-image.json'])('examples/%s', (file) => {
	test('is an n8n workflow export with a Host Cloud node using the "Host Cloud API" credential', () => {
		const example = load(file);
		expect(example.name).toMatch(/^Host Cloud: /);
		const node = hostCloudNode(example);
		expect(node.credentials).toEqual({ hostCloudApi: { id: '', name: 'Host Cloud API' } });
		// The version a node added in the editor gets: Download Files on by default, files in data, data_1...
		expect(node.typeVersion).toBe(3);
		expect(node.parameters).toMatchObject({ resource: 'workflow', operation: 'execute' });
		// Every node is connected, ending at the Host Cloud node.
		const targets = Object.values(example.connections).flatMap((connection) => connection.main.flat().map((link) => link.node));
		expect(targets).toContain(node.name);
		// Its workflow is a valid API-format graph.
		expect(parseWorkflowGraph(node.parameters.workflow, 'Workflow')).toHaveProperty('graph');
	});
});

test('text-to-image runs as configured and returns URLs the storage host serves', async () => {
	const node = hostCloudNode(load('text-to-image.json'));
	const result = await cloud.harness.runNode({
		type: 'hostCloud',
		typeVersion: node.typeVersion,
		parameters: node.parameters,
		credentials: { hostCloudApi: cloud.credential },
	});
	expect(result.status).toBe('success');
	const json = result.items[0]!.json as Record<string, any>;
	expect(json.status).toBe('completed');
	expect((await axios.get(json.images[0].url)).status).toBe(200);
	expect(result.items[0]!.binary).toBeUndefined();
});

test('image-to-image uploads the converted binary into its Load Image node and returns the file', async () => {
	const { sim } = cloud;
	const example = load('image-to-image.json');
	const sample = example.nodes.find((node) => node.type === 'n8n-nodes-base.set')!;
	const base64 = sample.parameters.assignments.assignments[0].value as string;
	const node = hostCloudNode(example);
	const result = await cloud.harness.runNode(
		{ type: 'hostCloud', typeVersion: node.typeVersion, parameters: node.parameters, credentials: { hostCloudApi: cloud.credential } },
		[{ json: {}, binaryBase64: { data: { data: base64, fileName: 'input.png', mimeType: 'image/png' } } }],
	);
	expect(result.status).toBe('success');
	expect(sim.cloud.uploads).toHaveLength(1);
	// The uploaded file goes into Load Image, which feeds VAE Encode; the overrides set the prompt and a number denoise.
	const sent = JSON.parse(sim.requestsTo('POST', '/api/prompt')[0]!.body).prompt;
	expect(sent['1'].inputs.image).toBe(sim.cloud.uploads[0]!.name);
	expect(sent['3']).toMatchObject({ class_type: 'VAEEncode', inputs: { pixels: ['1', 0] } });
	expect(sent['6'].inputs).toMatchObject({ latent_image: ['3', 0], denoise: 0.6 });
	expect(sent['4'].inputs.text).toBe('watercolor painting, soft light, detailed');
	expect(sim.cloud.jobs.get(result.items[0]!.json.prompt_id as string)?.status).toBe('completed');
	const item = result.items[0]!;
	expect((item.json.images as Array<{ filename: string }>)[0]!.filename).toMatch(/^img2img_\d{5}_\.png$/);
	expect((await readBinary(item.binary!.data!)).subarray(1, 4).toString()).toBe('PNG');
	expect(sim.counters.storageCredentialAttempts).toBe(0);
});

describe('examples/self-hosted-*.json, on a self-hosted server behind a reverse proxy', () => {
	const FILE = 'self-hosted-text-to-image.json';
	/** What the reverse proxy in front of the server wants (the simulator answers 401 without it). */
	const PROXY = { header: 'X-Proxy-Token', value: 'proxy-token-examples-0001' };
	let server: Simulator;
	let harness: EngineHarness;
	let credential: string;

	beforeAll(async () => {
		server = await startSimulator({ flavour: 'self-hosted', proxyAuth: PROXY, nodeMs: 5 });
		harness = new EngineHarness();
		credential = harness.addCredential(
			'hostCloudApi',
			selfHostedCredential({
				serverUrl: server.baseUrl,
				platformApiKey: '',
				proxyHeaders: { values: [{ name: PROXY.header, value: PROXY.value }] },
				wsBaseUrl: '',
			}),
			'My ComfyUI server',
		);
	});

	afterAll(async () => {
		await server.close();
	});

	test('self-hosted-text-to-image is an n8n workflow export: Manual Trigger → Host Cloud Execute with Download Files, on a self-hosted credential', () => {
		const example = load(FILE);
		expect(example.name).toMatch(/^Host Cloud: /);
		const node = hostCloudNode(example);
		// A credential of the user's own, picked on import: no id, a name that says it is a server of theirs.
		expect(node.credentials).toEqual({ hostCloudApi: { id: '', name: 'My ComfyUI server' } });
		expect(node.typeVersion).toBe(3);
		expect(node.parameters).toMatchObject({ resource: 'workflow', operation: 'execute', downloadFiles: true });
		const trigger = example.nodes.find((candidate) => candidate.type === 'n8n-nodes-base.manualTrigger')!;
		expect(example.connections[trigger.name]!.main.flat().map((link) => link.node)).toEqual([node.name]);
		expect(parseWorkflowGraph(node.parameters.workflow, 'Workflow')).toHaveProperty('graph');
	});

	test('self-hosted-text-to-image runs on the server through its reverse proxy and returns the image as binary data, the bytes /api/view serves', async () => {
		const node = hostCloudNode(load(FILE));
		const result = await harness.runNode({
			type: 'hostCloud',
			typeVersion: node.typeVersion,
			parameters: node.parameters,
			credentials: { hostCloudApi: credential },
		});
		expect(result.status).toBe('success');
		expect(result.items).toHaveLength(1);
		const item = result.items[0]!;
		const json = item.json as Record<string, any>;
		expect(json.status).toBe('completed');
		expect(server.cloud.jobs.get(json.prompt_id)?.status).toBe('completed');
		// The example's Set Inputs reached the server.
		const sent = JSON.parse(server.requestsTo('POST', '/api/prompt')[0]!.body).prompt;
		expect(sent['6'].inputs.text).toBe('a lighthouse on a cliff at dusk, oil painting');

		// The file's address is the server's own /api/view link; the binary is what that link serves.
		const [image] = json.images as Array<{ filename: string; subfolder: string; type: string; url: string }>;
		const query = new URLSearchParams({ filename: image!.filename, subfolder: image!.subfolder, type: image!.type });
		expect(image!.url).toBe(`${server.baseUrl}/api/view?${query.toString()}`);
		const served = await axios.get<ArrayBuffer>(image!.url, { headers: { [PROXY.header]: PROXY.value }, responseType: 'arraybuffer' });
		expect(served.status).toBe(200);
		const binary = item.binary!.data!;
		expect(binary).toMatchObject({ mimeType: 'image/png', fileName: image!.filename });
		const bytes = await readBinary(binary);
		expect(bytes.subarray(1, 4).toString()).toBe('PNG');
		expect(bytes.equals(Buffer.from(served.data))).toBe(true);

		// Everything went through the proxy with its header, the WebSocket upgrade included; no API key anywhere.
		const requests = server.requests.filter((request) => request.host === 'service');
		expect(requests.length).toBeGreaterThan(0);
		for (const request of requests) {
			expect(`${request.method} ${request.path}: ${request.headers[PROXY.header.toLowerCase()]}`).toBe(
				`${request.method} ${request.path}: ***(${PROXY.value.length})`,
			);
			expect(request.headers['x-api-key']).toBeUndefined();
		}
		expect(server.requestsTo('GET', '/api/view').filter((request) => request.status === 200).length).toBeGreaterThan(0);
		expect(server.cloud.wsHandshakes.length).toBeGreaterThan(0);
		expect(server.cloud.wsHandshakes.filter((handshake) => !handshake.accepted || handshake.token !== '')).toEqual([]);
	});

	const VIDEO_FILE = 'self-hosted-image-then-video.json';

	test('self-hosted-image-then-video is Manual Trigger → Make Image → Free GPU Memory → Make Video, on the self-hosted credential', () => {
		const example = load(VIDEO_FILE);
		expect(example.name).toMatch(/^Host Cloud: /);
		const chain = ['Make Image', 'Free GPU Memory', 'Make Video'];
		const nodes = chain.map((name) => example.nodes.find((node) => node.name === name)!);
		for (const node of nodes) {
			expect(node).toMatchObject({ type: 'n8n-nodes-host.hostCloud', typeVersion: 3 });
			expect(node.credentials).toEqual({ hostCloudApi: { id: '', name: 'My ComfyUI server' } });
		}
		expect(nodes.map((node) => `${node.parameters.resource} ${node.parameters.operation}`)).toEqual([
			'workflow execute',
			'server freeMemory',
			'workflow execute',
		]);
		const trigger = example.nodes.find((node) => node.type === 'n8n-nodes-base.manualTrigger')!;
		expect([trigger.name, ...chain.slice(0, -1)].map((name) => example.connections[name]!.main.flat().map((link) => link.node))).toEqual(
			chain.map((name) => [name]),
		);
		for (const node of [nodes[0]!, nodes[2]!]) expect(parseWorkflowGraph(node.parameters.workflow, 'Workflow')).toHaveProperty('graph');
	});

	test('self-hosted-image-then-video runs: the image, memory freed between the jobs, the video made from that image', async () => {
		server.reset();
		const example = load(VIDEO_FILE);
		const chain = ['Make Image', 'Free GPU Memory', 'Make Video'];
		const nodes = chain.map((name) => example.nodes.find((node) => node.name === name)!);
		const result = await harness.run({
			nodes: [
				{ name: 'Input', type: 'harness.items', parameters: { items: JSON.stringify([{ json: {} }]) } },
				...nodes.map((node) => ({
					name: node.name,
					type: 'hostCloud',
					typeVersion: node.typeVersion,
					parameters: node.parameters,
					credentials: { hostCloudApi: credential },
				})),
			],
			connect: [
				['Input', chain[0]!],
				[chain[0]!, chain[1]!],
				[chain[1]!, chain[2]!],
			],
		});
		expect(result.status).toBe('success');
		const image = result.output('Make Image')[0]!;
		const video = result.output('Make Video')[0]!;
		expect(result.output('Free GPU Memory')[0]!.json).toEqual({ unload_models: true, free_memory: true, requested: true });
		expect((server.cloud as SelfHostedArea).freed).toEqual([{ unload_models: true, free_memory: true }]);
		// Free Memory came between the two submits, and the video job loaded the image the first one made.
		const order = server.requests
			.filter((request) => /^\/api\/(prompt|free|upload\/image)$/.test(request.path))
			.map((request) => request.path);
		expect(order).toEqual(['/api/prompt', '/api/free', '/api/upload/image', '/api/prompt']);
		const sent = JSON.parse(server.requestsTo('POST', '/api/prompt')[1]!.body).prompt;
		expect(sent['1'].inputs.image).toBe(server.cloud.uploads[0]!.name);
		// The picture passed through Free Memory unchanged.
		const passed = await readBinary(result.output('Free GPU Memory')[0]!.binary!.data!);
		expect(passed.equals(await readBinary(image.binary!.data!))).toBe(true);
		expect(video.json.status).toBe('completed');
		expect((video.json.videos as Array<{ filename: string }>)[0]!.filename).toMatch(/^lighthouse_\d{5}_\.mp4$/);
		expect(video.binary!.data).toMatchObject({ mimeType: 'video/mp4' });
	});
});
