/**
 * Structural sweep, part 2 (issue 27): what the service sends. fast-check draws hostile STRUCTURES
 * and NAMES for every surface the service speaks on: REST answers to every operation (names every
 * object carries as keys, a status or id of the wrong type, ids that cannot be a path segment,
 * nesting past any bound, lists for objects), WebSocket messages and binary preview frames of Host
 * Cloud's job socket (messages and frames that name another job, no job, or a name every object
 * carries), the music stream (lines of the wrong shape, a lost chunk, silence), and notifications
 * to Host Task Trigger and to a waiting execution. Run through n8n's engine against hostile
 * services on loopback.
 *
 * Oracle (test/support/hostile-structures.ts): the item ends within its bound; an error is in
 * words; no secret shows; no request carries a path segment that is not one; and
 * an answer that is not what the spec says never yields a success: an answer over
 * the bounds fails every operation, a status read without a readable status is no success, a job
 * gets its own outputs and no other, and a take with a hole is never passed on. On v2 (issue 45), a
 * job's answer about another job, outputs given as another job's, and links of other schemes
 * (test/support/v2-item-oracle.ts): an item shows only its own job's outputs and http(s) links. Replay a run with
 * BAD_INPUT_SEED (printed in the test names).
 */
import type { ServerResponse } from 'node:http';

import fc from 'fast-check';
import type { INodeExecutionData } from 'n8n-workflow';

import { metadataPreviewFrame, previewFrame } from '../../../simulator/cloud/ws';
import { EngineHarness, readBinary } from '../../support/engine';
import { executeTxt2img, TINY_PNG } from '../../support/cloud';
import * as hostile from '../../support/hostile-service';
import {
	BAD_SEGMENTS,
	OWN_NAMES,
	SEED,
	STRUCTURE_RUNS,
	STRUCTURE_TIMEOUT_MS,
	deepText,
	depth,
	judgeShown,
	ownName,
	recordStructureTally,
	violation,
	within,
} from '../../support/hostile-structures';
import { useMediaEnv } from '../../support/media';
import { operationsOf } from '../../support/node-parameters';
import { nodeDescription, sweepBase } from '../../support/sweep-operations';
import { startWaitingExecution } from '../../support/waiting-execution';
import { hostApiCredential, hostCloudApiCredential } from '../../support/credential-fixtures';
import { linksNotHttp, NOT_HTTP_LINKS, outputOwners, outputsOfAnotherJob } from '../../support/v2-item-oracle';

const CLOUD_KEY = 'structure-service-cloud-key-71b0';
const ACCESS_TOKEN = 'structure-service-token-2c9e';
const SECRETS = [CLOUD_KEY, ACCESS_TOKEN];

const harness = new EngineHarness();

afterAll(() => recordStructureTally('service'));

interface Outcome {
	error?: { message?: string; description?: string; name?: string };
	items: INodeExecutionData[];
	sent: Array<{ method: string; url: string }>;
}

/** The oracle every run of this file is held to; `success: false` when the answer was not what the spec says. */
function judge(outcome: Outcome, expect_: { success?: false } = {}): void {
	const itemErrors = outcome.items.map((item) => `${String(item.json.error ?? '')} ${String(item.json.errorDetails ?? '')}`);
	const words = [outcome.error?.message ?? '', outcome.error?.description ?? '', ...itemErrors].join(' ');
	judgeShown({ error: outcome.error, words, output: outcome.items.map((item) => item.json), sent: outcome.sent, secrets: SECRETS });
	// Only an answer that came can be wrongly taken (an operation may need no request at all).
	if (expect_.success === false && (outcome.sent.length > 0 || outcome.items.some((item) => item.json.stream_index !== undefined))) {
		const succeeded = outcome.error === undefined && outcome.items.some((item) => item.json.error === undefined);
		expect(violation('wrong_successes', succeeded) ? outcome.items.map((item) => item.json) : 'no success').toBe('no success');
	}
}

// --- REST answers ---

