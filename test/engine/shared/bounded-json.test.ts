/**
 * Every JSON from the service or pasted by the user is read within bounds of size and depth
 * (nodes/shared/transport/json-reader.ts): an answer, a socket message, a stream line or a notification
 * nested 100,000 deep, or larger than its bound, ends in words that name the bound, never in
 * "Maximum call stack size exceeded", and never as data. A socket message that cannot be read is a
 * gap (the outputs then come from the job record), and a preview frame that names no job goes to
 * none. Run through n8n's engine against hostile services on loopback.
 */
import type { ServerResponse } from 'node:http';

import type { IDataObject } from 'n8n-workflow';

import { JSON_LIMITS } from '../../../nodes/shared/transport/json-reader';
import { metadataPreviewFrame, previewFrame } from '../../../simulator/cloud/ws';
import { EngineHarness, readBinary } from '../../support/engine';
import { executeTxt2img, TINY_PNG, txt2img } from '../../support/cloud';
import { IMAGE_URL, useMediaEnv } from '../../support/media';
import { startWaitingExecution } from '../../support/waiting-execution';
import {
	answerMusic,
	musicChunkLines,
	musicLine,
	musicTakeAudio,
	musicTitleLine,
	startHostileCloud,
	startHostileService,
	startRecordingStorage,
	type HostileService,
	type MusicAnswer,
} from '../../support/hostile-service';
import { hostApiCredential, hostCloudApiCredential } from '../../support/credential-fixtures';

const DEEP = 100_000;
const MiB = 1024 * 1024;
/** A JSON list nested `depth` deep, as text. */
const deepText = (depth = DEEP) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
/** The same as a value, built without recursion (as n8n's body parser builds it). */
function deepValue(depth = DEEP): unknown {
	let value: unknown = [];
	for (let level = 1; level < depth; level++) value = [value];
	return value;
}
const OVERFLOW = /Maximum call stack|RangeError|TypeError|Cannot read properties/;
const TOO_DEEP = 'is nested more than 100 levels deep';

const harness = new EngineHarness();

// --- REST answers ---

describe('REST answers', () => {
	let next: { status: number; text: string } = { status: 200, text: '{}' };
	let service: HostileService;
	let cloud: string;
	let api: string;
	beforeAll(async () => {
		service = await startHostileService((_req, res: ServerResponse) => {
			res.writeHead(next.status, { 'Content-Type': 'application/json' });
			res.end(next.text);
		});
		cloud = harness.addCredential('hostCloudApi', hostCloudApiCredential({ apiKey: 'cloud-key-bounded-json-0123', baseUrl: service.url }));
		api = harness.addCredential('hostApi', hostApiCredential({ accessToken: 'access-token-bounded-json-0123', registryUrl: service.url }));
	});
	afterAll(async () => await service.close());

	const runCloud = (parameters: IDataObject) =>
		harness.runNode({ type: 'hostCloud', parameters: parameters as never, credentials: { hostCloudApi: cloud }, continueOnFail: true });

	it('a status 100,000 levels deep is refused in words, not a stack overflow', async () => {
		next = { status: 200, text: `{"status":"completed","x":${deepText()}}` };
		const result = await runCloud({ resource: 'workflow', operation: 'getStatus', promptId: 'p-1' });
		expect(result.items[0]!.json.status).toBeUndefined();
		expect(result.items[0]!.json.error).toBe(
			`The service's answer while reading the status of job p-1 ${TOO_DEEP}; nothing was read from it`,
		);
	});

	it('a media task status 100,000 levels deep alike', async () => {
		next = { status: 200, text: `{"data":{"status":"COMPLETED","task_id":"t","generated":[],"x":${deepText()}}}` };
		const result = await harness.runNode({
			type: 'hostMedia',
			parameters: { resource: 'image', operation: 'getTaskStatus', taskId: '0b6c8d9e-1f2a-4b3c-8d4e-5f6a7b8c9d0e' } as never,
			credentials: { hostApi: api },
			continueOnFail: true,
		});
		expect(String(result.items[0]!.json.error)).toMatch(
			/^The service's answer while checking upscale task .* is nested more than 100 levels deep/,
		);
		expect(result.items[0]!.json.status).toBeUndefined();
	});

	it('an error body 100,000 levels deep still gives the status in words', async () => {
		next = { status: 400, text: deepText() };
		const result = await runCloud({ resource: 'workflow', operation: 'getStatus', promptId: 'p-2' });
		const error = String(result.items[0]!.json.error);
		expect(error).toMatch(/^The service rejected the request as invalid while reading the status of job p-2 \(HTTP 400\)/);
		expect(error).not.toMatch(OVERFLOW);
	});

	it('an answer larger than its bound is refused, not read into an item', async () => {
		const bound = JSON_LIMITS.answer.maxChars;
		JSON_LIMITS.answer.maxChars = 1024 * 1024;
		try {
			next = { status: 200, text: JSON.stringify({ KSampler: { input: { required: {} }, padding: 'x'.repeat(2 * 1024 * 1024) } }) };
			const result = await runCloud({ resource: 'system', operation: 'getNodeDefinitions' });
			expect(result.items).toHaveLength(1);
			expect(result.items[0]!.json.error).toBe(
				"The service's answer while reading the node definitions is larger than 1 MiB; nothing was read from it",
			);
		} finally {
			JSON_LIMITS.answer.maxChars = bound;
		}
	});
});

