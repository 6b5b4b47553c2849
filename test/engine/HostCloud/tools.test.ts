/**
 * Host Cloud as a tool of an AI agent or an MCP client, run the two ways n8n 2.41.1 runs tools
 * (test/support/tools.ts): as the MCP Server Trigger gets it (n8n-core builds the tool and runs the
 * node in a supply-data context) and as the AI Agent has the engine run it (the tool type in an
 * ordinary execute context). Either way: the operation's own tool description, a bounded wait that
 * leaves the job running, a compact answer with each output's link, and nothing downloaded.
 */
import { resetCloud, startCloud, txt2img, type CloudSetup } from '../../support/cloud';
import { registerToolTypes, runAsAgentTool, toolsFor, type HarnessTool, type ToolNodeSpec } from '../../support/tools';

let cloud: CloudSetup;

beforeAll(async () => {
	cloud = await startCloud();
	registerToolTypes(cloud.harness);
});

afterEach(() => resetCloud(cloud));

afterAll(async () => {
	await cloud.sim.close();
});

const PROMPT = "={{ $fromAI('prompt', 'What the image shows, in a few words', 'string') }}";

/** Host Cloud Execute with the prompt of the text-to-image graph from the model. */
function generateNode(parameters: Record<string, unknown> = {}): ToolNodeSpec {
	return {
		name: 'Generate Image',
		type: 'hostCloud',
		parameters: {
			resource: 'workflow',
			operation: 'execute',
			workflow: JSON.stringify(txt2img()),
			inputOverrides: { values: [{ nodeId: '6', inputName: 'text', value: PROMPT }] },
			// As a regular node it would download: as a tool it must not.
			downloadFiles: true,
			waitOptions: { pollIntervalSeconds: 0.05, silenceSeconds: 0.3 },
			...parameters,
		},
		credentials: { hostCloudApi: cloud.credential },
	};
}

function statusNode(parameters: Record<string, unknown> = {}): ToolNodeSpec {
	return {
		name: 'Check Image Job',
		type: 'hostCloud',
		parameters: {
			resource: 'workflow',
			operation: 'getStatus',
			promptId: "={{ $fromAI('prompt_id', 'The prompt_id the image tool answered', 'string') }}",
			waitOptions: { pollIntervalSeconds: 0.05, silenceSeconds: 0.3 },
			...parameters,
		},
		credentials: { hostCloudApi: cloud.credential },
	};
}

const toolsOf = async (...nodes: ToolNodeSpec[]): Promise<HarnessTool[]> => await toolsFor(cloud.harness, ...nodes);

const storageRequests = () => cloud.sim.requests.filter((request) => request.host === 'storage');

/** The one item a tool answered, read back from the JSON text n8n hands the model. */
function answerOf(text: string): Record<string, any> {
	const items = JSON.parse(text) as Array<Record<string, any>>;
	expect(items).toHaveLength(1);
	return items[0]!;
}

function expectCompleted(answer: Record<string, any>): void {
	expect(Object.keys(answer).sort()).toEqual(['outputs', 'prompt_id', 'status']);
	expect(answer.status).toBe('completed');
	expect(answer.outputs.length).toBeGreaterThan(0);
	for (const output of answer.outputs) {
		expect(Object.keys(output).sort()).toEqual(['kind', 'mime_type', 'url', 'url_valid_for']);
		expect(output).toMatchObject({ kind: 'image', mime_type: 'image/png' });
		expect(output.url.startsWith(cloud.sim.storageUrl)).toBe(true);
		// The spec states no lifetime for signed links: the model is told so, not given a made-up time.
		expect(output.url_valid_for).toMatch(/not stated by the service/);
	}
	// Each output once.
	expect(new Set(answer.outputs.map((output: { url: string }) => output.url)).size).toBe(answer.outputs.length);
}

describe('as the MCP Server Trigger calls it (supply-data context)', () => {
	test('the tool has the operation’s description and the $fromAI arguments', async () => {
		const [generate, status] = await toolsOf(generateNode(), statusNode());
		expect(generate!.name).toBe('Generate_Image');
		expect(generate!.description).toMatch(/^Generates images, video or audio by running a workflow on the Host cloud/);
		expect(generate!.description).toContain('"url_valid_for"');
		expect(generate!.description).toContain('{"status": "running", "prompt_id", "message"}');
		expect(Object.keys(generate!.schema.shape ?? {})).toEqual(['prompt']);
		expect(status!.name).toBe('Check_Image_Job');
		expect(status!.description).toMatch(/^Checks a Host Cloud job started earlier/);
		expect(Object.keys(status!.schema.shape ?? {})).toEqual(['prompt_id']);
	});

	test('a call runs the job with the model’s prompt and answers each output once, with its link; nothing is downloaded', async () => {
		const [generate] = await toolsOf(generateNode());
		const answer = answerOf(await generate!.invoke({ prompt: 'a red fox in the snow' }));
		expectCompleted(answer);
		const submitted = JSON.parse(cloud.sim.requestsTo('POST', '/api/prompt')[0]!.body).prompt;
		expect(submitted['6'].inputs.text).toBe('a red fox in the snow');
		expect(storageRequests()).toEqual([]);
		expect(JSON.stringify(answer)).not.toContain(cloud.sim.apiKey);
	});

	test('a user’s own tool description replaces the prefilled one', async () => {
		const [generate] = await toolsOf(generateNode({ toolDescription: 'Paints a fox.' }));
		expect(generate!.description).toBe('Paints a fox.');
	});
});

