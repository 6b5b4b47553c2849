/**
 * What Execute sends and what it refuses to send, through n8n's engine against the simulator:
 * bad inputs fail before any request (the message names the field), inputs set without editing
 * JSON, partner nodes get the platform key, the service's own refusals (400 with node errors,
 * 401, 402, 429, 5xx) in plain words, output references of every shape (no subfolder, no type, odd
 * file names). Uploads into Load Image nodes: servers.test.ts, on both servers.
 */
import axios from 'axios';

import { readBinary } from '../../support/engine';
import { cloudForSuite, FAST_WAIT, type Graph, TINY_PNG as PNG, txt2img } from '../../support/cloud';
import { hostCloudApiCredential } from '../../support/credential-fixtures';

const BROKE_KEY = 'broke-api-key';
const LAPSED_KEY = 'lapsed-api-key';

const cloud = cloudForSuite({
	extraAccounts: [
		{ id: 'broke', apiKey: BROKE_KEY, credits: 0 },
		{ id: 'lapsed', apiKey: LAPSED_KEY, subscriptionActive: false },
	],
});

type Item = { json: Record<string, unknown>; binaryBase64?: Record<string, { data: string; fileName?: string; mimeType?: string }> };

function run(
	parameters: Record<string, unknown>,
	items: Item[] = [{ json: {} }],
	options: { continueOnFail?: boolean; credential?: string; typeVersion?: number } = {},
) {
	const { waitOptions, ...rest } = parameters as { waitOptions?: Record<string, unknown> };
	return cloud.harness.runNode(
		{
			type: 'hostCloud',
			typeVersion: options.typeVersion,
			parameters: {
				resource: 'workflow',
				operation: 'execute',
				workflow: JSON.stringify(txt2img()),
				...rest,
				waitOptions: { ...FAST_WAIT, ...waitOptions },
			},
			credentials: { hostCloudApi: options.credential ?? cloud.credential },
			continueOnFail: options.continueOnFail,
		},
		items,
	);
}

/** Nothing reached the service: no HTTP request and no WebSocket. */
function expectNothingSent(): void {
	expect(cloud.sim.requests).toHaveLength(0);
	expect(cloud.sim.cloud.wsHandshakes).toHaveLength(0);
}