// --- The job socket ---

describe('WebSocket messages and preview frames', () => {
	let storage: HostileService;
	let cloud: HostileService;
	let credential: string;
	let frames: (promptId: string) => Array<string | Buffer> = () => [];
	const file = (filename: string) => ({ images: [{ filename, subfolder: '', type: 'output' }] });
	beforeAll(async () => {
		storage = await startRecordingStorage();
		cloud = await startHostileCloud({
			storageUrl: storage.url,
			output: () => file('a.png'),
			frames: (promptId) => frames(promptId),
			recordOutputs: () => ({ '9': file('a.png'), '10': file('b.png') }),
		});
		credential = harness.addCredential(
			'hostCloudApi',
			hostCloudApiCredential({ apiKey: 'cloud-key-bounded-socket-0123', baseUrl: cloud.url }),
		);
	});
	afterAll(async () => {
		await cloud.close();
		await storage.close();
	});
	const execute = (additionalFields: IDataObject = {}) =>
		harness.runNode({
			type: 'hostCloud',
			parameters: executeTxt2img({ additionalFields }) as never,
			credentials: { hostCloudApi: credential },
		});

	const executedOfB = (promptId: string) =>
		`{"type":"executed","data":{"prompt_id":"${promptId}","node":"10","output":{"images":[{"filename":"b.png"`;
	it.each([
		['cut off', (promptId: string) => executedOfB(promptId)],
		['100,000 levels deep', (promptId: string) => `${executedOfB(promptId)},"subfolder":"","type":"output"}],"x":${deepText()}}}}`],
		[
			'larger than 16 MiB',
			(promptId: string) => `${executedOfB(promptId)},"subfolder":"","type":"output"}],"x":"${'x'.repeat(17 * MiB)}"}}}`,
		],
	])('a message that cannot be read (%s) is a gap: the outputs come from the job record, none is lost', async (_kind, message) => {
		frames = (promptId) => [message(promptId)];
		const result = await execute();
		expect(result.status).toBe('success');
		const json = result.items[0]!.json as { images: Array<{ filename: string }>; outputs_from_job_record?: boolean };
		expect(json.images.map((image) => image.filename).sort()).toEqual(['a.png', 'b.png']);
		expect(json.outputs_from_job_record).toBe(true);
	});

	it('a preview frame that names no job (type 1) is given to no job', async () => {
		frames = () => [previewFrame(2, TINY_PNG)];
		const result = await execute({ includePreview: true });
		expect(result.status).toBe('success');
		expect(result.items[0]!.binary?.preview).toBeUndefined();
	});

	it('a preview frame that names the job (type 4) is its preview', async () => {
		frames = (promptId) => [metadataPreviewFrame({ prompt_id: promptId, node_id: '9', image_type: 'image/png' }, TINY_PNG)];
		const result = await execute({ includePreview: true });
		expect(result.items[0]!.binary?.preview?.mimeType).toBe('image/png');
	});
});

// --- The music stream ---

describe('the music stream', () => {
	let service: HostileService;
	let credential: string;
	let answer: MusicAnswer = { lines: [], then: 'end' };
	beforeAll(async () => {
		service = await startHostileService((_req, res) => answerMusic(res, answer));
		credential = harness.addCredential('hostApi', hostApiCredential({ accessToken: 'music-token-bounded-0123', registryUrl: service.url }));
	});
	afterAll(async () => await service.close());
	const run = () =>
		harness.runNode({
			type: 'hostMedia',
			parameters: { resource: 'music', operation: 'generate', prompt: 'calm piano', waitOptions: { idleTimeoutSeconds: 2 } } as never,
			credentials: { hostApi: credential },
		});

	it('a line 100,000 levels deep is skipped and counted like any unreadable line; the whole take is passed on', async () => {
		const audio = musicTakeAudio(0);
		answer = {
			lines: [musicTitleLine(0), ...musicChunkLines(0, audio), `{"type":"progress","x":${deepText()}}\n`, musicLine({ type: 'complete' })],
			then: 'end',
		};
		const result = await run();
		expect(result.status).toBe('success');
		expect(result.items[0]!.json.malformed_lines).toBe(1);
		expect((await readBinary(result.items[0]!.binary!.data!)).equals(audio)).toBe(true);
	});

	it('a chunk line that cannot be read leaves a hole: the take is not passed on as whole', async () => {
		const chunks = musicChunkLines(0, musicTakeAudio(0));
		chunks[1] = chunks[1]!.slice(0, 200) + '\n';
		answer = { lines: [musicTitleLine(0), ...chunks, musicLine({ type: 'complete' })], then: 'end' };
		const result = await run();
		expect(result.status).toBe('error');
		expect(result.items).toHaveLength(0);
		expect(result.error('Node')?.message).toBe(
			'The music stream said it was complete, but the audio of take 1 has a hole: 12288 of the 16384 bytes its WAV header announces arrived',
		);
	});
});

