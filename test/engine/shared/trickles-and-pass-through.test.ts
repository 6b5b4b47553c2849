/**
 * Beside the main flow, found by an outside review of issue 34 and proved through n8n's engine
 * against a loopback hostile service:
 *
 * - a body that keeps trickling (one byte just inside the idle limit) ends at the read limit:
 *   success answers, error answers, and signed storage downloads (by their least pace);
 * - a video submit answer's pass-through fields (`model`, `created_at`…) reach the item clipped;
 * - the trigger keeps a notification's `body` with its texts clipped, and refuses one whose result
 *   addresses are not http(s);
 * - Queue → Get as a tool answers `output_node_ids` clipped;
 * - a music chunk whose Base64 is not Base64 is unreadable (counted), so the take fails.
 */
import type { ServerResponse } from 'node:http';

import { REQUEST_TIME_LIMIT } from '../../../nodes/shared/transport/transport';
import { EngineHarness, harnessInstanceId } from '../../support/engine';
import { registerToolTypes, runAsAgentTool } from '../../support/tools';
import { txt2img } from '../../support/cloud';
import { musicLine, sendJson, startHostileService, type HostileService, type SeenRequest } from '../../support/hostile-service';
import { upscaleFromUrl } from '../../support/media';
import { hostApiCredential, hostCloudApiCredential } from '../../support/credential-fixtures';

const harness = new EngineHarness();
const MiB = 1024 * 1024;
const FLOOD = 'w'.repeat(2 * MiB);
/** No item or tool answer carries more of the service's words than this (issue 34's oracle). */
const ITEM_BOUND = 64 * 1024;
const LIMIT_MS = 400;
const DEFAULTS = { ...REQUEST_TIME_LIMIT };

/** Answers held open, and trickle timers, ended after each test. */
const held: ServerResponse[] = [];
const timers: NodeJS.Timeout[] = [];

let answer: (req: SeenRequest, res: ServerResponse) => void = (_req, res) => sendJson(res, 404, {});
let service: HostileService;
let cloud: string;
let api: string;

/**
 * `status`, then `start`, then one byte of `byte` every half idle limit, for ever: the answer never
 * ends, so only the node's read limit can end the item (Jest's timeout is the hang guard; no test
 * here times the node, which a busy machine stretches).
 */
function trickle(res: ServerResponse, status: number, start: string | Buffer, byte: string | Buffer, type = 'application/json'): void {
	res.writeHead(status, { 'Content-Type': type });
	res.write(start);
	held.push(res);
	const timer = setInterval(() => {
		if (res.destroyed || res.writableEnded) return clearInterval(timer);
		res.write(byte);
	}, LIMIT_MS / 2);
	timers.push(timer);
}

beforeAll(async () => {
	service = await startHostileService((req, res) => answer(req, res));
	cloud = harness.addCredential('hostCloudApi', hostCloudApiCredential({ apiKey: 'cloud-key-outside-0123456789', baseUrl: service.url }));
	api = harness.addCredential('hostApi', hostApiCredential({ accessToken: 'access-token-outside-0123', registryUrl: service.url }));
	registerToolTypes(harness);
});

beforeEach(() => {
	service.seen.length = 0;
});

afterEach(() => {
	for (const timer of timers.splice(0)) clearInterval(timer);
	for (const res of held.splice(0)) res.destroy();
	Object.assign(REQUEST_TIME_LIMIT, DEFAULTS);
});

afterAll(async () => {
	await service.close();
});

describe('a body that trickles ends at the read limit', () => {
	// Short limits only here: the answers of 2 MiB below are read whole within the real ones, which a
	// busy machine's slow reading cannot outlast.
	beforeEach(() => {
		REQUEST_TIME_LIMIT.ms = LIMIT_MS;
		REQUEST_TIME_LIMIT.readMs = 3 * LIMIT_MS;
	});

	it('a successful answer trickled one byte at a time (Get Node Definitions) ends at the read limit', async () => {
		answer = (_req, res) => trickle(res, 200, '{"KSampler": {"description": "', 'x');
		const result = await harness.runNode({
			type: 'hostCloud',
			parameters: { resource: 'system', operation: 'getNodeDefinitions' } as never,
			credentials: { hostCloudApi: cloud },
			continueOnFail: true,
		});
		// Before, a body of 64 MiB sent a byte every 59 s was read for ~120 years.
		expect(String(result.items[0]!.json.error)).toMatch(/^The service sent nothing for .* while reading the node definitions/);
	}, 20_000);

	it('an error answer trickled one byte at a time (Host Cloud Submit, 400) ends at the read limit, with its status', async () => {
		answer = (_req, res) => trickle(res, 400, '{"error": {"type": "bad_request", "message": "', 'x');
		const result = await harness.runNode({
			type: 'hostCloud',
			parameters: { resource: 'workflow', operation: 'submit', workflow: JSON.stringify(txt2img()) } as never,
			credentials: { hostCloudApi: cloud },
			continueOnFail: true,
		});
		expect(String(result.items[0]!.json.error)).toMatch(/400/);
		expect(service.seen.filter((request) => request.method === 'POST')).toHaveLength(1);
	}, 20_000);

	it('a result file whose storage host trickles (Host Media upscale, Poll) ends by the least pace of a download', async () => {
		const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
		answer = (req, res) => {
			if (req.url.startsWith('/files/')) return trickle(res, 200, png, Buffer.from([0]), 'image/png');
			sendJson(res, 200, { data: { task_id: 'trickle-task-1', status: 'COMPLETED', generated: [`${service.url}/files/result.png`] } });
		};
		const result = await harness.runNode({
			type: 'hostMedia',
			parameters: upscaleFromUrl({ waitMode: 'poll', waitOptions: { pollIntervalSeconds: 0.01, maxWaitMinutes: 0.5 } }) as never,
			credentials: { hostApi: api },
			continueOnFail: true,
		});
		// Before, a download had no bound on its whole time: a host that never stopped sending held the item for ever.
		expect(String(result.items[0]!.json.error)).toMatch(/the storage host sent it too slowly \(\d+ bytes a second\)/);
	}, 20_000);
});