/** A value with the keys a status body has, hidden under names every object carries. */
const hidden = {
	status: 'completed',
	prompt_id: 'p-hidden',
	task_id: 't-hidden',
	state: 'success',
	generated: ['https://files.example/a.png'],
};
const wrongValue = fc.constantFrom<unknown>([], {}, ['completed'], { status: 'completed' }, 42, true, null);
const idValue = fc.oneof(ownName, fc.constantFrom(...BAD_SEGMENTS), wrongValue);

type Answer = { text: string; overBound: boolean; noStatus: boolean };
const answers: fc.Arbitrary<Answer> = fc.oneof(
	depth.map((levels) => ({
		text: `{"status":"completed","data":{"status":"COMPLETED","task_id":"t-1"},"x":${deepText(levels)}}`,
		overBound: true,
		noStatus: false,
	})),
	fc
		.record({
			names: fc.subarray(OWN_NAMES, { minLength: 1 }),
			id: idValue,
			status: fc.option(fc.oneof(wrongValue, ownName), { nil: undefined }),
		})
		.map(({ names, id, status }) => {
			const under = Object.fromEntries(names.map((name) => [name, hidden]));
			const body = {
				...under,
				...(status === undefined ? {} : { status, task_status: status }),
				prompt_id: id,
				task_id: id,
				data: { ...under, task_id: id },
			};
			return { text: JSON.stringify(body), overBound: false, noStatus: typeof status !== 'string' };
		}),
	fc
		.constantFrom(`[${JSON.stringify(hidden)}]`, JSON.stringify({ data: [hidden] }))
		.map((text) => ({ text, overBound: false, noStatus: true })),
);

/** Operations that read a status and report it: an answer without a readable one must not be reported as a fact. */
const STATUS_READS = new Set(['hostCloud workflow getStatus', 'hostMedia image getTaskStatus', 'hostMedia video getTaskStatus']);
const QUICK_WAIT = { maxWaitMinutes: 0.01, pollIntervalSeconds: 0.05, silenceSeconds: 0.05 };

describe(`structural sweep over REST answers (seed ${SEED}; replay with BAD_INPUT_SEED=${SEED})`, () => {
	let answer: Answer = { text: '{}', overBound: false, noStatus: true };
	let service: hostile.HostileService;
	let cloud = '';
	let api = '';
	beforeAll(async () => {
		service = await hostile.startHostileService(
			(_req, res: ServerResponse) => {
				res.writeHead(200, { 'Content-Type': 'application/json' });
				res.end(answer.text);
			},
			{ onSocket: (socket) => socket.close() },
		);
		cloud = harness.addCredential('hostCloudApi', hostCloudApiCredential({ apiKey: CLOUD_KEY, baseUrl: service.url }));
		api = harness.addCredential('hostApi', hostApiCredential({ accessToken: ACCESS_TOKEN, registryUrl: service.url, publisherId: 'acme' }));
	});
	afterAll(async () => await service.close());

	const OPERATIONS = ['hostCloud', 'hostMedia', 'hostRegistry'].flatMap((type) =>
		operationsOf(nodeDescription(harness, type)).map(([resource, operation]): [string, string, string] => [type, resource, operation]),
	);

	test.each(OPERATIONS)(
		'%s %s: %s',
		async (type, resource, operation) => {
			const base = { ...sweepBase(harness, type, resource, operation), ...(type === 'hostCloud' ? { waitOptions: QUICK_WAIT } : {}) };
			const statusRead = STATUS_READS.has(`${type} ${resource} ${operation}`);
			await fc.assert(
				fc.asyncProperty(answers, async (drawn) => {
					answer = drawn;
					service.seen.length = 0;
					const credentials: Record<string, string> = type === 'hostCloud' ? { hostCloudApi: cloud } : { hostApi: api };
					const result = await within(
						20_000,
						`${type} ${operation}`,
						harness.runNode({ type, parameters: base as never, credentials, continueOnFail: true }, [{ json: {} }]),
					);
					const outcome = { error: result.error('Node') as Outcome['error'], items: result.items, sent: [...service.seen] };
					judge(outcome, drawn.overBound || (statusRead && drawn.noStatus) ? { success: false } : {});
				}),
				{
					seed: SEED,
					numRuns: type === 'hostCloud' && /execute|waitForCompletion/.test(operation) ? 4 : STRUCTURE_RUNS / 2,
					endOnFailure: true,
				},
			);
		},
		STRUCTURE_TIMEOUT_MS,
	);
});

