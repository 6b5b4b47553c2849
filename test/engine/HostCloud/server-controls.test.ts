/**
 * Host Cloud → Server: a self-hosted server's own controls (System Stats, Free Memory, List Models,
 * Get History, Delete History) through n8n's engine against the simulator's self-hosted flavour
 * behind its reverse proxy; each refused by name on the cloud before anything is sent; their
 * bounds checked before sending; only System Stats and List Models offered to AI agents.
 */
import type { IDataObject } from 'n8n-workflow';

import type { SelfHostedArea } from '../../../simulator/self-hosted/area';
import { registerToolTypes, runAsAgentTool, toolsFor } from '../../support/tools';
import { cloudForSuite, PROXY_HEADER, storedFiles, TINY_PNG, txt2img } from '../../support/cloud';

const server = cloudForSuite({ flavour: 'self-hosted' });
const cloud = cloudForSuite();

beforeAll(() => {
	registerToolTypes(server.harness);
	registerToolTypes(cloud.harness);
});

const area = () => server.sim.cloud as SelfHostedArea;

type Setup = typeof server;

function run(
	operation: string,
	parameters: IDataObject = {},
	options: { setup?: Setup; continueOnFail?: boolean; items?: Array<{ json: IDataObject; binaryBase64?: never }> } = {},
) {
	const setup = options.setup ?? server;
	return setup.harness.runNode(
		{
			type: 'hostCloud',
			parameters: { resource: 'server', operation, ...parameters } as never,
			credentials: { hostCloudApi: setup.credential },
			continueOnFail: options.continueOnFail,
		},
		options.items ?? [{ json: {} }],
	);
}

/** List Models → Folder's dropdown, as the editor asks for it. */
const folderList = (setup: Setup) =>
	setup.harness.loadOptions(
		{
			name: 'Node',
			type: 'hostCloud',
			parameters: { resource: 'server', operation: 'listModels' } as never,
			credentials: { hostCloudApi: setup.credential },
		},
		'getModelFolders',
		'parameters.folder',
	);

/** Runs the text-to-image job `count` times on the server (other seeds, so none is cached); answers their prompt_ids in the order they ended. */
async function jobsOnServer(count: number): Promise<string[]> {
	const ids: string[] = [];
	for (let index = 0; index < count; index++) {
		const graph = txt2img();
		graph['3']!.inputs.seed = 1000 + index;
		const done = await server.harness.runNode({
			type: 'hostCloud',
			parameters: { resource: 'workflow', operation: 'execute', workflow: JSON.stringify(graph), downloadFiles: false } as never,
			credentials: { hostCloudApi: server.credential },
		});
		ids.push(done.items[0]!.json.prompt_id as string);
	}
	return ids;
}

describe('on the cloud, every Server operation is refused by name before anything is sent', () => {
	test.each([
		['getSystemStats', 'System Stats', {}],
		['freeMemory', 'Free Memory', {}],
		['listModels', 'List Models', { scope: 'allFolders' }],
		['listModels', 'List Models', { scope: 'folder', folder: 'checkpoints' }],
		['getHistory', 'Get History', { scope: 'recent', maxItems: 5 }],
		['getHistory', 'Get History', { scope: 'promptIds', promptIds: 'abc' }],
		['deleteHistory', 'Delete History', { scope: 'all' }],
		['deleteHistory', 'Delete History', { scope: 'promptIds', promptIds: 'abc' }],
	])('%s (%s)', async (operation, name, parameters) => {
		const result = await run(operation, parameters, { setup: cloud, continueOnFail: true });
		expect(result.items[0]!.json.error).toBe(
			`${name} needs a self-hosted server: this Host Cloud API credential points at the Host cloud, which has no such control`,
		);
		expect(result.items[0]!.json.errorDetails).toMatch(/whose Server is "Self-Hosted"; nothing was sent to the cloud/);
		expect(cloud.sim.requests).toEqual([]);
	});

	test('without Continue On Fail the run fails with the same words', async () => {
		const result = await run('getSystemStats', {}, { setup: cloud });
		expect(result.status).toBe('error');
		expect(String((result.error('Node') as Error).message)).toMatch(/^System Stats needs a self-hosted server/);
		expect(cloud.sim.requests).toEqual([]);
	});

	test('the Folder list of List Models says so too', async () => {
		await expect(folderList(cloud)).rejects.toThrow(/^List Models needs a self-hosted server/);
		expect(cloud.sim.requests).toEqual([]);
	});
});

