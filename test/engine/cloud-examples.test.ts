/**
 * The Host Cloud examples in examples/: importable n8n workflows whose Host Cloud node runs as
 * configured. Nodes of n8n itself (trigger, Set, Convert to File) are not in the harness, so the
 * Host Cloud node is run with the items they would hand it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import axios from 'axios';

import { parseWorkflowGraph } from '../../nodes/HostCloud/helpers/workflow-graph';
import { readBinary } from '../harness/engine';
import { resetCloud, startCloud, type CloudSetup } from '../helpers/cloud';

interface ExampleNode {
	name: string;
	type: string;
	parameters: Record<string, any>;
	credentials?: Record<string, { id: string; name: string }>;
}
interface Example {
	name: string;
	nodes: ExampleNode[];
	connections: Record<string, { main: Array<Array<{ node: string }>> }>;
}

const load = (file: string): Example => JSON.parse(readFileSync(join(__dirname, '../../examples', file), 'utf8')) as Example;
const hostCloudNode = (example: Example): ExampleNode => example.nodes.find((node) => node.type === 'n8n-nodes-host.hostCloud')!;

let cloud: CloudSetup;

beforeAll(async () => {
	cloud = await startCloud();
});

afterEach(() => resetCloud(cloud));

afterAll(async () => {
	await cloud.sim.close();
});

describe.each(['text-to-image.json', 'image-to-image.json'])('examples/%s', (file) => {
	test('is an n8n workflow export with a Host Cloud node using the "Host Cloud API" credential', () => {
		const example = load(file);
		expect(example.name).toMatch(/^Host Cloud: /);
		const node = hostCloudNode(example);
		expect(node.credentials).toEqual({ hostCloudApi: { id: '', name: 'Host Cloud API' } });
		expect(node.parameters).toMatchObject({ resource: 'workflow', operation: 'execute' });
		// Every node is connected, ending at the Host Cloud node.
		const targets = Object.values(example.connections).flatMap((connection) => connection.main.flat().map((link) => link.node));
		expect(targets).toContain(node.name);
		// Its workflow is a valid API-format graph.
		expect(parseWorkflowGraph(node.parameters.workflow, 'Workflow (API Format)')).toHaveProperty('graph');
	});
});

test('text-to-image runs as configured and returns URLs the storage host serves', async () => {
	const node = hostCloudNode(load('text-to-image.json'));
	const result = await cloud.harness.runNode({
		type: 'hostCloud',
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
		{ type: 'hostCloud', parameters: node.parameters, credentials: { hostCloudApi: cloud.credential } },
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
	expect((await readBinary(item.binary!.image_0!)).subarray(1, 4).toString()).toBe('PNG');
	expect(sim.counters.storageCredentialAttempts).toBe(0);
});
