/**
 * Host Media (and Host Registry) as tools of an AI agent or an MCP client, run the two ways n8n
 * 2.41.1 runs tools (test/support/tools.ts). A task is polled at most Tool Wait, then answered
 * "running" with what the status tool needs; the status tool waits the same way and answers the
 * same compact shape. Nothing is downloaded, and what a tool call cannot use is refused before any
 * request, saying why.
 */
import { FAST, IMAGE_URL, useMediaEnv } from '../../support/media';
import { connectedTools, registerToolTypes, runAsAgentTool, toolsFor, type HarnessTool, type ToolNodeSpec } from '../../support/tools';

const env = useMediaEnv();

beforeAll(() => {
	registerToolTypes(env.harness);
});

function mediaTool(name: string, parameters: Record<string, unknown>): ToolNodeSpec {
	return { name, type: 'hostMedia', parameters: { ...FAST, ...parameters }, credentials: { hostApi: env.credential } };
}

const upscaleTool = (parameters: Record<string, unknown> = {}) =>
	mediaTool('Upscale Image', {
		resource: 'image',
		operation: 'upscale',
		imageUrl: "={{ $fromAI('image_url', 'Public URL of the image to upscale', 'string') }}",
		scaleFactor: '4x',
		...parameters,
	});

const imageStatusTool = (parameters: Record<string, unknown> = {}) =>
	mediaTool('Check Image Task', {
		resource: 'image',
		operation: 'getTaskStatus',
		taskType: 'image-upscaler',
		taskId: "={{ $fromAI('task_id', 'The task_id the upscale tool answered', 'string') }}",
		...parameters,
	});

const toolsOf = async (...nodes: ToolNodeSpec[]): Promise<HarnessTool[]> => await toolsFor(env.harness, ...nodes);

function answerOf(text: string): Record<string, any> {
	const items = JSON.parse(text) as Array<Record<string, any>>;
	expect(items).toHaveLength(1);
	return items[0]!;
}

const storageRequests = () => env.sim.requests.filter((request) => request.host === 'storage');

describe('an image task', () => {
	test('the tool describes itself and takes the image URL from the model', async () => {
		const [upscale, status] = await toolsOf(upscaleTool(), imageStatusTool());
		expect(upscale!.description).toMatch(/^Upscales an image given by its URL/);
		expect(upscale!.description).toContain('"task_id", "task_type"');
		expect(Object.keys(upscale!.schema.shape ?? {})).toEqual(['image_url']);
		expect(status!.description).toMatch(/^Checks an image task started earlier/);
	});

	test('a call answers the result once, with its link; nothing is downloaded', async () => {
		const [upscale] = await toolsOf(upscaleTool());
		const answer = answerOf(await upscale!.invoke({ image_url: IMAGE_URL }));
		expect(answer).toEqual({
			status: 'completed',
			task_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
			task_type: 'image-upscaler',
			outputs: [
				{
					kind: 'image',
					mime_type: 'image/png',
					url: expect.stringContaining(env.sim.storageUrl),
					url_valid_for: expect.stringMatching(/not stated by the service/),
				},
			],
		});
		const submitted = JSON.parse(env.sim.requestsTo('POST', '/proxy/imaging/v1/ai/image-upscaler')[0]!.body);
		expect(submitted).toMatchObject({ image: IMAGE_URL, scale_factor: '4x' });
		expect(storageRequests()).toEqual([]);
		expect(JSON.stringify(answer)).not.toContain(env.sim.accessToken);
	});

	test('a task that outlasts Tool Wait answers "running", and the status tool collects it', async () => {
		env.sim.proxy.holdFinalStatus = true;
		const [upscale, status] = await toolsOf(upscaleTool({ toolWaitSeconds: 1 }), imageStatusTool({ toolWaitSeconds: 1 }));
		// The task's end is held back: only Tool Wait can end the call, and "running" shows it did.
		const running = answerOf(await upscale!.invoke({ image_url: IMAGE_URL }));
		expect(running).toMatchObject({ status: 'running', task_type: 'image-upscaler' });
		expect(running.message).toContain(
			`"Get Task Status" tool (image) with task_id "${String(running.task_id)}" and task type "image-upscaler"`,
		);
		// Still not finished: the status tool waits its Tool Wait and answers "running" again.
		expect(answerOf(await status!.invoke({ task_id: running.task_id }))).toMatchObject({ status: 'running', task_id: running.task_id });
		env.sim.proxy.holdFinalStatus = false;
		env.sim.proxy.releaseHeldTasks();
		const done = answerOf(await status!.invoke({ task_id: running.task_id }));
		expect(done).toMatchObject({ status: 'completed', task_id: running.task_id, task_type: 'image-upscaler' });
		expect(done.outputs).toHaveLength(1);
		expect(storageRequests()).toEqual([]);
	});

	test('Don\'t Wait answers "running" at once', async () => {
		const [upscale] = await toolsOf(upscaleTool({ waitMode: 'none' }));
		const answer = answerOf(await upscale!.invoke({ image_url: IMAGE_URL }));
		expect(answer).toMatchObject({ status: 'running', task_type: 'image-upscaler' });
		expect(answer.message).toMatch(/^Started\./);
	});
});

