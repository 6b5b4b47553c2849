/**
 * Host Cloud on the real upstream server, in a real n8n (2.41, the e2e suite's stack): a Host
 * Cloud API credential for the server created as a user fills it in, its test, the self-hosted
 * example (its checkpoint cannot load on this CPU server: the execution fails naming the node), and
 * a model-free workflow whose image arrives as binary data with the bytes the server serves, and a
 * published Host Cloud Trigger that a job posted by a script starts once, with its image.
 */
import { e2e } from '../../e2e/support/context';
import { describeFailure, outputItems } from '../../e2e/support/n8n-client';
import { SELF_HOSTED_CREDENTIAL_NAME, SELF_HOSTED_EXAMPLE } from '../../e2e/support/self-hosted';
import { hostNodeType, linearWorkflow, loadExamples, manualTriggerNode } from '../../e2e/support/workflows';
import type { CredentialRef } from '../../e2e/support/n8n-client';
import { drainQueue, realServer } from '../support/real-server';
import { selfHostedCredential } from '../../support/credential-fixtures';

describe('Host Cloud on the real upstream server, in n8n', () => {
	let credential: CredentialRef;

	beforeAll(async () => {
		credential = await e2e().client.createCredential(
			SELF_HOSTED_CREDENTIAL_NAME,
			'hostCloudApi',
			selfHostedCredential({ serverUrl: realServer().url, platformApiKey: '', proxyHeaders: { values: [] }, wsBaseUrl: '' }),
		);
	});

	afterEach(async () => {
		await drainQueue(realServer().url);
	});

	it('the credential test passes', async () => {
		expect(await e2e().client.testCredential(credential)).toEqual({ status: 'OK', message: expect.any(String) });
	});

	it('the self-hosted example fails at its checkpoint loader, naming the node and the exception', async () => {
		const stack = e2e();
		const example = loadExamples().find((entry) => entry.file === SELF_HOSTED_EXAMPLE)!;
		const workflow = await stack.importWorkflow(example.workflow, `${example.workflow.name} (real server)`, { hostCloudApi: credential });
		const execution = await stack.client.runWorkflow(workflow.id, { timeoutMs: 120000 });
		expect(describeFailure(execution)).toMatch(/Job [0-9a-f-]{36} failed at node 4 \(CheckpointLoaderSimple\): \S+Error: [^\n]*\S/);
	});

	it('the editor’s Value From Server List for a checkpoint lists the server’s checkpoints', async () => {
		const info = (await (await fetch(`${realServer().url}/object_info/CheckpointLoaderSimple`)).json()) as Record<string, any>;
		const txt2img = loadExamples()
			.find((entry) => entry.file === SELF_HOSTED_EXAMPLE)!
			.workflow.nodes.find((candidate) => candidate.type === hostNodeType('hostCloud'))!;
		const options = await e2e().client.loadOptions(
			{
				type: hostNodeType('hostCloud'),
				typeVersion: Number(txt2img.typeVersion),
				parameters: {
					// The editor sends every parameter with its default filled in (seen in n8n 2.41): a saved
					// workflow from before v2 has no apiGeneration, and the editor sends its default, v1.
					apiGeneration: 'v1',
					...(txt2img.parameters as Record<string, unknown>),
					inputOverrides: { values: [{ nodeId: '4', inputName: 'ckpt_name' }] },
				},
				credentials: { hostCloudApi: credential },
			},
			'getInputValues',
			'parameters.inputOverrides.values[0].listedValue',
		);
		expect(options.map((option) => option.value)).toEqual(info.CheckpointLoaderSimple.input.required.ckpt_name[0]);
	});

	it('a model-free workflow: the image as binary data, the bytes the server serves', async () => {
		const stack = e2e();
		const graph = {
			'1': { class_type: 'EmptyImage', inputs: { width: 64, height: 48, batch_size: 1, color: Math.floor(Math.random() * 0xffffff) } },
			'2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'n8n-e2e' } },
		};
		const workflow = await stack.importWorkflow(
			linearWorkflow('Host Cloud on the real server (e2e)', [
				manualTriggerNode(),
				{
					name: 'Empty image',
					type: hostNodeType('hostCloud'),
					typeVersion: 3,
					parameters: {
						resource: 'workflow',
						operation: 'execute',
						workflow: JSON.stringify(graph),
						inputOverrides: { values: [{ nodeId: '1', inputName: 'width', value: '72' }] },
					},
					credentials: { hostCloudApi: { name: SELF_HOSTED_CREDENTIAL_NAME } },
				},
			]),
			undefined,
			{ hostCloudApi: credential },
		);
		const execution = await stack.client.runWorkflow(workflow.id, { timeoutMs: 120000 });
		expect(describeFailure(execution)).toBe('succeeded');
		const [item] = outputItems(execution, 'Empty image');
		const image = (item!.json.images as Array<{ url: string }>)[0]!;
		const bytes = await stack.client.binaryContent(item!.binary!.data!);
		expect(bytes.readUInt32BE(16)).toBe(72);
		expect(image.url.startsWith(`${realServer().url}/api/view?`)).toBe(true);
		expect(bytes.equals(Buffer.from(await (await fetch(image.url)).arrayBuffer()))).toBe(true);
	});

	it('Host Cloud Trigger, published: a job a script posts to the server starts one execution, with its image as binary data; a failed one is told in words', async () => {
		const stack = e2e();
		const trigger = 'When a job finishes';
		const workflow = await stack.importWorkflow(
			linearWorkflow('Host Cloud Trigger on the real server (e2e)', [
				{
					name: trigger,
					type: hostNodeType('hostCloudTrigger'),
					typeVersion: 1,
					parameters: { events: 'finished', pollSeconds: 2 },
					credentials: { hostCloudApi: { name: SELF_HOSTED_CREDENTIAL_NAME } },
				},
				{ name: 'Next', type: 'n8n-nodes-base.noOp', typeVersion: 1, parameters: {} },
			]),
			undefined,
			{ hostCloudApi: credential },
		);
		const known = await stack.client.executionIds(workflow.id);
		await stack.client.activateWorkflow(workflow.id);
		try {
			// The trigger's first read of the history only remembers: let it happen before the job.
			await new Promise((resolve) => setTimeout(resolve, 4000));
			const post = async (graph: Record<string, unknown>) => {
				const response = await fetch(`${realServer().url}/prompt`, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify({ prompt: graph }),
				});
				return ((await response.json()) as { prompt_id: string }).prompt_id;
			};
			const promptId = await post({
				'1': { class_type: 'EmptyImage', inputs: { width: 40, height: 24, batch_size: 1, color: Math.floor(Math.random() * 0xffffff) } },
				'2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'n8n-trigger' } },
			});
			const execution = await stack.client.waitForNewExecution(workflow.id, known, { timeoutMs: 60000 });
			expect(describeFailure(execution)).toBe('succeeded');
			const [item] = outputItems(execution, trigger);
			expect(item!.json).toMatchObject({ prompt_id: promptId, status: 'succeeded', server: 'selfHosted' });
			const image = (item!.json.images as Array<{ url: string }>)[0]!;
			const bytes = await stack.client.binaryContent(item!.binary!.data!);
			expect(bytes.readUInt32BE(16)).toBe(40);
			expect(bytes.equals(Buffer.from(await (await fetch(image.url)).arrayBuffer()))).toBe(true);

			// A graph whose checkpoint cannot load on this server: it fails at its loader.
			const info = (await (await fetch(`${realServer().url}/object_info/CheckpointLoaderSimple`)).json()) as Record<string, any>;
			const checkpoint = info.CheckpointLoaderSimple.input.required.ckpt_name[0][0] as string;
			const failed = await post({
				'4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: checkpoint } },
				'5': { class_type: 'EmptyLatentImage', inputs: { width: 64, height: 64, batch_size: 1 } },
				'8': { class_type: 'VAEDecode', inputs: { samples: ['5', 0], vae: ['4', 2] } },
				'9': { class_type: 'SaveImage', inputs: { images: ['8', 0], filename_prefix: 'n8n-trigger-failed' } },
			});
			const withBoth = new Set([...known, execution.id]);
			const second = await stack.client.waitForNewExecution(workflow.id, withBoth, { timeoutMs: 60000 });
			const [failure] = outputItems(second, trigger);
			expect(failure!.json).toMatchObject({
				prompt_id: failed,
				status: 'failed',
				error: { node_id: '4', node_type: 'CheckpointLoaderSimple' },
			});
			expect((failure!.json.error as { message: string }).message).toMatch(/failed at node 4 \(CheckpointLoaderSimple\)/);
			// Once each: the next reads of the history start nothing more.
			await new Promise((resolve) => setTimeout(resolve, 5000));
			expect((await stack.client.executionIds(workflow.id)).size).toBe(known.size + 2);
		} finally {
			await stack.client.deactivateWorkflow(workflow.id);
		}
	});
});