describe('service words that reach an item are clipped', () => {
	it("a video submit answer's pass-through fields (model, created_at) reach the item clipped", async () => {
		answer = (_req, res) =>
			sendJson(res, 200, {
				task_id: '900000000001',
				state: 'created',
				credits: 20,
				model: FLOOD,
				created_at: '<img src=x onerror=alert(1)>',
				resolution: { nested: [FLOOD] },
			});
		const result = await harness.runNode({
			type: 'hostMedia',
			parameters: {
				resource: 'video',
				operation: 'generateFromStartEndFrame',
				model: 'videoq3-pro',
				imageSource: 'url',
				imageUrl: 'https://images.example/a.png',
				prompt: 'a cat',
				waitMode: 'none',
			} as never,
			credentials: { hostApi: api },
			continueOnFail: true,
		});
		const json = result.items[0]!.json;
		expect(json.task_id).toBe('900000000001');
		expect(JSON.stringify(json).length).toBeLessThan(ITEM_BOUND);
	});

	it("Queue → Get as a tool answers an own job's output_node_ids clipped", async () => {
		answer = (req, res) => {
			if (req.url.split('?')[0] === '/api/queue')
				return sendJson(res, 200, {
					queue_running: [[1, 'own-job-1', {}, { n8n: { workflow_id: 'wf-harness', instance_id: harnessInstanceId() } }, [FLOOD]]],
					queue_pending: [],
				});
			sendJson(res, 404, {});
		};
		const result = await runAsAgentTool(
			harness,
			{
				name: 'Show Jobs',
				type: 'hostCloud',
				parameters: { resource: 'queue', operation: 'get' } as never,
				credentials: { hostCloudApi: cloud },
			},
			{},
		);
		const json = result.items[0]!.json;
		expect(json.running_count).toBe(1);
		expect(JSON.stringify(json).length).toBeLessThan(ITEM_BOUND);
	});
});

describe("the trigger's item and a notification's words and addresses", () => {
	const notification = {
		data: {
			task_id: 'trigger-task-1',
			status: 'COMPLETED',
			generated: ['javascript:alert(document.cookie)//.png'],
			message: FLOOD,
		},
	};
	const trigger = () => harness.buildWorkflow({ nodes: [{ name: 'Trigger', type: 'hostTaskTrigger', parameters: {} }] });

	it('2 MiB of text in a notification leave a small trigger item: its `body` keeps the texts clipped', async () => {
		const safe = { data: { ...notification.data, generated: ['https://files.example/result.png'] } };
		const call = await harness.callWebhook(trigger(), 'Trigger', { body: safe });
		const item = call.result.workflowData?.[0]?.[0];
		expect(item).toBeDefined();
		expect(JSON.stringify(item!.json).length).toBeLessThan(ITEM_BOUND);
		expect(String((item!.json.body as { data: { message: string } }).data.message)).toMatch(
			/^w{1000}… \[cut: 2097152 characters in all\]$/,
		);
	});

	it('a javascript: result address is refused (400): nothing starts, and no item carries it', async () => {
		const small = { data: { ...notification.data, message: 'failed?' } };
		const call = await harness.callWebhook(trigger(), 'Trigger', { body: small });
		expect(call.status).toBe(400);
		expect(call.body).toEqual({
			error: 'invalid_notification',
			message: "1 of the notification's result addresses is not an http(s) web address",
		});
		expect(call.result.workflowData).toBeUndefined();
	});
});

describe('music: a chunk whose Base64 is not Base64', () => {
	it('is unreadable, so the take (MP3, no declared length) fails as one that may have a hole', async () => {
		const mp3 = Buffer.concat([Buffer.from('ID3\x04\x00\x00\x00\x00\x00\x00', 'latin1'), Buffer.alloc(8 * 1024, 0x55)]);
		const lines = [
			musicLine({ type: 'title', title: 'Take 1', stream_index: 0 }),
			musicLine({ type: 'audio_chunk', stream_index: 0, data: mp3.subarray(0, 4096).toString('base64') }),
			// A chunk the service garbled: Node decodes it to nothing, without a word.
			musicLine({ type: 'audio_chunk', stream_index: 0, data: '@@@@'.repeat(1024) }),
			musicLine({ type: 'audio_chunk', stream_index: 0, data: mp3.subarray(4096).toString('base64') }),
			musicLine({ type: 'complete' }),
		];
		answer = (req, res) => {
			if (req.method !== 'POST') return sendJson(res, 404, {});
			res.writeHead(200, { 'Content-Type': 'application/x-ndjson' });
			res.end(lines.join(''));
		};
		const result = await harness.runNode({
			type: 'hostMedia',
			parameters: { resource: 'music', operation: 'generate', prompt: 'calm piano' } as never,
			credentials: { hostApi: api },
			continueOnFail: true,
		});
		const json = result.items[0]!.json;
		const passedAsWhole = json.error === undefined && json.audio_may_be_incomplete !== true;
		expect({ passedAsWhole, malformed_lines: json.malformed_lines, audio_chunks: json.audio_chunks }).toEqual(
			expect.objectContaining({ passedAsWhole: false }),
		);
	});
});