// --- The job socket ---

const file = (filename: string) => ({ images: [{ filename, subfolder: '', type: 'output' }] });
const OWN = '<own job>';
const jobName = fc.oneof(fc.constant(OWN), fc.constantFrom<unknown>('hostile-999', '', 5, [], null), ownName);
const nodeName = fc.oneof(fc.constantFrom<unknown>('10', '', 7, [], null), ownName);
/** An `executed` output, and whether it holds a file (under any key, a name every object carries included). */
const outputShape = fc.oneof(
	fc.constant({ output: file('extra.png') as unknown, files: true }),
	ownName.map((name) => ({ output: Object.fromEntries([[name, file('extra.png').images]]) as unknown, files: true })),
	fc.constantFrom<unknown>([], 'x', null, { images: 'x' }, { images: [{ filename: 42 }] }).map((output) => ({ output, files: false })),
);
interface Frame {
	frame: (promptId: string) => string | Buffer;
	/** Files this frame rightly adds to the job's outputs; whether it is a preview of the job. */
	adds: string[];
	preview: boolean;
}
const frames: fc.Arbitrary<Frame> = fc.oneof(
	fc
		.record({
			type: fc.oneof(fc.constantFrom('executed', 'executing', 'progress', 'status', 'execution_cached'), ownName),
			job: jobName,
			node: nodeName,
			output: outputShape,
		})
		.map(({ type, job, node, output }) => {
			const own = job === OWN;
			// Only an `executed` message of this job, naming a node, with files in its output, adds them.
			// Only an `executed` message of this job that names a node (a text or a number) adds its files.
			const names = own && type === 'executed' && ((typeof node === 'string' && node !== '') || typeof node === 'number');
			return {
				frame: (promptId: string) => JSON.stringify({ type, data: { prompt_id: own ? promptId : job, node, output: output.output } }),
				adds: names && output.files ? ['extra.png'] : [],
				preview: false,
			};
		}),
	fc.constantFrom<Frame>(
		{ frame: () => previewFrame(2, TINY_PNG), adds: [], preview: false },
		{ frame: () => metadataPreviewFrame({ prompt_id: 'hostile-999', node_id: '9' }, TINY_PNG), adds: [], preview: false },
		{ frame: () => metadataPreviewFrame({ prompt_id: '__proto__', node_id: 'constructor' }, TINY_PNG), adds: [], preview: false },
		{
			frame: (promptId) => metadataPreviewFrame({ prompt_id: promptId, node_id: '9', image_type: 'image/png' }, TINY_PNG),
			adds: [],
			preview: true,
		},
		{ frame: () => Buffer.from([0, 0, 0, 4, 0xff, 0xff, 0xff, 0xff, 1, 2]), adds: [], preview: false },
		{ frame: () => Buffer.from([0, 0, 0, 9]), adds: [], preview: false },
		{ frame: () => '{"type":"executed","data":{"prompt_id":', adds: [], preview: false },
	),
	depth.map((levels): Frame => ({
		frame: (promptId) => `{"type":"executed","data":{"prompt_id":"${promptId}","node":"10","output":${deepText(levels)}}}`,
		adds: [],
		preview: false,
	})),
);

