/**
 * Host Cloud on the real upstream server, in a real n8n (2.41, the e2e suite's stack): a Host
 * Cloud API credential for the server created as a user fills it in, its test, the self-hosted
 * example (its checkpoint cannot load on this CPU server: the execution fails naming the node), and
 * a model-free workflow whose image arrives as binary data with the bytes the server serves.
 */
import { e2e } from '../../e2e/support/context';
import { describeFailure, outputItems } from '../../e2e/support/n8n-client';
import { SELF_HOSTED_CREDENTIAL_NAME, SELF_HOSTED_EXAMPLE } from '../../e2e/support/self-hosted';
import { hostNodeType, linearWorkflow, loadExamples, manualTriggerNode } from '../../e2e/support/workflows';
import type { CredentialRef } from '../../e2e/support/n8n-client';
import { drainQueue, realServer } from '../support/real-server';

describe('Host Cloud on the real upstream server, in n8n', () => {
	let credential: CredentialRef;

	beforeAll(async () => {
		credential = await e2e().client.createCredential(SELF_HOSTED_CREDENTIAL_NAME, 'hostCloudApi', {
			server: 'selfHosted',
			serverUrl: realServer().url,
			platformApiKey: '',
			proxyHeaders: { values: [] },
			wsBaseUrl: '',
		});
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
});