describe('System Stats', () => {
	test('the server’s versions, memory and devices, through the reverse proxy', async () => {
		const result = await run('getSystemStats');
		expect(result.status).toBe('success');
		expect(result.items).toHaveLength(1);
		const json = result.items[0]!.json as Record<string, any>;
		expect(json.system).toMatchObject({ comfyui_version: '0.3.64', os: 'posix' });
		expect(json.devices[0]).toMatchObject({ type: 'cuda', vram_total: expect.any(Number), vram_free: expect.any(Number) });
		expect(server.sim.requestsTo('GET', '/api/system_stats')).toHaveLength(1);
		expect(server.sim.requests.every((request) => request.headers[PROXY_HEADER.header.toLowerCase()] !== undefined)).toBe(true);
		expect(JSON.stringify(result.run.data)).not.toContain(PROXY_HEADER.value);
	});

	test('a read: a 5xx is tried again', async () => {
		server.sim.faults.http5xx = { count: 1, pathPrefix: '/api/system_stats' };
		const result = await run('getSystemStats');
		expect(result.status).toBe('success');
		expect(server.sim.requestsTo('GET', '/api/system_stats')).toHaveLength(2);
	});
});

describe('Free Memory', () => {
	test('sends what was asked, once per item, and says so; the input’s files pass through', async () => {
		const result = await server.harness.runNode(
			{
				type: 'hostCloud',
				parameters: { resource: 'server', operation: 'freeMemory', unloadModels: true, freeMemory: false } as never,
				credentials: { hostCloudApi: server.credential },
			},
			[{ json: { image: 1 }, binaryBase64: { data: { data: TINY_PNG.toString('base64'), fileName: 'a.png', mimeType: 'image/png' } } }],
		);
		expect(result.status).toBe('success');
		expect(result.items[0]!.json).toEqual({ unload_models: true, free_memory: false, requested: true });
		expect(result.items[0]!.pairedItem).toEqual({ item: 0 });
		expect(result.items[0]!.binary?.data).toMatchObject({ fileName: 'a.png', mimeType: 'image/png' });
		expect(area().freed).toEqual([{ unload_models: true, free_memory: false }]);
		expect(server.sim.requestsTo('POST', '/api/free')).toHaveLength(1);
	});

	test('both on by default', async () => {
		await run('freeMemory');
		expect(area().freed).toEqual([{ unload_models: true, free_memory: true }]);
	});

	test('with both off it is refused, naming the fields, and nothing is sent', async () => {
		const result = await run('freeMemory', { unloadModels: false, freeMemory: false }, { continueOnFail: true });
		expect(result.items[0]!.json.error).toBe('Unload Models and Free Memory are both off, so there is nothing to ask');
		expect(server.sim.requests).toEqual([]);
	});

	test('is sent once, never repeated on a 5xx: the item fails and says so', async () => {
		server.sim.faults.http5xx = { count: 3, pathPrefix: '/api/free' };
		const result = await run('freeMemory', {}, { continueOnFail: true });
		expect(result.items[0]!.json.error).toMatch(/HTTP 503/);
		expect(server.sim.requestsTo('POST', '/api/free')).toHaveLength(1);
	});
});

describe('List Models', () => {
	test('All Folders: the folder names', async () => {
		const result = await run('listModels', { scope: 'allFolders' });
		expect(result.items).toHaveLength(1);
		expect(result.items[0]!.json.folders).toEqual(expect.arrayContaining(['checkpoints', 'loras', 'vae', 'upscale_models']));
	});

	test('One Folder: its model files', async () => {
		const result = await run('listModels', { scope: 'folder', folder: 'checkpoints' });
		const json = result.items[0]!.json as { folder: string; models: string[] };
		expect(json.folder).toBe('checkpoints');
		expect(json.models).toContain('v1-5-pruned-emaonly.safetensors');
		expect(server.sim.requestsTo('GET', '/api/models/checkpoints')).toHaveLength(1);
	});

	test('a folder the server does not have is said in words', async () => {
		const result = await run('listModels', { scope: 'folder', folder: 'Checkpoints' }, { continueOnFail: true });
		expect(result.items[0]!.json.error).toMatch(/^Your server has no model folder "Checkpoints"/);
		expect(result.items[0]!.json.errorDetails).toMatch(/List Models with "All Folders" lists the folders/);
	});

	test.each([
		['..', /Folder cannot be "\.\." \(it would name another path\)/],
		['checkpoints/../loras', /^Folder must not contain "\/" or "\\"/],
		[' ', /^Folder is required/],
	])('folder %j is refused before anything is sent', async (folder, message) => {
		const result = await run('listModels', { scope: 'folder', folder }, { continueOnFail: true });
		expect(result.items[0]!.json.error).toMatch(message);
		expect(server.sim.requests).toEqual([]);
	});

	test('the Folder list comes from the server', async () => {
		const options = await folderList(server);
		expect(options).toEqual(expect.arrayContaining([{ name: 'checkpoints', value: 'checkpoints' }]));
	});
});