describe(`structural sweep over WebSocket messages and preview frames (seed ${SEED})`, () => {
	let storage: hostile.HostileService;
	let cloud: hostile.HostileService;
	let credential = '';
	let drawn: Frame[] = [];
	beforeAll(async () => {
		storage = await hostile.startRecordingStorage();
		cloud = await hostile.startHostileCloud({
			storageUrl: storage.url,
			output: () => file('a.png'),
			frames: (promptId) => drawn.map((entry) => entry.frame(promptId)),
		});
		credential = harness.addCredential('hostCloudApi', hostCloudApiCredential({ apiKey: CLOUD_KEY, baseUrl: cloud.url }));
	});
	afterAll(async () => {
		await cloud.close();
		await storage.close();
	});

	test(
		'a job gets its own outputs and its own preview, nothing a message or frame does not name it for',
		async () => {
			await fc.assert(
				fc.asyncProperty(fc.array(frames, { minLength: 1, maxLength: 4 }), async (picked) => {
					drawn = picked;
					cloud.seen.length = 0;
					const result = await within(
						20_000,
						'execute',
						harness.runNode({
							type: 'hostCloud',
							parameters: executeTxt2img({
								waitOptions: { pollIntervalSeconds: 0.05, silenceSeconds: 5, maxWaitMinutes: 0.2 },
								additionalFields: { includePreview: true },
							}) as never,
							credentials: { hostCloudApi: credential },
							continueOnFail: true,
						}),
					);
					const outcome = { error: result.error('Node') as Outcome['error'], items: result.items, sent: [...cloud.seen] };
					judge(outcome);
					const json = result.items[0]!.json as { images?: Array<{ filename: string }>; outputs_from_job_record?: boolean; error?: string };
					if (json.error !== undefined) return;
					// The job record lists node 9's file only: outputs from it, or from the socket with what named this job.
					const expected = json.outputs_from_job_record ? ['a.png'] : ['a.png', ...new Set(picked.flatMap((entry) => entry.adds))];
					const got = (json.images ?? []).map((image) => image.filename);
					expect(violation('wrong_successes', JSON.stringify(got.sort()) !== JSON.stringify(expected.sort())) ? got : expected).toEqual(
						expected,
					);
					const previewed = result.items[0]!.binary?.preview !== undefined;
					expect(violation('wrong_successes', previewed && !picked.some((entry) => entry.preview)) ? 'preview of another job' : 'own').toBe(
						'own',
					);
				}),
				{ seed: SEED, numRuns: STRUCTURE_RUNS * 3, endOnFailure: true },
			);
		},
		STRUCTURE_TIMEOUT_MS,
	);
});

// --- v2 job answers (issue 45) ---

/** A job's id of the contract's form: the one the package asks about, or another one. */
const OWN_JOB = '00000000-0000-4000-8000-0000000000a1';
const OTHER_JOB = '00000000-0000-4000-8000-0000000000b2';
// Weighted so that about half the answers are a job's own, well formed: the others then differ in one or two places.
const v2Link = fc.oneof(
	{ arbitrary: fc.constant('https://files.example/out.png'), weight: 6 },
	{ arbitrary: fc.constantFrom(...NOT_HTTP_LINKS), weight: 2 },
	{ arbitrary: ownName, weight: 1 },
);
/** Whose an output says it is: this job's, another's, nobody's (null or absent: the job's answer says), or a name every object carries. */
const v2Owner = fc.oneof(
	{ arbitrary: fc.constantFrom<unknown>(OWN_JOB, null, undefined), weight: 6 },
	{ arbitrary: fc.constantFrom<unknown>(OTHER_JOB, 42), weight: 2 },
	{ arbitrary: ownName, weight: 1 },
);
const v2Output = fc.record({ owner: v2Owner, url: v2Link, id: fc.oneof(fc.uuid(), ownName) }).map(({ owner, url, id }) => ({
	node_id: '9',
	name: 'out.png',
	type: 'image',
	content_type: 'image/png',
	size_bytes: 68,
	id,
	hash: null,
	url,
	url_expires_at: '2026-12-03T00:00:00.000Z',
	...(owner === undefined ? {} : { job_id: owner }),
}));
/** A finished job's answer to GET /api/v2/jobs/{id}: about this job or another one, its outputs anyone's, its links of any scheme. */
const v2Answers = fc
	.record({
		id: fc.oneof(
			{ arbitrary: fc.constant<unknown>(OWN_JOB), weight: 6 },
			{ arbitrary: fc.constantFrom<unknown>(OTHER_JOB, 7), weight: 1 },
			{ arbitrary: ownName, weight: 1 },
		),
		status: fc.oneof({ arbitrary: fc.constant<unknown>('succeeded'), weight: 6 }, { arbitrary: ownName, weight: 1 }),
		outputs: fc.array(v2Output, { minLength: 1, maxLength: 2 }),
	})
	.map(({ id, status, outputs }) => ({ id, status, outputs, error: null, progress: null, queue_position: null }));

