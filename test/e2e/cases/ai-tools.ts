/**
 * The nodes as tools in a real n8n: an MCP client (the official TypeScript SDK, Streamable HTTP)
 * on the MCP Server Trigger's production URL, and an AI Agent whose model is the chat-completions
 * stand-in. Both get the operations' own descriptions, compact answers with each output's link, a
 * bounded wait that leaves a slow job running, and nothing secret; n8n downloads nothing.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

import {
	AGENT_EXAMPLE,
	MCP_EXAMPLE,
	chat,
	connectMcp,
	mcpUrl,
	mcpWorkflow,
	reachableAgent,
	stackSecrets,
	startChatModel,
	toolAnswerOf,
	type ChatModel,
	type ToolAnswer,
} from '../support/ai-tools';
import { e2e } from '../support/context';
import type { StoredWorkflow, WorkflowJson } from '../support/n8n-client';
import { setParameter } from '../support/example-checks';

function example(file: string): WorkflowJson {
	const found = e2e().examples.find((entry) => entry.file === file);
	if (!found) throw new Error(`${file} was not imported`);
	return JSON.parse(JSON.stringify(found.workflow)) as WorkflowJson;
}

/** Storage requests (file downloads) made since `since`: n8n must make none in tool mode. */
const downloadsSince = (since: number) => e2e().simulator.requests.filter((request) => request.host === 'storage' && request.at >= since);

function expectNoSecret(text: string): void {
	for (const secret of stackSecrets(e2e())) expect(text.includes(secret) ? `a secret in: ${text.slice(0, 200)}` : 'none').toBe('none');
}

function expectCompletedImage(answer: ToolAnswer, ids: string[]): void {
	expect(answer.isError ? answer.text : 'no error').toBe('no error');
	expect(answer.item).toBeDefined();
	expect(Object.keys(answer.item!).sort()).toEqual(['outputs', 'status', ...ids].sort());
	expect(answer.item!.status).toBe('completed');
	expect(answer.item!.outputs.length).toBeGreaterThan(0);
	for (const output of answer.item!.outputs) {
		expect(Object.keys(output).sort()).toEqual(['kind', 'mime_type', 'url', 'url_valid_for']);
		expect(output).toMatchObject({ kind: 'image', mime_type: 'image/png' });
		expect(String(output.url).startsWith(e2e().simulator.storageUrl)).toBe(true);
		expect(output.url_valid_for).toMatch(/not stated by the service/);
	}
	expectNoSecret(answer.text);
}

