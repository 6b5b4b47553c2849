/**
 * Host Cloud → Server on the real upstream server, through n8n's engine: each operation as a user
 * runs it, against what the server really answers (its stats, its model folders, /free, its
 * history read and deleted).
 */
import { EngineHarness } from '../../harness/engine';
import { emptyImage, save } from '../../contract/scenarios';
import { drainQueue, realServer } from '../support/real-server';

const WAIT = { pollIntervalSeconds: 0.2, silenceSeconds: 15, maxWaitMinutes: 3 };

describe('Host Cloud → Server on the real upstream server (engine)', () => {
	const harness = new EngineHarness();
	let credential: string;

	beforeAll(() => {
		credential = harness.addCredential('hostCloudApi', { server: 'selfHosted', serverUrl: realServer().url, proxyHeaders: { values: [] } });
	});

	afterEach(async () => {
		await drainQueue(realServer().url);
	});

	const run = (operation: string, parameters: Record<string, unknown> = {}) =>
		harness.runNode({
			type: 'hostCloud',
			parameters: { resource: 'server', operation, ...parameters } as never,
			credentials: { hostCloudApi: credential },
			continueOnFail: true,
		});

	/** A model-free job the CPU server really runs; answers its prompt_id. */
	async function finishedJob(): Promise<string> {
		const graph = { '1': emptyImage(Math.floor(Math.random() * 0xffffff)), '2': save('1', 'n8n-server-controls') };
		const done = await harness.runNode({
			type: 'hostCloud',
			parameters: {
				resource: 'workflow',
				operation: 'execute',
				workflow: JSON.stringify(graph),
				downloadFiles: false,
				waitOptions: WAIT,
			} as never,
			credentials: { hostCloudApi: credential },
		});
		expect(done.items[0]!.json.status).toBe('completed');
		return done.items[0]!.json.prompt_id as string;
	}

	test('System Stats: the server’s version and devices', async () => {
		const result = await run('getSystemStats');
		expect(result.items[0]!.json).toMatchObject({ system: { comfyui_version: realServer().version } });
		expect((result.items[0]!.json.devices as unknown[]).length).toBeGreaterThan(0);
	});

	test('List Models: the folders, one folder’s files, and an unknown folder in words', async () => {
		const folders = await run('listModels', { scope: 'allFolders' });
		expect(folders.items[0]!.json.folders).toEqual(expect.arrayContaining(['checkpoints', 'loras']));
		const listed = (await (await fetch(`${realServer().url}/models/checkpoints`)).json()) as string[];
		const checkpoints = await run('listModels', { scope: 'folder', folder: 'checkpoints' });
		expect(checkpoints.items[0]!.json).toEqual({ folder: 'checkpoints', models: listed });
		const unknown = await run('listModels', { scope: 'folder', folder: 'no-such-folder' });
		expect(unknown.items[0]!.json.error).toMatch(/^Your server has no model folder "no-such-folder"/);
	});

	test('Free Memory: the server takes it (200, no body) and the item says what was asked', async () => {
		const result = await run('freeMemory', { unloadModels: true, freeMemory: true });
		expect(result.items[0]!.json).toEqual({ unload_models: true, free_memory: true, requested: true });
	});

	test('Get History and Delete History: a finished job listed with its file link, then removed and said so', async () => {
		const promptId = await finishedJob();
		const recent = await run('getHistory', { scope: 'recent', maxItems: 5 });
		const entry = recent.items.find((item) => item.json.prompt_id === promptId)!;
		expect(entry.json.status).toBe('completed');
		const image = (entry.json.images as Array<{ url: string }>)[0]!;
		expect((await fetch(image.url)).status).toBe(200);
		const unknown = '00000000-0000-4000-8000-000000000000';
		const byId = await run('getHistory', { scope: 'promptIds', promptIds: `${promptId}, ${unknown}` });
		expect(byId.items.map((item) => item.json.status)).toEqual(['completed', 'not_in_history']);

		const deleted = await run('deleteHistory', { scope: 'promptIds', promptIds: `${promptId} ${unknown}` });
		expect(deleted.items[0]!.json).toEqual({ deleted: [promptId], not_in_history: [unknown] });
		expect(await (await fetch(`${realServer().url}/history/${promptId}`)).json()).toEqual({});

		const other = await finishedJob();
		const cleared = await run('deleteHistory', { scope: 'all' });
		expect(cleared.items[0]!.json).toMatchObject({ cleared: true, deleted: expect.arrayContaining([other]) });
		expect(await (await fetch(`${realServer().url}/history`)).json()).toEqual({});
	}, 120_000);
});