describe(`structural sweep over v2 job answers (seed ${SEED})`, () => {
	let answer: unknown = {};
	let served: string[] = [];
	let service: hostile.HostileService;
	let credential = '';
	beforeAll(async () => {
		service = await hostile.startHostileService((req, res: ServerResponse) => {
			const path = req.url.split('?')[0]!;
			const job = (status: string) => ({ id: OWN_JOB, status, outputs: [], error: null, progress: null, queue_position: null });
			// Its event stream is not served: the job is read, and the read gets the drawn answer.
			if (path.endsWith('/events')) return hostile.sendJson(res, 501, { error: { code: 'not_implemented', message: 'no streams' } });
			if (req.method === 'POST' && path === '/api/v2/jobs') return hostile.sendJson(res, 201, job('queued'));
			if (req.method === 'POST' && path.endsWith('/cancel')) return hostile.sendJson(res, 200, job('canceled'));
			const text = JSON.stringify(answer);
			served.push(text);
			res.writeHead(200, { 'Content-Type': 'application/json' });
			res.end(text);
		});
		credential = harness.addCredential('hostCloudV2Api', { apiKey: CLOUD_KEY, baseUrl: service.url });
	});
	afterAll(async () => await service.close());

	test.each(['execute', 'getStatus', 'waitForCompletion'])(
		"hostCloud workflow %s [v2]: an item shows only outputs given as its own job's, and only http(s) links",
		async (operation) => {
			const parameters = {
				...sweepBase(harness, 'hostCloud', 'workflow', operation),
				apiGeneration: 'v2',
				promptId: OWN_JOB,
				downloadFiles: false,
				waitOptions: QUICK_WAIT,
			};
			await fc.assert(
				fc.asyncProperty(v2Answers, async (drawn) => {
					answer = drawn;
					served = [];
					service.seen.length = 0;
					const result = await within(
						20_000,
						`v2 ${operation}`,
						harness.runNode({
							type: 'hostCloud',
							parameters: parameters as never,
							credentials: { hostCloudV2Api: credential },
							continueOnFail: true,
						}),
					);
					judge({ error: result.error('Node') as Outcome['error'], items: result.items, sent: [...service.seen] });
					process.stderr.write(`${operation} ${JSON.stringify(result.items.map((i) => i.json)).slice(0, 300)} ${service.seen.length}\n`);
					const broken = [...outputsOfAnotherJob(result.items, outputOwners(served)), ...linksNotHttp(result.items)];
					expect(violation('wrong_successes', broken.length > 0) ? broken : []).toEqual([]);
				}),
				{ seed: SEED, numRuns: STRUCTURE_RUNS, endOnFailure: true },
			);
		},
		STRUCTURE_TIMEOUT_MS,
	);
});

// --- The music stream ---

