/**
 * What the v2 API cannot serve is refused by name on the v2 generation, before anything is sent:
 * each operation the design lists says which it is, why v2 cannot, and what to do instead, and a
 * loopback server sees no request. Get Job Workflow, a v2 endpoint, is refused the same way on v1.
 * As a tool on v2, Get Status, Wait for Completion and Cancel Jobs are refused (no tag on a v2 job
 * keeps a tool to its own workflow's jobs). The editor's pickers that need node definitions or model
 * folders say so on v2 instead of reading anything.
 */
import type { IDataObject } from 'n8n-workflow';

import { EngineHarness } from '../../../support/engine';
import { hostCloudApiCredential } from '../../../support/credential-fixtures';
import { sendJson, startHostileService, type HostileService } from '../../../support/hostile-service';
import { registerToolTypes, runAsAgentTool } from '../../../support/tools';
import { uiTxt2img } from '../../../support/ui-workflows';

const harness = new EngineHarness();
let service: HostileService;
let v2: string;
let v1: string;

beforeAll(async () => {
	registerToolTypes(harness);
	service = await startHostileService((_req, res) => sendJson(res, 404, { error: { code: 'not_found', message: 'no such thing' } }));
	v2 = harness.addCredential('hostCloudV2Api', { baseUrl: service.url, apiKey: 'v2-refusals-key' });
	v1 = harness.addCredential('hostCloudApi', hostCloudApiCredential({ baseUrl: service.url, apiKey: 'v1-refusals-key' }));
});
beforeEach(() => {
	service.seen.length = 0;
});
afterAll(async () => {
	await service.close();
});

const onV2 = (parameters: IDataObject) => ({
	type: 'hostCloud',
	parameters: { apiGeneration: 'v2', ...parameters } as never,
	credentials: { hostCloudV2Api: v2 },
});

test.each([
	['queue', 'get', 'Queue → Get', /lists no jobs/, /Get Status/],
	['queue', 'interrupt', 'Queue → Interrupt Running', /cancels one job at a time/, /Cancel Jobs/],
	[
		'queue',
		'cancelExecutionJobs',
		'Queue → Cancel Jobs of an Execution',
		/carries no tag of the n8n execution/,
		/Execute cancels its own jobs/,
	],
	['server', 'getSystemStats', 'Server → System Stats', /self-hosted ComfyUI-compatible server/, /Self-Hosted/],
	['server', 'freeMemory', 'Server → Free Memory', /self-hosted ComfyUI-compatible server/, /Self-Hosted/],
	['server', 'listModels', 'Server → List Models', /self-hosted ComfyUI-compatible server/, /Self-Hosted/],
	['server', 'getHistory', 'Server → Get History', /self-hosted ComfyUI-compatible server/, /Self-Hosted/],
	['server', 'deleteHistory', 'Server → Delete History', /self-hosted ComfyUI-compatible server/, /Self-Hosted/],
	['system', 'getNodeDefinitions', 'System → Get Node Definitions', /publishes no node definitions/, /a Host Cloud API credential \(in the credential dialog: V1: Workflow API\)/],
	['workflow', 'convert', 'Workflow → Convert to API Format', /needs the server’s node definitions/, /Export the workflow in API format/],
])('%s → %s on v2 is refused by name, saying why and what instead; nothing is sent', async (resource, operation, name, why, instead) => {
	const result = await harness.runNode(onV2({ resource, operation, promptIds: 'a1', executionId: '1', workflow: '{}' }));
	expect(result.status).toBe('error');
	const error = result.error('Node')!;
	expect(error.message).toMatch(new RegExp(`^${name} is not available on the v2 API, which the node's Host Cloud V2 API credential speaks: `));
	expect(error.message).toMatch(why);
	expect(error.description).toMatch(instead);
	expect(error.description).toMatch(/Nothing was sent with the Host Cloud V2 API credential/);
	expect(service.seen).toHaveLength(0);
});

