/**
 * What the package passes on of what a service says, beside the main flow (issue 34): the address
 * of an output file (the cloud's /api/view Location) reaches the item only as an absolute http(s)
 * URL written anew; the words a failed task or a status answer carries are clipped, whatever their
 * size; and names every object carries (`constructor`, `__proto__`) are read as names, never as
 * what the object inherits. Each case runs through n8n's engine against a loopback service.
 */
import type { ServerResponse } from 'node:http';

import type { IDataObject } from 'n8n-workflow';

import { startSimulator, type Simulator } from '../../../simulator/server';
import { EngineHarness } from '../../support/engine';
import { credentialFor, txt2img } from '../../support/cloud';
import { uiNode, uiTxt2img } from '../../support/ui-workflows';
import { upscaleFromUrl } from '../../support/media';
import {
	redirectTo,
	sendJson,
	startHostileCloud,
	startHostileService,
	startRecordingStorage,
	type HostileService,
	type SeenRequest,
} from '../../support/hostile-service';
import { hostApiCredential, hostCloudApiCredential } from '../../support/credential-fixtures';

const harness = new EngineHarness();
const MiB = 1024 * 1024;
const FLOOD = 'w'.repeat(2 * MiB);
/** No item carries more of the service's words than this. */
const ITEM_BOUND = 64 * 1024;
const UUID = '3f2b9c1e-8a4d-4f6b-9c2e-1a2b3c4d5e6f';

const IMAGE = { filename: 'out_00001_.png', subfolder: '', type: 'output' };

describe("the cloud's /api/view Location", () => {
	let storage: HostileService;
	let cloud: HostileService;
	let credential: string;
	let location = '';
	let output: () => Record<string, unknown> = () => ({ images: [IMAGE] });

	beforeAll(async () => {
		storage = await startRecordingStorage();
		cloud = await startHostileCloud({
			output: () => output(),
			storageUrl: storage.url,
			view: (_req: SeenRequest, res: ServerResponse) => redirectTo(res, location),
		});
		credential = harness.addCredential(
			'hostCloudApi',
			hostCloudApiCredential({ apiKey: 'cloud-key-addresses-0123456789', baseUrl: cloud.url }),
		);
	});
	afterEach(() => {
		output = () => ({ images: [IMAGE] });
	});
	afterAll(async () => {
		await cloud.close();
		await storage.close();
	});

	const execute = () =>
		harness.runNode({
			type: 'hostCloud',
			parameters: { resource: 'workflow', operation: 'execute', workflow: JSON.stringify(txt2img()), downloadFiles: false } as never,
			credentials: { hostCloudApi: credential },
			continueOnFail: true,
		});

	it.each([
		['javascript:', 'javascript:alert(document.cookie)'],
		['data:', 'data:text/html,<script>alert(1)</script>'],
		['a relative', '/files/out_00001_.png'],
		['no', 'not an address at all'],
	])('a Location with %s address fails the item in words, and the address is not passed on', async (_kind, given) => {
		location = given;
		const result = await execute();
		const json = result.items[0]!.json;
		expect(String(json.error)).toMatch(
			/^The service answered a redirect for output file "out_00001_\.png" of job hostile-\d+ whose address is not an absolute http\(s\) web address, so it is not passed on$/,
		);
		expect(JSON.stringify(json)).not.toContain(given);
	});

	it('a Location carrying markup is passed on written anew: no quote or angle bracket reaches the item', async () => {
		location = `${storage.url}/files/out.png?sig=1"><script>alert(1)</script>#"'<b>`;
		const result = await execute();
		const url = String((result.items[0]!.json.images as IDataObject[])[0]!.url);
		expect(url.startsWith(`${storage.url}/files/out.png?sig=1`)).toBe(true);
		expect(url).not.toMatch(/["'<>]/);
		expect(new URL(url).searchParams.get('sig')).toBe('1"><script>alert(1)</script>');
	});

	it('a file reference whose name is over 1024 characters is no file reference: not looked up, not passed on', async () => {
		location = `${storage.url}/files/out.png?sig=1`;
		const long = `${'n'.repeat(1025)}.png`;
		output = () => ({ images: [{ ...IMAGE, filename: long }] });
		const before = cloud.seen.filter((request) => request.url.startsWith('/api/view')).length;
		const json = (await execute()).items[0]!.json;
		expect(JSON.stringify(json)).not.toContain(long);
		expect(cloud.seen.filter((request) => request.url.startsWith('/api/view')).length).toBe(before);
	});

	it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])(
		'an output key named %s is read as a name: its files are listed, no raw error',
		async (key) => {
			location = `${storage.url}/files/out.png?sig=1`;
			// No extension: the key alone would say what kind of file it is.
			const file = { ...IMAGE, filename: 'out_00001_' };
			output = () => JSON.parse(`{"${key}": [${JSON.stringify(file)}]}`) as Record<string, unknown>;
			const result = await execute();
			const json = result.items[0]!.json;
			expect(json.error).toBeUndefined();
			expect((json.files as IDataObject[]).map((entry) => [entry.output_key, entry.kind])).toEqual([[key, 'file']]);
		},
	);
});