interface Stream {
	lines: string[];
	then: hostile.MusicAnswer['then'];
	/** The stream never completed: no take may pass. */
	holed: boolean;
}
const strayLine = fc.oneof(
	depth.map((levels) => `{"type":"progress","x":${deepText(levels)}}\n`),
	ownName.map((name) => `${JSON.stringify(Object.fromEntries([[name, { type: 'complete' }]]))}\n`),
	ownName.map((name) => hostile.musicLine({ type: name, stream_index: 0 })),
	fc
		.constantFrom<unknown>('0', '__proto__', -1, 1.5, [0], {}, null)
		.map((index) => hostile.musicLine({ type: 'audio_chunk', stream_index: index, data: 'AAAA' })),
	fc.constantFrom<unknown>(42, [1], { a: 1 }, null).map((data) => hostile.musicLine({ type: 'audio_chunk', stream_index: 0, data })),
	fc
		.constantFrom<unknown>({ toString: 'x' }, ['t'], 42)
		.map((title) => hostile.musicLine({ type: 'title', stream_index: 1, title, display_tags: title })),
	fc.constantFrom(
		'{"type":"audio_chunk","stream_index":0,"data":"UklG',
		'<html>502</html>',
		'{"type":"titles","titles":{"__proto__":[1]}}',
	),
);
const streams: fc.Arbitrary<Stream> = fc
	.record({
		stray: fc.array(fc.tuple(strayLine, fc.nat()), { maxLength: 3 }),
		lose: fc.option(fc.nat(), { nil: undefined }),
		end: fc.constantFrom<'complete' | 'cut' | 'stall'>('complete', 'complete', 'cut', 'stall'),
	})
	.map(({ stray, lose, end }) => {
		const takes = [0, 1].map((index) => [hostile.musicTitleLine(index), ...hostile.musicChunkLines(index, hostile.musicTakeAudio(index))]);
		const lines = takes.flat();
		// A stream that never completed passes no take; a take that lost a chunk must not pass as sent (checked per take).
		const holed = end !== 'complete';
		// A lost chunk: one of the audio lines arrives cut off, so it cannot be read.
		if (lose !== undefined) {
			const chunkAt = lines.map((line, at) => (line.includes('"audio_chunk"') ? at : -1)).filter((at) => at >= 0);
			const at = chunkAt[lose % chunkAt.length]!;
			lines[at] = `${lines[at]!.slice(0, 120)}\n`;
		}
		for (const [line, at] of stray) lines.splice(at % (lines.length + 1), 0, line);
		if (end === 'complete') lines.push(hostile.musicLine({ type: 'complete' }));
		return { lines, then: end === 'stall' ? 'stall' : 'end', holed };
	});

describe(`structural sweep over the music stream (seed ${SEED})`, () => {
	let service: hostile.HostileService;
	let credential = '';
	let stream: Stream = { lines: [], then: 'end', holed: true };
	beforeAll(async () => {
		service = await hostile.startHostileService((_req, res) => hostile.answerMusic(res, { lines: stream.lines, then: stream.then }));
		credential = harness.addCredential('hostApi', hostApiCredential({ accessToken: ACCESS_TOKEN, registryUrl: service.url }));
	});
	afterAll(async () => await service.close());

	test(
		'a take is passed on only whole, with exactly the audio sent for it',
		async () => {
			await fc.assert(
				fc.asyncProperty(streams, async (drawn) => {
					stream = drawn;
					const result = await within(
						20_000,
						'music',
						harness.runNode({
							type: 'hostMedia',
							parameters: {
								resource: 'music',
								operation: 'generate',
								prompt: 'calm piano',
								waitOptions: { idleTimeoutSeconds: 0.3 },
							} as never,
							credentials: { hostApi: credential },
							continueOnFail: true,
						}),
					);
					const outcome = { error: result.error('Node') as Outcome['error'], items: result.items, sent: [] };
					// No take that may have a hole passes, marked or not (Accept Incomplete Takes is off).
					judge(outcome, drawn.holed ? { success: false } : {});
					for (const item of result.items) {
						if (item.json.error !== undefined || !item.binary?.data) continue;
						const index = Number(item.json.stream_index);
						const whole = (await readBinary(item.binary.data)).equals(hostile.musicTakeAudio(index));
						expect(violation('wrong_successes', !whole) ? `take ${index} not as sent` : 'as sent').toBe('as sent');
					}
				}),
				{ seed: SEED, numRuns: STRUCTURE_RUNS * 3, endOnFailure: true },
			);
		},
		STRUCTURE_TIMEOUT_MS,
	);
});