// --- Notifications ---

describe('notifications', () => {
	it('Host Task Trigger refuses a notification 100,000 levels deep in words, and starts nothing', async () => {
		const workflow = harness.buildWorkflow({ nodes: [{ name: 'Trigger', type: 'hostTaskTrigger', parameters: {} }] });
		const call = await harness.callWebhook(workflow, 'Trigger', { body: { task_id: 'img-1', status: 'COMPLETED', extra: deepValue() } });
		expect(call.status).toBe(400);
		expect(call.body).toEqual({ error: 'invalid_notification', message: `The notification ${TOO_DEEP}` });
		expect(call.result.workflowData).toBeUndefined();
	});

	it('Host Task Trigger refuses a notification larger than 16 MiB in words', async () => {
		const workflow = harness.buildWorkflow({ nodes: [{ name: 'Trigger', type: 'hostTaskTrigger', parameters: {} }] });
		const call = await harness.callWebhook(workflow, 'Trigger', {
			body: { task_id: 'img-1', status: 'COMPLETED', extra: 'x'.repeat(17 * MiB) },
		});
		expect(call.status).toBe(400);
		expect(call.body).toEqual({ error: 'invalid_notification', message: 'The notification is larger than 16 MiB' });
	});

	describe('Wait for Notification', () => {
		const env = useMediaEnv({ notifyBackoffMs: 10 });
		it('refuses a notification 100,000 levels deep in words, and keeps waiting', async () => {
			await env.withSlowTasks(async () => {
				const world = await startWaitingExecution(env.harness, env.credential, {
					resource: 'image',
					operation: 'upscale',
					imageSource: 'url',
					imageUrl: IMAGE_URL,
					waitMode: 'webhook',
				});
				try {
					const taskId = String((await world.waiting).output('Node')[0]!.json.task_id);
					const call = await world.notify({ data: { task_id: taskId, status: 'COMPLETED', generated: [], x: deepValue() } });
					expect(call.status).toBe(400);
					expect(call.body).toEqual({ error: 'invalid_notification', message: `The notification ${TOO_DEEP}` });
					expect(call.result.workflowData).toBeUndefined();
				} finally {
					await world.receiver.close();
				}
			});
		});
	});
});

// --- Pasted JSON ---

describe('JSON pasted by the user', () => {
	let service: HostileService;
	let cloud: string;
	let api: string;
	beforeAll(async () => {
		service = await startHostileService((_req, res) => {
			res.writeHead(500);
			res.end();
		});
		cloud = harness.addCredential(
			'hostCloudApi',
			hostCloudApiCredential({ apiKey: 'cloud-key-bounded-pasted-0123', baseUrl: service.url }),
		);
		api = harness.addCredential(
			'hostApi',
			hostApiCredential({ accessToken: 'access-token-bounded-pasted-0123', registryUrl: service.url }),
		);
	});
	afterEach(() => {
		service.seen.length = 0;
	});
	afterAll(async () => await service.close());

	const submit = (more: IDataObject) => ({ resource: 'workflow', operation: 'submit', workflow: JSON.stringify(txt2img()), ...more });
	it.each([
		['Workflow', 'hostCloud', submit({ workflow: `{"3":{"class_type":"KSampler","inputs":{"seed":${deepText()}}}}` })],
		['Extra Data (JSON)', 'hostCloud', submit({ additionalFields: { extraData: `{"a":${deepText()}}` } })],
		['Workflow', 'hostCloud', submit({ workflow: `{"3":{"class_type":"SaveImage","inputs":{"note":"${'x'.repeat(17 * MiB)}"}}}` })],
		[
			'Frames (image_settings)',
			'hostMedia',
			{
				resource: 'video',
				operation: 'generateFromFrames',
				model: 'videoq2-turbo',
				startImageUrl: IMAGE_URL,
				framesInput: 'json',
				framesJson: deepText(),
			},
		],
	])('%s 100,000 levels deep or over 16 MiB is refused by name, before any request', async (field, type, parameters) => {
		const credentials: Record<string, string> = type === 'hostCloud' ? { hostCloudApi: cloud } : { hostApi: api };
		const result = await harness.runNode({ type, parameters: parameters as never, credentials, continueOnFail: true });
		expect(String(result.items[0]!.json.error)).toMatch(
			new RegExp(`^${field.replace(/[()]/g, '\\$&')} (${TOO_DEEP}|is larger than 16 MiB \\(it has 17 MiB\\))$`),
		);
		expect(service.seen).toHaveLength(0);
	});
});