describe('as the AI Agent has the engine run it (execute context)', () => {
	test('the answer is the same compact item, and nothing is downloaded', async () => {
		const result = await runAsAgentTool(cloud.harness, generateNode(), { prompt: 'a lighthouse' }, { chatInput: 'make a picture' });
		expect(result.status).toBe('success');
		expect(result.items).toHaveLength(1);
		expect(result.items[0]!.binary).toBeUndefined();
		expectCompleted(result.items[0]!.json);
		expect(storageRequests()).toEqual([]);
	});
});

describe('Tool Wait', () => {
	test('a slow job answers "running" within the wait, is not cancelled, and Get Status collects it in the same shape', async () => {
		cloud.sim.options.nodeMs = 1000; // seven nodes: 7 s, long past the 1 s wait on a loaded machine too
		const [generate, status] = await toolsOf(generateNode({ toolWaitSeconds: 1 }), statusNode());
		const started = Date.now();
		const running = answerOf(await generate!.invoke({ prompt: 'a slow fox' }));
		// It waited its Tool Wait; that it did not wait for the job shows in the answer ("running"),
		// not in a time, which a loaded machine stretches.
		expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
		expect(Object.keys(running).sort()).toEqual(['message', 'prompt_id', 'status']);
		expect(running.status).toBe('running');
		expect(running.message).toContain('not cancelled');
		expect(running.message).toContain(`"Get Status" tool with prompt_id "${running.prompt_id}"`);
		// Left running: no cancel was sent, and the job finishes on the service.
		expect(cloud.sim.requestsTo('POST', '/api/queue')).toEqual([]);
		expect(cloud.sim.requestsTo('POST', '/api/interrupt')).toEqual([]);
		expect(cloud.sim.cloud.jobs.get(running.prompt_id)?.status).not.toBe('cancelled');

		const done = answerOf(await status!.invoke({ prompt_id: running.prompt_id }));
		expectCompleted(done);
		expect(done.prompt_id).toBe(running.prompt_id);
		expect(cloud.sim.cloud.jobs.get(running.prompt_id)?.status).toBe('completed');
		expect(storageRequests()).toEqual([]);
	});

	test('Get Status, still not finished after its wait, answers "running" again', async () => {
		// Seven nodes of 3 s: far longer than two waits of 1 s, however slow a loaded machine makes the
		// calls around them (4 s jobs had finished by the second answer). The reset after the test ends it.
		cloud.sim.options.nodeMs = 3000;
		const [generate, status] = await toolsOf(generateNode({ toolWaitSeconds: 1 }), statusNode({ toolWaitSeconds: 1 }));
		const running = answerOf(await generate!.invoke({ prompt: 'a slower fox' }));
		const again = answerOf(await status!.invoke({ prompt_id: running.prompt_id }));
		expect(again).toMatchObject({ status: 'running', prompt_id: running.prompt_id });
		// Still left running: neither answer cancelled it.
		expect(cloud.sim.cloud.jobs.get(running.prompt_id)?.status).toBe('in_progress');
		expect(cloud.sim.requestsTo('POST', '/api/interrupt')).toEqual([]);
		expect(cloud.sim.requestsTo('POST', '/api/queue')).toEqual([]);
	});
});

describe('what a tool call cannot use', () => {
	test('a job the cloud does not know is a tool error that says so', async () => {
		const [status] = await toolsOf(statusNode());
		await expect(status!.invoke({ prompt_id: 'no-such-job' })).rejects.toThrow(/has no job no-such-job/);
	});

	test('Submit answers "running" at once with the prompt_id', async () => {
		const [submit] = await toolsOf(generateNode({ operation: 'submit' }));
		const answer = answerOf(await submit!.invoke({ prompt: 'a quick fox' }));
		expect(answer).toMatchObject({ status: 'running', prompt_id: expect.any(String) });
		expect(answer.message).toMatch(/^Started\./);
	});

	test('a Tool Wait that is not a whole number of seconds from 1 is refused, naming it, before the job is submitted', async () => {
		const [generate] = await toolsOf(generateNode({ toolWaitSeconds: 'soon' }));
		await expect(generate!.invoke({ prompt: 'a fox' })).rejects.toThrow(/Tool Wait \(Seconds\)/);
		expect(cloud.sim.requestsTo('POST', '/api/prompt')).toEqual([]);
	});

	test('Execute with Input Images (files from earlier nodes) is refused before any request, saying why', async () => {
		const [generate] = await toolsOf(generateNode({ inputImages: { values: [{ binaryPropertyName: 'data', nodeId: '5' }] } }));
		await expect(generate!.invoke({ prompt: 'a fox' })).rejects.toThrow(/Input Images take images from the binary data of earlier nodes/);
		expect(cloud.sim.requests).toEqual([]);
	});

	test.each([
		['queue', 'interrupt', /Interrupt Running stops every running job of the account/],
		['file', 'uploadImage', /Upload Image takes a file from the binary data/],
		['file', 'downloadOutput', /Download Output puts the file into binary data/],
	])('%s → %s is refused before any request, saying why', async (resource, operation, why) => {
		const before = cloud.sim.requests.length;
		const [tool] = await toolsOf({
			name: 'Tool',
			type: 'hostCloud',
			parameters: { resource, operation, filename: 'x.png' },
			credentials: { hostCloudApi: cloud.credential },
		});
		await expect(tool!.invoke({})).rejects.toThrow(/Not available to AI agents and MCP clients/);
		await expect(tool!.invoke({})).rejects.toThrow(why);
		expect(cloud.sim.requests.length).toBe(before);
	});
});
