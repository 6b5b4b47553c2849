/**
 * The AI examples in examples/ (an AI Agent, an MCP Server Trigger) as n8n builds their tools:
 * the agent, the model and the triggers are n8n's own nodes and not in the harness, so the Host
 * tool nodes of each file are handed to n8n-core as connected tools (test/support/tools.ts) and
 * called with the arguments a model would give, against the simulator.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { resetCloud, startCloud, type CloudSetup } from '../../support/cloud';
import { connectedTools, registerToolTypes, type HarnessTool, type ToolNodeSpec } from '../../support/tools';
import { hostApiCredential } from '../../support/credential-fixtures';

interface ExampleNode {
	name: string;
	type: string;
	typeVersion: number;
	parameters: Record<string, unknown>;
	credentials?: Record<string, { id: string; name: string }>;
}
interface Example {
	name: string;
	nodes: ExampleNode[];
	connections: Record<string, Record<string, Array<Array<{ node: string; type: string }>>>>;
}

const load = (file: string): Example => JSON.parse(readFileSync(join(__dirname, '../../../examples', file), 'utf8')) as Example;

let cloud: CloudSetup;
let mediaCredential: string;

beforeAll(async () => {
	cloud = await startCloud();
	registerToolTypes(cloud.harness);
	mediaCredential = cloud.harness.addCredential(
		'hostApi',
		hostApiCredential({ accessToken: cloud.sim.accessToken, registryUrl: cloud.sim.registryUrl }),
	);
});

afterEach(() => resetCloud(cloud));

afterAll(async () => {
	await cloud.sim.close();
});

/** The Host tool nodes of an example, bound to the harness's credentials. */
function hostTools(example: Example): ToolNodeSpec[] {
	return example.nodes
		.filter((node) => node.type.startsWith('n8n-nodes-host.') && node.type.endsWith('Tool'))
		.map((node) => ({
			name: node.name,
			type: node.type.replace(/^n8n-nodes-host\./, '').replace(/Tool$/, ''),
			typeVersion: node.typeVersion,
			// Polled fast here (the image default is 5 s); everything else as in the file.
			parameters: { ...node.parameters, waitOptions: { pollIntervalSeconds: 0.05 } } as ToolNodeSpec['parameters'],
			credentials: Object.fromEntries(
				Object.keys(node.credentials ?? {}).map((type) => [type, type === 'hostApi' ? mediaCredential : cloud.credential]),
			),
		}));
}

const byName = (tools: HarnessTool[]) => Object.fromEntries(tools.map((tool) => [tool.name, tool]));

describe.each([
	['ai-agent-image-tools.json', '@n8n/n8n-nodes-langchain.agent'],
	['mcp-server-image-tools.json', '@n8n/n8n-nodes-langchain.mcpTrigger'],
])('examples/%s', (file, taker) => {
	test('connects its three Host tools, with the Host credentials, to n8n’s node that takes them', () => {
		const example = load(file);
		expect(example.name).toMatch(/^Host tools: /);
		const tools = example.nodes.filter((node) => node.type.endsWith('Tool') && node.type.startsWith('n8n-nodes-host.'));
		expect(tools.map((node) => `${node.name} (${node.type})`)).toEqual([
			'Generate Image (n8n-nodes-host.hostCloudTool)',
			'Check Image Job (n8n-nodes-host.hostCloudTool)',
			'Upscale Image (n8n-nodes-host.hostMediaTool)',
		]);
		const takerNode = example.nodes.find((node) => node.type === taker)!;
		for (const tool of tools) {
			expect(example.connections[tool.name]?.ai_tool?.[0]).toEqual([{ node: takerNode.name, type: 'ai_tool', index: 0 }]);
			expect(Object.values(tool.credentials ?? {})).toEqual([
				{ id: '', name: tool.type.endsWith('hostMediaTool') ? 'Host API' : 'Host Cloud API' },
			]);
		}
	});

	test('its tools, as n8n builds them, make an image from the model’s prompt, check the job and upscale the result', async () => {
		const tools = byName(await connectedTools(cloud.harness, hostTools(load(file))));
		expect(Object.keys(tools).sort()).toEqual(['Check_Image_Job', 'Generate_Image', 'Upscale_Image']);
		expect(Object.keys(tools.Generate_Image!.schema.shape ?? {})).toEqual(['prompt']);
		expect(Object.keys(tools.Check_Image_Job!.schema.shape ?? {})).toEqual(['prompt_id']);
		expect(Object.keys(tools.Upscale_Image!.schema.shape ?? {})).toEqual(['image_url']);

		const [generated] = JSON.parse(await tools.Generate_Image!.invoke({ prompt: 'a paper boat on a pond' })) as Array<Record<string, any>>;
		expect(generated).toMatchObject({ status: 'completed', outputs: [{ kind: 'image', mime_type: 'image/png' }] });
		const submitted = JSON.parse(cloud.sim.requestsTo('POST', '/api/prompt')[0]!.body).prompt;
		expect(submitted['6'].inputs.text).toBe('a paper boat on a pond');
		const [checked] = JSON.parse(await tools.Check_Image_Job!.invoke({ prompt_id: generated!.prompt_id })) as Array<Record<string, any>>;
		// The same job and file, with a freshly signed link.
		const withoutSignature = (answer: Record<string, any>) => ({
			...answer,
			outputs: answer.outputs.map((output: { url: string }) => ({ ...output, url: output.url.split('?')[0] })),
		});
		expect(withoutSignature(checked!)).toEqual(withoutSignature(generated!));
		const [upscaled] = JSON.parse(await tools.Upscale_Image!.invoke({ image_url: generated!.outputs[0].url })) as Array<
			Record<string, any>
		>;
		expect(upscaled).toMatchObject({ status: 'completed', task_type: 'image-upscaler', outputs: [{ kind: 'image' }] });
		// No file went through n8n.
		expect(cloud.sim.requests.filter((request) => request.host === 'storage')).toEqual([]);
	}, 60000);
});

test('the agent and the MCP server expose the same tools', () => {
	const tools = (file: string) => load(file).nodes.filter((node) => node.type.startsWith('n8n-nodes-host.'));
	const strip = (nodes: ExampleNode[]) =>
		nodes.map(({ name, type, typeVersion, parameters, credentials }) => ({ name, type, typeVersion, parameters, credentials }));
	expect(strip(tools('ai-agent-image-tools.json'))).toEqual(strip(tools('mcp-server-image-tools.json')));
});