describe('bad inputs never reach the service', () => {
	const cases: Array<[string, Record<string, unknown>, RegExp]> = [
		['text that is not JSON', { workflow: '{"3": {' }, /^Workflow is not valid JSON/],
		['an empty workflow', { workflow: '' }, /^Workflow is empty/],
		['a list instead of an object', { workflow: '[1, 2]' }, /^Workflow must be a JSON object keyed by node id/],
		['a node without class_type', { workflow: JSON.stringify({ '1': { inputs: {} } }) }, /^Workflow: node "1" has no class_type/],
		[
			'a link to a missing node',
			{ workflow: JSON.stringify({ ...txt2img(), '8': { class_type: 'VAEDecode', inputs: { samples: ['99', 0], vae: ['4', 2] } } }) },
			/^Workflow: input "samples" of node "8" \(VAEDecode\) links to node "99", which is not in the workflow/,
		],
		[
			'an override of a node that does not exist',
			{ inputOverrides: { values: [{ nodeId: '42', inputName: 'seed', value: '1' }] } },
			/^Set Inputs \(entry 1\): the workflow has no node "42"/,
		],
		[
			'an override of a connected input',
			{ inputOverrides: { values: [{ nodeId: '3', inputName: 'model', value: 'x' }] } },
			/^Set Inputs \(entry 1\): input "model" of node "3" \(KSampler\) is connected to node "4"/,
		],
		[
			'a number input given text',
			{ inputOverrides: { values: [{ nodeId: '3', inputName: 'steps', value: 'many' }] } },
			/^Set Inputs \(entry 1\): input "steps" of node "3" \(KSampler\) needs a number, and "many" is not a number/,
		],
		[
			'an input image for a node that is not a Load Image node',
			{ inputImages: { values: [{ binaryPropertyName: 'data', nodeId: '3' }] } },
			/^Input Images \(entry 1\): node "3" is a KSampler, not a Load Image node/,
		],
		['Max Concurrent Jobs 0', { additionalFields: { maxConcurrentJobs: 0 } }, /^Max Concurrent Jobs must be a whole number from 1 to 50/],
		['a negative Max Wait', { waitOptions: { maxWaitMinutes: -1 } }, /^Max Wait \(Minutes\) must be a number from 0 to 43200/],
		[
			'a Max Wait beyond 30 days',
			{ waitOptions: { maxWaitMinutes: 1e12 } },
			/^Max Wait \(Minutes\) must be a number from 0 to 43200 \(got "1000000000000"\)/,
		],
		[
			'a Silence Timeout beyond an hour',
			{ waitOptions: { silenceSeconds: 1e300 } },
			/^Silence Timeout \(Seconds\) must be a number from 0.01 to 3600/,
		],
		['a Poll Interval of 0', { waitOptions: { pollIntervalSeconds: 0 } }, /^Poll Interval \(Seconds\) must be a number from 0.01 to 3600/],
		[
			'an On Timeout choice outside the list',
			{ waitOptions: { onTimeout: 'later' } },
			/^On Timeout must be one of cancel, keep \(got "later"\)/,
		],
		['Extra Data that is not JSON', { additionalFields: { extraData: '{nope' } }, /^Extra Data \(JSON\) is not valid JSON/],
		[
			'Extra Data that is JSON but not an object',
			{ additionalFields: { extraData: '[1]' } },
			/^Extra Data \(JSON\) must be a JSON object \(got "\[1\]"\)/,
		],
		[
			'a Partner Nodes API Key choice outside the list',
			{ additionalFields: { partnerApiKey: 'sometimes' } },
			/^Partner Nodes API Key must be one of auto, always, never \(got "sometimes"\)/,
		],
	];
	test.each(cases)('%s', async (_name, parameters, message) => {
		const result = await run(parameters);
		expect(result.status).toBe('error');
		const error = result.error('Node')!;
		expect(error.message).toMatch(message);
		expectNothingSent();
	});

	test('a message about the JSON says how to export the API format', async () => {
		const result = await run({ workflow: '{"3": {' });
		expect(result.error('Node')?.description).toMatch(/Export \(API\)/);
		expectNothingSent();
	});

	test('an input image whose binary property is missing names the field and lists what the item has', async () => {
		const graph: Graph = {
			'1': { class_type: 'LoadImage', inputs: { image: 'placeholder.png' } },
			'2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'x' } },
		};
		const result = await run({ workflow: JSON.stringify(graph), inputImages: { values: [{ binaryPropertyName: 'photo', nodeId: '1' }] } }, [
			{ json: {}, binaryBase64: { data: { data: PNG.toString('base64'), fileName: 'cat.png', mimeType: 'image/png' } } },
		]);
		const error = result.error('Node')!;
		expect(error.message).toBe('Input Images (entry 1) → Input Binary Field: the input item has no binary property "photo"');
		expect(error.description).toMatch(/data/);
		expectNothingSent();
	});

	test('with Continue On Fail, a bad item fails alone and the good ones still run, paired in order', async () => {
		const result = await run(
			{ workflow: '={{ $json.workflow }}' },
			[
				{ json: { workflow: txt2img() } },
				{ json: { workflow: { '1': { inputs: {} } } } },
				{ json: { workflow: JSON.stringify(txt2img()) } },
			],
			{ continueOnFail: true },
		);
		expect(result.status).toBe('success');
		expect(result.items.map((item) => item.json.status ?? item.json.error)).toEqual([
			'completed',
			expect.stringMatching(/^Workflow: node "1" has no class_type/),
			'completed',
		]);
		expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(cloud.sim.requestsTo('POST', '/api/prompt')).toHaveLength(2);
	});
});