describe('words of a status answer', () => {
	let service: HostileService;
	let cloud: string;
	let api: string;
	let answer: (req: SeenRequest, res: ServerResponse) => void = (_req, res) => sendJson(res, 404, {});

	beforeAll(async () => {
		service = await startHostileService((req, res) => answer(req, res));
		cloud = harness.addCredential('hostCloudApi', hostCloudApiCredential({ apiKey: 'cloud-key-words-0123456789', baseUrl: service.url }));
		api = harness.addCredential('hostApi', hostApiCredential({ accessToken: 'access-token-words-0123', registryUrl: service.url }));
	});
	afterAll(async () => await service.close());

	const getStatus = () =>
		harness.runNode({
			type: 'hostCloud',
			parameters: { resource: 'workflow', operation: 'getStatus', promptId: 'job-1' } as never,
			credentials: { hostCloudApi: cloud },
			continueOnFail: true,
		});

	it('a Host Cloud status answer without a status, whose keys are 2 MiB long, fails with a short message', async () => {
		answer = (_req, res) => sendJson(res, 200, { [FLOOD]: 1, [`b${FLOOD}`]: 2 });
		const json = (await getStatus()).items[0]!.json;
		expect(String(json.error)).toMatch(/^The service's answer to reading the status of job job-1 has no status \(it held: w{40}… \[cut: /);
		expect(JSON.stringify(json).length).toBeLessThan(4096);
	});

	it('a status word of 2 MiB is kept as a word (clipped to 100 characters), and means "still running"', async () => {
		answer = (_req, res) => sendJson(res, 200, { status: FLOOD });
		const json = (await getStatus()).items[0]!.json;
		expect(json).toMatchObject({ state: 'running', finished: false });
		expect(json.status).toBe(`${'w'.repeat(100)}… [cut: 2097152 characters in all]`);
	});

	it("an error answer's words are clipped to 4000 characters in the message; past 64 KiB only a start of the body is read", async () => {
		answer = (_req, res) => sendJson(res, 400, { error: { type: 'bad_request', message: 'w'.repeat(10_000) } });
		const json = (await getStatus()).items[0]!.json;
		expect(String(json.error)).toMatch(/\(HTTP 400\): w{4000}… \[cut: 10000 characters in all\]$/);
		answer = (_req, res) => sendJson(res, 400, { error: { type: 'bad_request', message: FLOOD } });
		const flooded = (await getStatus()).items[0]!.json;
		// The body is read to 64 KiB: cut JSON is words, clipped at 500 characters.
		expect(String(flooded.error)).toMatch(/\(HTTP 400\): \{"error".{400,500}… \[cut: 65536 characters in all\]$/);
	});

	it('Get Node Definitions clips each text of a definition to 4000 characters', async () => {
		answer = (_req, res) =>
			sendJson(res, 200, { KSampler: { description: FLOOD, input: { required: { seed: ['INT', { tooltip: FLOOD }] } } } });
		const result = await harness.runNode({
			type: 'hostCloud',
			parameters: { resource: 'system', operation: 'getNodeDefinitions' } as never,
			credentials: { hostCloudApi: cloud },
			continueOnFail: true,
		});
		const json = result.items[0]!.json as IDataObject & { input: { required: { seed: [string, IDataObject] } } };
		const clipped = `${'w'.repeat(4000)}… [cut: 2097152 characters in all]`;
		expect(json.class_type).toBe('KSampler');
		expect(json.description).toBe(clipped);
		expect(json.input.required.seed[1].tooltip).toBe(clipped);
	});

	it.each(['constructor', '__proto__', 'toString'])(
		'the status word %s is a word the package does not know: still running',
		async (word) => {
			answer = (_req, res) => {
				res.writeHead(200, { 'Content-Type': 'application/json' });
				res.end(`{"status": "${word}"}`);
			};
			const json = (await getStatus()).items[0]!.json;
			expect(json).toEqual({ prompt_id: 'job-1', status: word, state: 'running', finished: false });
		},
	);

	it.each(['constructor', '__proto__', 'toString'])(
		'a Host Media status word %s reads as unknown, not as what every object carries',
		async (word) => {
			answer = (_req, res) => {
				res.writeHead(200, { 'Content-Type': 'application/json' });
				res.end(`{"data": {"task_id": "${UUID}", "status": "${word}"}}`);
			};
			const result = await harness.runNode({
				type: 'hostMedia',
				parameters: { resource: 'image', operation: 'getTaskStatus', taskType: 'image-upscaler', taskId: UUID } as never,
				credentials: { hostApi: api },
				continueOnFail: true,
			});
			expect(result.items[0]!.json).toMatchObject({ task_id: UUID, status: 'unknown', raw_status: word, final: false });
		},
	);

	it.each([
		['error', { data: { task_id: 't-1', status: 'FAILED', error: FLOOD } }],
		['err_code', { data: { task_id: 't-1', status: 'FAILED', err_code: FLOOD } }],
		['message', { data: { task_id: 't-1', status: 'FAILED', message: FLOOD } }],
	])("a failed Host Media task's %s of 2 MiB fails the item with a clipped reason", async (_field, body) => {
		answer = (req, res) => sendJson(res, 200, req.method === 'POST' ? { data: { task_id: 't-1', status: 'CREATED' } } : body);
		const result = await harness.runNode({
			type: 'hostMedia',
			parameters: upscaleFromUrl({ waitOptions: { pollIntervalSeconds: 0.01, maxWaitMinutes: 0.2 } }) as never,
			credentials: { hostApi: api },
			continueOnFail: true,
		});
		const json = result.items[0]!.json;
		expect(String(json.error)).toMatch(/^The upscale task t-1 failed: w{1000}… \[cut: 2097152 characters in all\]$/);
		expect(JSON.stringify(json).length).toBeLessThan(ITEM_BOUND);
	});
});

describe('registry answers as the spec describes its entities', () => {
	let service: HostileService;
	let api: string;
	let answer: unknown;
	beforeAll(async () => {
		service = await startHostileService((_req, res) => sendJson(res, 200, answer));
		api = harness.addCredential(
			'hostApi',
			hostApiCredential({ accessToken: 'access-token-entities-0123', registryUrl: service.url, publisherId: 'acme' }),
		);
	});
	afterAll(async () => await service.close());

	const update = () =>
		harness.runNode({
			type: 'hostRegistry',
			parameters: {
				resource: 'publisher',
				operation: 'update',
				publisher: { __rl: true, mode: 'id', value: 'acme' },
				updateFields: { name: 'Acme' },
			} as never,
			credentials: { hostApi: api },
			continueOnFail: true,
		});

	it.each([
		[{ id: { a: 1 }, name: 'Acme' }, 'id is missing or not text'],
		[{ name: 'Acme' }, 'id is missing or not text'],
		[{ id: 'acme', name: 42 }, 'name is not text'],
		[{ id: 'acme', status: 'constructor' }, "status is not one of the API's words (PublisherStatusActive, PublisherStatusBanned)"],
		[{ id: 'acme', members: 'everyone' }, 'members is not a list of objects'],
	])('a Publisher answer %j fails the item, naming the field', async (given, problem) => {
		answer = given;
		const json = (await update()).items[0]!.json;
		expect(json.error).toBe(`The registry's answer while updating publisher "acme" is not a Publisher as the API describes it: ${problem}`);
	});

	it('a Publisher answer with null where the registry has nothing, and a long description, passes with the text clipped', async () => {
		answer = { id: 'acme', name: 'Acme', logo: null, description: FLOOD, status: 'PublisherStatusActive' };
		const json = (await update()).items[0]!.json;
		expect(json.error).toBeUndefined();
		expect(json).toMatchObject({ id: 'acme', name: 'Acme', logo: null, status: 'PublisherStatusActive' });
		expect(String(json.description)).toMatch(/^w{4000}… \[cut: 2097152 characters in all\]$/);
	});
});

describe('a self-hosted server and names every object carries', () => {
	let sim: Simulator;
	let credential: string;
	beforeAll(async () => {
		sim = await startSimulator({ flavour: 'self-hosted' });
		credential = harness.addCredential('hostCloudApi', credentialFor(sim));
	});
	afterAll(async () => await sim.close());

	it.each(['constructor', 'toString'])(
		'a saved workflow with a node of type %s is refused by name, and nothing is submitted',
		async (type) => {
			const workflow = uiTxt2img();
			workflow.nodes.push(uiNode(30, type, { outputs: ['IMAGE'] }));
			const before = sim.requestsTo('POST', '/api/prompt').length;
			const result = await harness.runNode({
				type: 'hostCloud',
				parameters: { resource: 'workflow', operation: 'submit', workflow: JSON.stringify(workflow) } as never,
				credentials: { hostCloudApi: credential },
				continueOnFail: true,
			});
			expect(String(result.items[0]!.json.error)).toBe(
				`Workflow: the server does not know the node type of node 30 (${type}): it may be a custom node that is not installed there`,
			);
			expect(sim.requestsTo('POST', '/api/prompt').length).toBe(before);
		},
	);

	it.each(['getStatus', 'waitForCompletion'])('%s says the server does not know it, never "completed"', async (operation) => {
		const result = await harness.runNode({
			type: 'hostCloud',
			parameters: { resource: 'workflow', operation, promptId: '__proto__', waitOptions: { maxWaitMinutes: 0.05 } } as never,
			credentials: { hostCloudApi: credential },
			continueOnFail: true,
		});
		const json = result.items[0]!.json;
		expect(json.state).not.toBe('completed');
		expect(json.status).not.toBe('completed');
		expect(String(json.error)).toMatch(/__proto__/);
	});
});