test.each([
	['on v2', 'v2', { hostCloudApi: 'v1' }, 'Host Cloud V2 API', 'Host Cloud API'],
	['on v1', 'v1', { hostCloudV2Api: 'v2' }, 'Host Cloud API', 'Host Cloud V2 API'],
	['saved before v2 (no API Generation)', undefined, { hostCloudV2Api: 'v2' }, 'Host Cloud API', 'Host Cloud V2 API'],
])(
	'an imported node %s with only the other generation’s credential is refused in the editor’s words: nothing is sent with either key',
	async (_label, generation, given, wanted, other) => {
		const credentials = Object.fromEntries(Object.entries(given).map(([type, which]) => [type, which === 'v1' ? v1 : v2]));
		const result = await harness.runNode({
			type: 'hostCloud',
			parameters: { ...(generation ? { apiGeneration: generation } : {}), resource: 'workflow', operation: 'getStatus', promptId: 'p1' } as never,
			credentials,
		});
		expect(result.status).toBe('error');
		const error = result.error('Node')!;
		expect(error.message).toBe(`The node speaks the ${generation ?? 'v1'} API but has no ${wanted} credential`);
		expect(error.description).toContain(`Pick a ${wanted} credential in its Credential field`);
		expect(error.description).toContain(`or a ${other} credential to run it on`);
		expect(error.description).toMatch(/Nothing was sent\.$/);
		expect(service.seen).toHaveLength(0);
	},
);

test('Get Job Workflow on v1 is refused by name: nothing is sent with the v1 credential', async () => {
	const result = await harness.runNode({
		type: 'hostCloud',
		parameters: { resource: 'workflow', operation: 'getJobWorkflow', jobId: 'j1' } as never,
		credentials: { hostCloudApi: v1 },
	});
	expect(result.error('Node')?.message).toMatch(
		/^Workflow → Get Job Workflow is not available on the v1 API, which the node's Host Cloud API credential speaks: it reads the workflow of a v2 job/,
	);
	expect(result.error('Node')?.description).toMatch(/Pick a Host Cloud V2 API credential in the node's Credential field \(in the credential dialog: V2: Jobs API\)/);
	expect(service.seen).toHaveLength(0);
});

test.each([
	['workflow', 'getStatus', { promptId: 'j1' }],
	['workflow', 'waitForCompletion', { promptId: 'j1' }],
	['queue', 'cancelJobs', { promptIds: 'j1' }],
	['workflow', 'getJobWorkflow', { jobId: 'j1' }],
])('as a tool on v2, %s → %s is refused (no tag keeps the tool to its own jobs); nothing is sent', async (resource, operation, fields) => {
	const items = await runAsAgentTool(harness, { name: 'Host Cloud', ...onV2({ resource, operation, ...fields }) }, {});
	expect(items.error('Host Cloud')?.message).toMatch(
		/^Not available to AI agents and MCP clients: .*a job carries no tag of the workflow that started it/,
	);
	expect(service.seen).toHaveLength(0);
});

describe('the pickers on v2', () => {
	const list = (method: string, parameters: IDataObject, path = 'parameters.workflow') =>
		harness.loadOptions({ name: 'Node', ...onV2({ resource: 'workflow', operation: 'execute', ...parameters }) }, method, path);

	test('the nodes of a UI-format workflow: why not, and what to do instead; no node definitions read', async () => {
		await expect(list('getWorkflowNodes', { workflow: JSON.stringify(uiTxt2img()) })).rejects.toThrow(
			/^The nodes of a UI-format workflow cannot be listed on the v2 API: converting it needs node definitions.*Export the workflow in API format/,
		);
		expect(service.seen).toHaveLength(0);
	});

	test('an input’s values (node definitions) and the model folders (a self-hosted control) say why not', async () => {
		const workflow = JSON.stringify({ '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'a.safetensors' } } });
		await expect(
			list(
				'getInputValues',
				{ workflow, inputOverrides: { values: [{ nodeId: '4', inputName: 'ckpt_name' }] } },
				'parameters.inputOverrides.values[0].listedValue',
			),
		).rejects.toThrow(
			/values of an input cannot be listed on the v2 API: they come from node definitions.*Type the value in Value instead/,
		);
		await expect(list('getModelFolders', {})).rejects.toThrow(/^Model folders cannot be listed on the v2 API/);
		expect(service.seen).toHaveLength(0);
	});

	test('the nodes of an API-format workflow are listed on v2 from the field alone', async () => {
		const workflow = JSON.stringify({ '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'a.safetensors' } } });
		expect((await list('getWorkflowNodes', { workflow })).map((option) => option.value)).toEqual(['4']);
		expect(service.seen).toHaveLength(0);
	});
});