describe('what is sent', () => {
	test('"Set Inputs" changes values with the type the input holds; the workflow may come as an object', async () => {
		const { sim } = cloud;
		const result = await run(
			{
				workflow: '={{ $json.graph }}',
				inputOverrides: {
					values: [
						{ nodeId: '6', inputName: 'text', value: '={{ $json.prompt }}' },
						{ nodeId: '3', inputName: 'seed', value: '42' },
						{ nodeId: '3', inputName: 'steps', value: '={{ 12 }}' },
						{ nodeId: '5', inputName: 'batch_size', value: '2' },
					],
				},
			},
			[{ json: { graph: txt2img(), prompt: 'a red fox in the snow' } }],
		);
		expect(result.status).toBe('success');
		const job = sim.cloud.jobs.get(result.items[0]!.json.prompt_id as string) as unknown as { graph: Graph };
		expect(job.graph['6']!.inputs.text).toBe('a red fox in the snow');
		expect(job.graph['3']!.inputs.seed).toBe(42);
		expect(job.graph['3']!.inputs.steps).toBe(12);
		expect((result.items[0]!.json.images as unknown[]).length).toBe(2);
	});

	test('partner nodes get the platform key in extra_data; other workflows do not', async () => {
		const { sim } = cloud;
		const partner: Graph = {
			'1': { class_type: 'PartnerImageGenerate', inputs: { prompt: 'a castle', width: 1024, height: 1024, seed: 1 } },
			'2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'partner' } },
		};
		const withPartner = await run({ workflow: JSON.stringify(partner) });
		expect(withPartner.status).toBe('success');
		const partnerJob = sim.cloud.jobs.get(withPartner.items[0]!.json.prompt_id as string)!;
		expect(partnerJob.extraDataKeys).toContain('api_key_host_org');
		expect(partnerJob.status).toBe('completed');
		// The key itself never shows in the request log, the output or the run data.
		expect(JSON.stringify(sim.requests)).not.toContain(sim.apiKey);
		expect(JSON.stringify(withPartner.run.data)).not.toContain(sim.apiKey);

		const plain = await run({});
		expect(sim.cloud.jobs.get(plain.items[0]!.json.prompt_id as string)!.extraDataKeys).not.toContain('api_key_host_org');

		const never = await run({ workflow: JSON.stringify(partner), additionalFields: { partnerApiKey: 'never' } }, [{ json: {} }], {
			continueOnFail: true,
		});
		expect(never.items[0]!.json.error).toMatch(/the account balance is too low to pay for a partner node \(InsufficientFundsError/);
	});

	test('a partner node found by the fallback list needs no node definitions', async () => {
		const { sim } = cloud;
		const partner: Graph = {
			'1': { class_type: 'PartnerImageGenerate', inputs: { prompt: 'a castle', width: 1024, height: 1024, seed: 1 } },
			'2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'partner' } },
		};
		const result = await run({ workflow: JSON.stringify(partner) });
		expect(result.status).toBe('success');
		expect(sim.requestsTo('GET', '/api/object_info')).toHaveLength(0);
	});
});

describe('the service says no', () => {
	test('400: the service’s message and node errors, sent once', async () => {
		const graph = txt2img();
		graph['3']!.inputs.sampler_name = 'warp';
		const result = await run({ workflow: JSON.stringify(graph) });
		const error = result.error('Node')!;
		// The node, the input, the value given and the first allowed values with a count of the rest.
		expect(error.message).toBe(
			"The service rejected the request as invalid while submitting the workflow (HTTP 400): Prompt outputs failed validation: Node 3 (KSampler): input sampler_name: 'warp' is not in the list (allowed: 'euler', 'euler_ancestral', 'heun', 'dpm_2', 'dpmpp_2m' and 5 more)",
		);
		expect(cloud.sim.requestsTo('POST', '/api/prompt')).toHaveLength(1);
	});

	test('400 lists every node error', async () => {
		const graph = txt2img();
		graph['3']!.inputs.steps = 0;
		graph['5']!.inputs.width = 1;
		const result = await run({ workflow: JSON.stringify(graph) });
		const message = result.error('Node')!.message;
		expect(message).toContain(
			'Node 3 (KSampler): input steps: 0 is too small (allowed: 1 to 10000); Node 5 (EmptyLatentImage): input width: 1 is too small (allowed: 16 to 16384)',
		);
		expect(message.split('input steps')).toHaveLength(2);
		expect(message).not.toContain('also');
	});

	test("401 and 402 in plain words, not retried; an inactive subscription's 429 after the retry table's pauses", async () => {
		const { harness, sim } = cloud;
		const wrong = harness.addCredential('hostCloudApi', hostCloudApiCredential({ apiKey: 'wrong-key-0000', baseUrl: sim.baseUrl }));
		const broke = harness.addCredential('hostCloudApi', hostCloudApiCredential({ apiKey: BROKE_KEY, baseUrl: sim.baseUrl }));
		const lapsed = harness.addCredential('hostCloudApi', hostCloudApiCredential({ apiKey: LAPSED_KEY, baseUrl: sim.baseUrl }));
		const unauthorised = await run({}, [{ json: {} }], { credential: wrong });
		expect(unauthorised.error('Node')?.message).toMatch(/^The API key was rejected while submitting the workflow \(HTTP 401\)/);
		expect(JSON.stringify(unauthorised.run.data)).not.toContain('wrong-key-0000');
		const noCredits = await run({}, [{ json: {} }], { credential: broke });
		expect(noCredits.error('Node')?.message).toMatch(/^Insufficient credits while submitting the workflow \(HTTP 402\)/);
		expect(sim.requestsTo('POST', '/api/prompt')).toHaveLength(2);
		const inactive = await run({}, [{ json: {} }], { credential: lapsed });
		expect(inactive.error('Node')?.message).toMatch(/^The subscription is not active while submitting the workflow \(HTTP 429\)/);
		// A 429 without Retry-After is asked again as the retry table paces (it may be a busy service), then fails in today's words.
		expect(inactive.error('Node')?.description).toMatch(
			/^Running workflows needs an active subscription: .* The node waited [\d.]+ s in all for the service, which asked it to slow down\.$/,
		);
		expect(sim.requestsTo('POST', '/api/prompt').map((request) => request.status)).toEqual([401, 402, 429, 429, 429, 429]);
	});

	test('a 5xx on submit is not sent again (it could run twice) but looked for; a 5xx on a file address is retried', async () => {
		const { sim } = cloud;
		sim.faults.http5xx = { count: 1, pathPrefix: '/api/prompt' };
		const failed = await run({});
		expect(failed.error('Node')?.message).toMatch(
			/^The answer to the submit was lost \(The service had an internal error while submitting the workflow \(HTTP 503\): .*\), and no job with request id [0-9a-f-]{36} was found on the cloud$/,
		);
		expect(failed.error('Node')?.description).toMatch(/It was not sent again/);
		expect(sim.requestsTo('POST', '/api/prompt')).toHaveLength(1);
		// Two looks, and one more as the run ends.
		expect(sim.requestsTo('GET', '/api/queue')).toHaveLength(3);

		sim.reset();
		sim.faults.http5xx = { count: 1, pathPrefix: '/api/view' };
		const retried = await run({});
		expect(retried.status).toBe('success');
		expect(sim.requestsTo('GET', '/api/view').map((request) => request.status)).toEqual([503, 302]);
	});

	test('a redirect without a Location is a clear error naming the file and the job', async () => {
		cloud.sim.faults.redirectWithoutLocation = { count: 1 };
		const result = await run({}, [{ json: {} }], { continueOnFail: true });
		const json = result.items[0]!.json as Record<string, string>;
		expect(json.error).toMatch(
			new RegExp(
				`^The service answered a redirect \\(HTTP 302\\) without a Location header for output file "lighthouse_\\d+_\\.png" of job ${json.prompt_id ?? '[0-9a-f-]+'}`,
			),
		);
	});
});

describe('output file references of every shape', () => {
	const mediaGraph = (): Graph => ({
		...txt2img(),
		'10': { class_type: 'CreateVideo', inputs: { images: ['8', 0], fps: 24 } },
		'11': { class_type: 'SaveVideo', inputs: { video: ['10', 0], filename_prefix: 'video/clip', format: 'auto', codec: 'auto' } },
		'12': {
			class_type: 'VHS_VideoCombine',
			inputs: {
				images: ['8', 0],
				frame_rate: 8,
				loop_count: 0,
				filename_prefix: 'anim/loop',
				format: 'video/h264-mp4',
				pingpong: false,
				save_output: true,
			},
		},
		'13': { class_type: 'EmptyLatentAudio', inputs: { seconds: 5, batch_size: 1 } },
		'14': { class_type: 'VAEDecodeAudio', inputs: { samples: ['13', 0], vae: ['4', 2] } },
		'15': { class_type: 'SaveAudio', inputs: { audio: ['14', 0], filename_prefix: 'audio/song' } },
		'20': { class_type: 'PreviewImage', inputs: { images: ['8', 0] } },
	});

	test('missing subfolder and type get their defaults; videos, gifs, audio and previews are all listed and served', async () => {
		const { sim } = cloud;
		const result = await run({ workflow: JSON.stringify(mediaGraph()), downloadFiles: true });
		expect(result.status).toBe('success');
		const item = result.items[0]!;
		const json = item.json as Record<string, any>;
		// SaveVideo reports only a filename; SaveAudio no type.
		expect(json.videos).toEqual([
			expect.objectContaining({
				node_id: '11',
				output_key: 'video',
				subfolder: '',
				type: 'output',
				mime_type: 'video/mp4',
				binary_property: 'data_1',
			}),
			expect.objectContaining({
				node_id: '12',
				output_key: 'gifs',
				subfolder: 'anim',
				type: 'output',
				format: 'video/h264-mp4',
				binary_property: 'data_2',
			}),
		]);
		expect(json.audio).toEqual([expect.objectContaining({ node_id: '15', subfolder: 'audio', type: 'output', mime_type: 'audio/wav' })]);
		expect(json.images.map((image: { node_id: string; type: string }) => [image.node_id, image.type])).toEqual([
			['9', 'output'],
			['20', 'temp'],
		]);
		expect(json.files).toHaveLength(5);
		for (const file of json.files as Array<{ url: string; binary_property: string }>) {
			const served = await axios.get(file.url, { responseType: 'arraybuffer' });
			expect(served.status).toBe(200);
			expect((await readBinary(item.binary![file.binary_property]!)).equals(Buffer.from(served.data))).toBe(true);
		}
		// Every file in "data", "data_1"... in the order listed under files (versions 1 and 2 name them by kind: see files-convention.test.ts).
		expect(json.files.map((file: { binary_property: string }) => file.binary_property)).toEqual([
			'data',
			'data_1',
			'data_2',
			'data_3',
			'data_4',
		]);
		expect(item.binary!.data_1!.mimeType).toBe('video/mp4');
		expect(item.binary!.data_3!.mimeType).toBe('audio/wav');
		expect(sim.counters.storageCredentialAttempts).toBe(0);
	});

	test('a workflow saved with version 2 names the same files by kind: image_0, video_0, video_1, audio_0, image_1', async () => {
		const result = await run({ workflow: JSON.stringify(mediaGraph()), downloadFiles: true }, [{ json: {} }], { typeVersion: 2 });
		expect(result.status).toBe('success');
		const item = result.items[0]!;
		const files = item.json.files as Array<{ url: string; binary_property: string }>;
		expect(files.map((file) => file.binary_property)).toEqual(['image_0', 'video_0', 'video_1', 'audio_0', 'image_1']);
		expect(Object.keys(item.binary!).sort()).toEqual(['audio_0', 'image_0', 'image_1', 'video_0', 'video_1']);
		for (const file of files) {
			const served = await axios.get(file.url, { responseType: 'arraybuffer' });
			expect((await readBinary(item.binary![file.binary_property]!)).equals(Buffer.from(served.data))).toBe(true);
		}
	});

	test('file names with spaces and & are URL-encoded in the view query', async () => {
		const graph = txt2img();
		graph['9']!.inputs.filename_prefix = 'my pics/a&b c+d';
		const result = await run({ workflow: JSON.stringify(graph) });
		expect(result.status).toBe('success');
		const image = (result.items[0]!.json.images as Array<Record<string, string>>)[0]!;
		expect(image).toMatchObject({ subfolder: 'my pics', filename: expect.stringMatching(/^a&b c\+d_\d{5}_\.png$/) });
		expect(cloud.sim.requestsTo('GET', '/api/view')[0]!.query).toEqual({ filename: image.filename, subfolder: 'my pics', type: 'output' });
		expect((await axios.get(image.url!)).status).toBe(200);
	});
});

describe('names that every object already carries are names like any other', () => {
	const NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'];

	test.each(NAMES)('Set Inputs on node "%s" is a node the workflow does not have', async (name) => {
		const result = await run({ inputOverrides: { values: [{ nodeId: name, inputName: 'seed', value: '1' }] } });
		expect(result.error('Node')?.message).toBe(`Set Inputs (entry 1): the workflow has no node "${name}"`);
		expectNothingSent();
	});

	test.each(NAMES)('Input Images into node "%s" is a node the workflow does not have', async (name) => {
		const result = await run({ inputImages: { values: [{ nodeId: name, binaryPropertyName: 'data' }] } });
		expect(result.error('Node')?.message).toBe(`Input Images (entry 1): the workflow has no node "${name}"`);
		expectNothingSent();
	});

	test('Set Inputs sets an input named toString or hasOwnProperty on a real node, and it is sent as such', async () => {
		const result = await run({
			inputOverrides: {
				values: [
					{ nodeId: '3', inputName: 'toString', value: 'v0' },
					{ nodeId: '3', inputName: 'hasOwnProperty', value: 'v1' },
				],
			},
		});
		expect(result.status).toBe('success');
		const prompt = JSON.parse(cloud.sim.requestsTo('POST', '/api/prompt')[0]!.body).prompt as Graph;
		expect(prompt['3']!.inputs).toMatchObject({ toString: 'v0', hasOwnProperty: 'v1' });
	});

	test.each(['__proto__', 'constructor'])(
		'Set Inputs refuses an input named "%s", which n8n would leave out of the request',
		async (name) => {
			const result = await run({ inputOverrides: { values: [{ nodeId: '3', inputName: name, value: 'v' }] } });
			expect(result.error('Node')?.message).toBe(
				`Set Inputs (entry 1): an input cannot be named "${name}": n8n leaves such a name out of what it sends`,
			);
			expectNothingSent();
		},
	);
});

describe('values of another type from expressions or AI agents', () => {
	test('a number or true/false into a text input is sent as that text', async () => {
		const result = await run({ inputOverrides: { values: [{ nodeId: '6', inputName: 'text', value: '={{ 42 }}' }] } });
		expect(result.status).toBe('success');
		const prompt = JSON.parse(cloud.sim.requestsTo('POST', '/api/prompt')[0]!.body).prompt as Graph;
		expect(prompt['6']!.inputs.text).toBe('42');
	});

	test.each([
		[
			'a two-element list into a text input (it would be a link)',
			'6',
			'text',
			'={{ ["4", 0] }}',
			'needs text, and a list was given (["4",0])',
		],
		['an object into a number input', '3', 'steps', '={{ { "n": 30 } }}', 'needs a number, and an object was given ({"n":30})'],
		['true/false into a number input', '3', 'steps', '={{ true }}', 'needs a number, and a boolean was given (true)'],
	])('%s is refused by name, nothing sent', async (_what, nodeId, inputName, value, words) => {
		const result = await run({ inputOverrides: { values: [{ nodeId, inputName, value }] } });
		expect(result.error('Node')?.message).toMatch(
			new RegExp(`^Set Inputs \\(entry 1\\): input "${inputName}" of node "${nodeId}" \\(\\w+\\) `),
		);
		expect(result.error('Node')?.message).toContain(words);
		expectNothingSent();
	});
});