describe('a video task, as the AI Agent has the engine run it', () => {
	test('answers "running" with the task_id, and the video status tool returns the video with its creation_id and cover', async () => {
		env.sim.proxy.holdFinalStatus = true;
		const video = mediaTool('Make Video', {
			resource: 'video',
			operation: 'generateFromStartEndFrame',
			imageUrl: "={{ $fromAI('start_frame_url', 'Public URL of the first frame', 'string') }}",
			prompt: "={{ $fromAI('prompt', 'What happens in the video', 'string') }}",
			toolWaitSeconds: 1,
		});
		const started = await runAsAgentTool(env.harness, video, { start_frame_url: IMAGE_URL, prompt: 'waves' });
		expect(started.status).toBe('success');
		const running = started.items[0]!.json as Record<string, any>;
		expect(Object.keys(running).sort()).toEqual(['message', 'status', 'task_id']);
		expect(running.status).toBe('running');
		expect(running.message).toContain(`"Get Task Status" tool (video) with task_id "${String(running.task_id)}"`);

		env.sim.proxy.holdFinalStatus = false;
		env.sim.proxy.releaseHeldTasks();
		const status = mediaTool('Check Video', {
			resource: 'video',
			operation: 'getTaskStatus',
			taskId: "={{ $fromAI('task_id') }}",
			toolWaitSeconds: 5,
		});
		const done = await runAsAgentTool(env.harness, status, { task_id: running.task_id });
		expect(done.items[0]!.binary).toBeUndefined();
		expect(done.items[0]!.json).toEqual({
			status: 'completed',
			task_id: running.task_id,
			outputs: [
				{
					kind: 'video',
					mime_type: 'video/mp4',
					url: expect.stringContaining(env.sim.storageUrl),
					url_valid_for: expect.stringMatching(/not stated by the service/),
					creation_id: expect.any(String),
					cover_url: expect.stringContaining(env.sim.storageUrl),
				},
			],
		});
		expect(storageRequests()).toEqual([]);
	});
});

describe('what a tool call cannot use is refused before any request, saying why', () => {
	test.each<[string, Record<string, unknown>, RegExp]>([
		[
			'Wait for Notification',
			{ resource: 'image', operation: 'upscale', imageUrl: IMAGE_URL, waitMode: 'webhook' },
			/Wait for Notification" pauses the execution/,
		],
		[
			'an image from a binary field',
			{ resource: 'image', operation: 'upscale', imageSource: 'binary' },
			/Image \(image\) is set to come from a binary field/,
		],
		[
			'Generate Music',
			{ resource: 'music', operation: 'generate', prompt: 'calm piano' },
			/Generate Music streams the audio into n8n as binary data/,
		],
	])('%s', async (_what, parameters, why) => {
		const [tool] = await toolsOf(mediaTool('Tool', parameters));
		await expect(tool!.invoke({})).rejects.toThrow(/Not available to AI agents and MCP clients/);
		await expect(tool!.invoke({})).rejects.toThrow(why);
		expect(env.sim.requests).toEqual([]);
	});

	test('a Tool Wait that is not a whole number of seconds from 1 is refused, naming it, before the task is started', async () => {
		const [upscale] = await toolsOf(upscaleTool({ toolWaitSeconds: 0 }));
		await expect(upscale!.invoke({ image_url: IMAGE_URL })).rejects.toThrow(/Tool Wait \(Seconds\)/);
		expect(env.sim.requests).toEqual([]);
	});

	test('Host Registry: Publish', async () => {
		const node: ToolNodeSpec = {
			name: 'Publish',
			type: 'hostRegistry',
			parameters: { resource: 'nodeVersion', operation: 'publish' },
			credentials: { hostApi: env.credential },
		};
		const [tool] = await connectedTools(env.harness, [node]);
		await expect(tool!.invoke({})).rejects.toThrow(/Publish uploads the version's archive from the binary data/);
		expect(env.sim.requests).toEqual([]);
	});
});