describe('Get History', () => {
	test('Recent: one item per entry, in the order the jobs ended, with status and file links', async () => {
		const ids = await jobsOnServer(3);
		const before = server.sim.requests.length;
		const result = await run('getHistory', { scope: 'recent', maxItems: 2 });
		expect(result.items.map((item) => item.json.prompt_id)).toEqual(ids.slice(1));
		const [item] = result.items;
		expect(item!.json).toMatchObject({ status: 'completed' });
		const image = (item!.json.images as Array<Record<string, string>>)[0]!;
		expect(image.filename).toBe(storedFiles(server.sim, ids[1]!)[0]!.filename);
		expect(image.url.startsWith(`${server.sim.baseUrl}/api/view?`)).toBe(true);
		expect(result.items.every((entry) => entry.pairedItem && (entry.pairedItem as { item: number }).item === 0)).toBe(true);
		expect(server.sim.requests.slice(before).map((request) => [request.method, request.path, request.query])).toEqual([
			['GET', '/api/history', { max_items: '2' }],
		]);
	});

	test('By Prompt ID: those entries, and an item saying which ids the history does not hold', async () => {
		const [done] = await jobsOnServer(1);
		const unknown = '00000000-0000-4000-8000-000000000000';
		const result = await run('getHistory', { scope: 'promptIds', promptIds: `${unknown}, ${done}` });
		expect(result.items.map((item) => [item.json.prompt_id, item.json.status])).toEqual([
			[unknown, 'not_in_history'],
			[done, 'completed'],
		]);
		expect(result.items[0]!.json.note).toMatch(/still queued or running, was deleted, or never ran/);
	});

	test('a failed job: its words, clipped, naming the node', async () => {
		const graph = txt2img();
		graph['4']!.inputs.ckpt_name = 'sd_xl_turbo_1.0_fp16.safetensors';
		const failed = await server.harness.runNode({
			type: 'hostCloud',
			parameters: { resource: 'workflow', operation: 'execute', workflow: JSON.stringify(graph) } as never,
			credentials: { hostCloudApi: server.credential },
			continueOnFail: true,
		});
		const promptId = failed.items[0]!.json.prompt_id as string;
		const result = await run('getHistory', { scope: 'promptIds', promptIds: promptId });
		const json = result.items[0]!.json as Record<string, any>;
		expect(json.status).toBe('failed');
		expect(json.error).toMatchObject({ node_id: '4', node_type: 'CheckpointLoaderSimple', exception_type: 'ModelDownloadError' });
		expect(json.error.message).toMatch(new RegExp(`^Job ${promptId} failed at node 4 \\(CheckpointLoaderSimple\\)`));
	});

	test.each([
		[{ scope: 'recent', maxItems: 0 }, /^Max Items must be a whole number from 1 to 500 \(got "0"\)/],
		[{ scope: 'recent', maxItems: 501 }, /^Max Items must be a whole number from 1 to 500/],
		[{ scope: 'recent', maxItems: 2.5 }, /^Max Items must be a whole number/],
		[{ scope: 'promptIds', promptIds: ' , ' }, /^Prompt IDs is required/],
		[{ scope: 'promptIds', promptIds: 'a/b' }, /^Prompt IDs holds "a\/b", which is not a prompt_id/],
		[{ scope: 'promptIds', promptIds: '..' }, /^Prompt IDs cannot be "\.\."/],
		[
			{ scope: 'promptIds', promptIds: Array.from({ length: 101 }, (_, i) => `id-${i}`).join(',') },
			/^Prompt IDs names 101 prompt_ids; at most 100/,
		],
	])('%j is refused before anything is sent', async (parameters, message) => {
		const result = await run('getHistory', parameters, { continueOnFail: true });
		expect(result.items[0]!.json.error).toMatch(message);
		expect(server.sim.requests).toEqual([]);
	});
});