// --- Notifications ---

const notificationBodies: fc.Arbitrary<unknown> = fc.oneof(
	fc.record({ task_id: idValue, status: fc.oneof(ownName, wrongValue, fc.constant('COMPLETED')) }),
	fc.record({ data: fc.record({ task_id: idValue, status: fc.oneof(ownName, wrongValue, fc.constant('COMPLETED')) }) }),
	ownName.map((name) => JSON.parse(JSON.stringify(Object.fromEntries([[name, { task_id: 't-1', status: 'COMPLETED' }]]))) as unknown),
	depth.map((levels) => JSON.parse(`{"task_id":"t-1","status":"COMPLETED","x":${deepText(Math.min(levels, 5_000))}}`) as unknown),
	fc.constantFrom<unknown>([], 'text', 42, null, [{ task_id: 't-1', status: 'COMPLETED' }]),
);

describe(`structural sweep over notifications (seed ${SEED})`, () => {
	const env = useMediaEnv({ notifyBackoffMs: 10 });

	test(
		'Wait for Notification: a resume call of any shape is answered in words and resumes nothing the service does not confirm',
		async () => {
			await env.withSlowTasks(async () => {
				const world = await startWaitingExecution(env.harness, env.credential, {
					resource: 'image',
					operation: 'upscale',
					imageSource: 'url',
					imageUrl: 'https://images.example.com/photo.png',
					waitMode: 'webhook',
				});
				try {
					const taskId = String((await world.waiting).output('Node')[0]!.json.task_id);
					const bodies = fc.oneof(
						notificationBodies,
						fc
							.oneof(ownName, wrongValue, fc.constant('COMPLETED'))
							.map((status) => ({ data: { task_id: taskId, status, generated: ['https://x/a.png'] } })),
					);
					await fc.assert(
						fc.asyncProperty(bodies, async (body) => {
							env.sim.requests.length = 0;
							const call = await within(10_000, 'resume call', world.notify(body));
							const said = JSON.stringify(call.body ?? '');
							judge({
								items: [{ json: { error: said } }],
								sent: env.sim.requests.map((request) => ({ method: request.method, url: request.path })),
							});
							expect(call.status).toBeLessThan(500);
							// The task is still running on the service: nothing may resume the execution.
							expect(violation('wrong_successes', call.result.workflowData !== undefined) ? 'resumed' : 'waiting').toBe('waiting');
						}),
						{ seed: SEED, numRuns: STRUCTURE_RUNS * 2, endOnFailure: true },
					);
				} finally {
					await world.receiver.close();
				}
			});
		},
		STRUCTURE_TIMEOUT_MS,
	);

	test(
		'Host Task Trigger: a notification of any shape is answered in words; only a task id and status in words start a run',
		async () => {
			const workflow = harness.buildWorkflow({ nodes: [{ name: 'Trigger', type: 'hostTaskTrigger', parameters: { events: 'all' } }] });
			await fc.assert(
				fc.asyncProperty(notificationBodies, async (body) => {
					const call = await within(10_000, 'notification', harness.callWebhook(workflow, 'Trigger', { body }));
					const items = (call.result.workflowData?.[0] ?? []) as INodeExecutionData[];
					judge({ items, sent: [] });
					expect(call.status).toBeLessThan(500);
					for (const item of items) {
						const ok = typeof item.json.task_id === 'string' && typeof item.json.raw_status === 'string';
						expect(violation('wrong_successes', !ok) ? item.json : 'task in words').toBe('task in words');
					}
				}),
				{ seed: SEED, numRuns: STRUCTURE_RUNS * 3, endOnFailure: true },
			);
		},
		STRUCTURE_TIMEOUT_MS,
	);
});