describe('AI agents and MCP clients use the nodes as tools', () => {
	it('n8n makes a tool node of each action node, which brings its own tool descriptions and Tool Wait', async () => {
		const types = Object.fromEntries((await e2e().client.nodeTypes()).map((type) => [type.name, type]));
		for (const name of ['hostCloud', 'hostMedia', 'hostRegistry']) {
			const tool = types[`n8n-nodes-host.${name}Tool`];
			expect(tool ? `${name}Tool: ${tool.displayName}` : `${name}Tool missing`).toMatch(/Tool: Host (Cloud|Media|Registry) Tool$/);
			const names = tool!.properties.map((property) => property.name);
			// n8n adds its own "Set Automatically" choice only to nodes that bring no tool description.
			expect(names).not.toContain('descriptionType');
			expect(names).toContain('toolDescription');
		}
		const cloudTool = types['n8n-nodes-host.hostCloudTool']!;
		const toolWait = cloudTool.properties.find((property) => property.name === 'toolWaitSeconds');
		expect(toolWait).toMatchObject({ default: 40, displayOptions: { show: { '@tool': [true] } } });
		expect(types['n8n-nodes-host.hostTaskTriggerTool']).toBeUndefined();
	});

	describe('an MCP client on the MCP Server Trigger', () => {
		const path = `host-image-tools-e2e-${Date.now()}`;
		let stored: StoredWorkflow;
		let client: Client;

		beforeAll(async () => {
			const stack = e2e();
			const workflow = mcpWorkflow(example(MCP_EXAMPLE), path);
			// Short waits keep the slow-job case short; the default (40 s) is asserted by the descriptions.
			setParameter(workflow, 'Generate Image', 'toolWaitSeconds', 3);
			stored = await stack.importWorkflow(workflow, 'MCP server (e2e)');
			await stack.client.activateWorkflow(stored.id);
			client = await connectMcp(mcpUrl(stack, path));
		}, 60000);

		afterAll(async () => {
			await client?.close().catch(() => undefined);
			if (stored) await e2e().client.deactivateWorkflow(stored.id);
		});

		const call = async (name: string, args: Record<string, unknown>) => toolAnswerOf(await client.callTool({ name, arguments: args }));

		it('lists the three tools with their descriptions and argument schemas', async () => {
			const { tools } = await client.listTools();
			const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
			expect(Object.keys(byName).sort()).toEqual(['Check_Image_Job', 'Generate_Image', 'Upscale_Image']);
			expect(byName.Generate_Image!.description).toMatch(/^Generates images, video or audio by running a workflow on the Host cloud/);
			expect(byName.Generate_Image!.description).toContain('{"status": "running", "prompt_id", "message"}');
			expect(byName.Generate_Image!.description).toContain('"url_valid_for"');
			expect(byName.Check_Image_Job!.description).toMatch(/^Checks a Host Cloud job started earlier/);
			expect(byName.Upscale_Image!.description).toMatch(/^Upscales an image given by its URL/);
			expect(byName.Upscale_Image!.description).toContain('"task_id", "task_type"');
			for (const [name, argument] of [
				['Generate_Image', 'prompt'],
				['Check_Image_Job', 'prompt_id'],
				['Upscale_Image', 'image_url'],
			] as const) {
				const schema = byName[name]!.inputSchema as {
					type: string;
					properties: Record<string, { type: string; description?: string }>;
					required?: string[];
				};
				expect(schema.type).toBe('object');
				expect(Object.keys(schema.properties)).toEqual([argument]);
				expect(schema.properties[argument]!.type).toBe('string');
				expect(schema.properties[argument]!.description?.length).toBeGreaterThan(10);
				expect(schema.required).toEqual([argument]);
			}
			expectNoSecret(JSON.stringify(tools));
		});

		it('Generate_Image runs the job with the prompt and answers each output once; Check_Image_Job answers the same; nothing is downloaded', async () => {
			const since = Date.now();
			const generated = await call('Generate_Image', { prompt: 'a lighthouse at dusk, seen from the sea' });
			expectCompletedImage(generated, ['prompt_id']);
			const job = e2e().simulator.cloud.jobs.get(generated.item!.prompt_id);
			expect(job?.status).toBe('completed');
			const submitted = e2e()
				.simulator.requestsTo('POST', '/api/prompt')
				.map((request) => JSON.parse(request.body).prompt as Record<string, { inputs: Record<string, unknown> }>)
				.find((graph) => graph['6']?.inputs.text === 'a lighthouse at dusk, seen from the sea');
			expect(submitted).toBeDefined();
			const checked = await call('Check_Image_Job', { prompt_id: generated.item!.prompt_id });
			expectCompletedImage(checked, ['prompt_id']);
			expect(checked.item!.prompt_id).toBe(generated.item!.prompt_id);
			expect(downloadsSince(since)).toEqual([]);
		}, 90000);

		it('Upscale_Image upscales the image at the URL the model gives and answers its link', async () => {
			const since = Date.now();
			const answer = await call('Upscale_Image', { image_url: e2e().outside.url('photo.jpg') });
			expectCompletedImage(answer, ['task_id', 'task_type']);
			expect(answer.item!.task_type).toBe('image-upscaler');
			expect(downloadsSince(since)).toEqual([]);
		}, 90000);

		it('a slow job answers "running" within its Tool Wait and is left running; Check_Image_Job completes it', async () => {
			const { simulator } = e2e();
			const saved = simulator.options.nodeMs;
			simulator.options.nodeMs = 1500; // seven nodes: about 10 s, over the 3 s Tool Wait
			try {
				const started = Date.now();
				const running = await call('Generate_Image', { prompt: 'a slow sunrise over the sea' });
				const took = Date.now() - started;
				expect(running.isError ? running.text : 'no error').toBe('no error');
				expect(running.item).toMatchObject({ status: 'running', prompt_id: expect.any(String) });
				expect(running.item!.message).toContain('not cancelled');
				expect(running.item!.message).toContain(`"Get Status" tool with prompt_id "${String(running.item!.prompt_id)}"`);
				expect(took).toBeGreaterThanOrEqual(3000);
				expect(took).toBeLessThan(10000);
				const promptId = String(running.item!.prompt_id);
				// Not cancelled: the job runs on and no cancel reached the service.
				expect(simulator.requestsTo('POST', '/api/queue').filter((request) => request.body.includes(promptId))).toEqual([]);
				expect(simulator.cloud.jobs.get(promptId)?.status).not.toBe('cancelled');
				const done = await call('Check_Image_Job', { prompt_id: promptId });
				expectCompletedImage(done, ['prompt_id']);
				expect(simulator.cloud.jobs.get(promptId)?.status).toBe('completed');
			} finally {
				simulator.options.nodeMs = saved;
			}
		}, 90000);

		it('a bad argument is a tool error that names the field, and nothing is sent', async () => {
			const before = e2e().simulator.requestsTo('POST', '/proxy').length;
			const answer = await call('Upscale_Image', { image_url: 'not a link' });
			expect(answer.isError).toBe(true);
			expect(answer.text).toMatch(/Image \(image\) must be/);
			expectNoSecret(answer.text);
			expect(e2e().simulator.requestsTo('POST', '/proxy').length).toBe(before);
		});
	});

	describe('an AI Agent with an OpenAI-compatible chat model', () => {
		let model: ChatModel;
		let stored: StoredWorkflow;

		beforeAll(async () => {
			const stack = e2e();
			model = await startChatModel(stack);
			stored = await stack.importWorkflow(reachableAgent(example(AGENT_EXAMPLE), model), 'AI agent (e2e)', { openAiApi: model.credential });
			await stack.client.activateWorkflow(stored.id);
		}, 60000);

		afterAll(async () => {
			if (stored) await e2e().client.deactivateWorkflow(stored.id);
			await model?.close();
		});

		it('the model is offered the tools with their descriptions, calls one, and receives a compact, secret-free answer', async () => {
			const since = Date.now();
			model.standIn.nextToolCall = { name: 'Generate_Image', arguments: { prompt: 'a red kite over a green hill' } };
			const reply = await chat(e2e(), stored, 'Make me a picture of a red kite');
			const [first] = model.standIn.requests.slice(-2);
			const offered = Object.fromEntries((first!.tools ?? []).map((tool) => [tool.function.name, tool.function]));
			expect(Object.keys(offered).sort()).toEqual(['Check_Image_Job', 'Generate_Image', 'Upscale_Image']);
			expect(offered.Generate_Image!.description).toMatch(/^Generates images, video or audio/);
			expect(Object.keys((offered.Generate_Image!.parameters as { properties: object }).properties)).toEqual(['prompt']);
			expect(first!.authorization).toBe(`Bearer ${model.standIn.apiKey}`);

			const [received] = model.standIn.toolResults().slice(-1);
			expect(received).toBeDefined();
			const answer = toolAnswerOf({ content: [{ type: 'text', text: received! }] });
			expectCompletedImage(answer, ['prompt_id']);
			expect(e2e().simulator.cloud.jobs.get(answer.item!.prompt_id)?.status).toBe('completed');
			expect(String(reply.output)).toContain(answer.item!.outputs[0].url);
			expect(downloadsSince(since)).toEqual([]);
		}, 120000);
	});
});