describe('Delete History', () => {
	test('By Prompt ID: reads first, removes only the entries there, and says which were not', async () => {
		const [kept, dropped] = await jobsOnServer(2);
		const before = server.sim.requests.length;
		const unknown = '00000000-0000-4000-8000-000000000000';
		const result = await run('deleteHistory', { scope: 'promptIds', promptIds: [dropped, unknown] });
		expect(result.items[0]!.json).toEqual({ deleted: [dropped], not_in_history: [unknown] });
		expect([...area().history.keys()]).toEqual([kept]);
		// Each id read, then one delete naming only the entry that was there.
		expect(server.sim.requests.slice(before).map((request) => `${request.method} ${request.path} ${request.body}`)).toEqual([
			`GET /api/history/${dropped} `,
			`GET /api/history/${unknown} `,
			`POST /api/history ${JSON.stringify({ delete: [dropped] })}`,
		]);
	});

	test('By Prompt ID with none there: nothing is sent to delete', async () => {
		const result = await run('deleteHistory', { scope: 'promptIds', promptIds: 'gone-1 gone-2' });
		expect(result.items[0]!.json).toEqual({ deleted: [], not_in_history: ['gone-1', 'gone-2'] });
		expect(server.sim.requestsTo('POST', '/api/history')).toEqual([]);
	});

	test('All: clears the history and lists what it held', async () => {
		const ids = await jobsOnServer(2);
		const result = await run('deleteHistory', { scope: 'all' });
		expect(result.items[0]!.json).toEqual({ cleared: true, deleted: ids });
		expect(area().history.size).toBe(0);
	});

	test('a bad id is refused before anything is sent', async () => {
		const result = await run('deleteHistory', { scope: 'promptIds', promptIds: 'fine-id, not/one' }, { continueOnFail: true });
		expect(result.items[0]!.json.error).toMatch(/^Prompt IDs holds "not\/one", which is not a prompt_id/);
		expect(server.sim.requests).toEqual([]);
	});
});

describe('Continue On Fail and paired items', () => {
	test('each item its own answer: a refused item becomes an error item, the others run', async () => {
		const result = await run(
			'listModels',
			{ scope: 'folder', folder: '={{ $json.folder }}' },
			{ continueOnFail: true, items: [{ json: { folder: 'loras' } }, { json: { folder: '..' } }, { json: { folder: 'vae' } }] },
		);
		expect(result.items.map((item) => [item.pairedItem, item.json.folder ?? item.json.error])).toEqual([
			[{ item: 0 }, 'loras'],
			[{ item: 1 }, expect.stringMatching(/^Folder cannot be "\.\."/)],
			[{ item: 2 }, 'vae'],
		]);
	});
});

describe('as tools of an AI agent', () => {
	const toolNode = (setup: Setup, parameters: IDataObject) => ({
		name: 'Server Tool',
		type: 'hostCloud',
		parameters: { resource: 'server', ...parameters },
		credentials: { hostCloudApi: setup.credential },
	});

	test('System Stats and List Models read the server', async () => {
		const [stats, models] = await toolsFor(server.harness, toolNode(server, { operation: 'getSystemStats' }), {
			...toolNode(server, { operation: 'listModels', scope: 'folder', folder: 'loras' }),
			name: 'Models Tool',
		});
		expect(stats!.description).toMatch(/system stats/);
		expect(JSON.parse(await stats!.invoke({}))[0].system.comfyui_version).toBe('0.3.64');
		expect(JSON.parse(await models!.invoke({}))[0]).toEqual({
			folder: 'loras',
			models: expect.arrayContaining(['add_detail.safetensors']),
		});
		const asAgent = await runAsAgentTool(server.harness, toolNode(server, { operation: 'listModels', scope: 'allFolders' }), {});
		expect(asAgent.items[0]!.json.folders).toContain('checkpoints');
	});

	test.each([
		['freeMemory', /Free Memory unloads the models of the whole server/],
		['getHistory', /Get History lists every job the server ran/],
		['deleteHistory', /Delete History removes entries of jobs anyone started/],
	])('%s is no tool: refused before any request, saying why', async (operation, why) => {
		const [tool] = await toolsFor(server.harness, toolNode(server, { operation, scope: 'all' }));
		await expect(tool!.invoke({})).rejects.toThrow(/Not available to AI agents and MCP clients/);
		await expect(tool!.invoke({})).rejects.toThrow(why);
		expect(server.sim.requests).toEqual([]);
	});

	test('a reading tool on the cloud is refused by name, nothing sent', async () => {
		const [tool] = await toolsFor(cloud.harness, toolNode(cloud, { operation: 'getSystemStats' }));
		await expect(tool!.invoke({})).rejects.toThrow(/System Stats needs a self-hosted server/);
		expect(cloud.sim.requests).toEqual([]);
	});
});
