/**
 * Answers that start and then stall, beside the successful answers the time limit always covered:
 * an error answer (4xx, or a 5xx that is not retried) whose body stops half-way, a signed storage
 * host that takes the archive and never answers, a read that stays silent through its retries.
 * Each ends within the stated bounds, in words, and the item says what the status said.
 */
import type { ServerResponse } from 'node:http';

import { RETRY_DELAYS_MS } from '../../../nodes/shared/transport/retry';
import { REQUEST_TIME_LIMIT } from '../../../nodes/shared/transport/transport';
import { EngineHarness } from '../../support/engine';
import { txt2img } from '../../support/cloud';
import { sendJson, startHostileService, type HostileService, type SeenRequest } from '../../support/hostile-service';
import { archiveItem, locator } from '../../support/registry-node';
import { startWaitingExecution } from '../../support/waiting-execution';
import { upscaleFromUrl } from '../../support/media';
import { hostApiCredential, hostCloudApiCredential } from '../../support/credential-fixtures';

const harness = new EngineHarness();
/** Answers held open without an end, closed after each test. */
const held: ServerResponse[] = [];
let answer: (req: SeenRequest, res: ServerResponse) => void = (_req, res) => sendJson(res, 404, {});
let service: HostileService;
let storage: HostileService;
let cloud: string;
let api: string;

const LIMIT_MS = 400;
const DEFAULTS = { ...REQUEST_TIME_LIMIT };

/** A status and the first half of a JSON body, then nothing more. */
function stall(res: ServerResponse, status: number, start = '{"error": {"type": "bad_request", "message": "refu'): void {
	res.writeHead(status, { 'Content-Type': 'application/json' });
	res.write(start);
	held.push(res);
}

beforeAll(async () => {
	service = await startHostileService((req, res) => answer(req, res));
	// A storage host that reads the whole upload and then never answers.
	storage = await startHostileService((_req, res) => held.push(res));
	cloud = harness.addCredential('hostCloudApi', hostCloudApiCredential({ apiKey: 'cloud-key-stalled-0123456789', baseUrl: service.url }));
	api = harness.addCredential(
		'hostApi',
		hostApiCredential({
			accessToken: 'access-token-stalled-0123',
			registryUrl: service.url,
			publisherId: 'acme',
			publishingToken: 'publishing-token-stalled-0123',
		}),
	);
});

beforeEach(() => {
	REQUEST_TIME_LIMIT.ms = LIMIT_MS;
	REQUEST_TIME_LIMIT.readMs = 3 * LIMIT_MS;
	service.seen.length = 0;
	storage.seen.length = 0;
});

afterEach(() => {
	for (const res of held.splice(0)) res.destroy();
	Object.assign(REQUEST_TIME_LIMIT, DEFAULTS);
});

afterAll(async () => {
	await service.close();
	await storage.close();
});

// No test here times the node: a busy machine stretches any time. A stalled answer is held for
// ever, so only the node's own limit can end the item (Jest's timeout is the hang guard), and the
// bound on retries is counted in requests.

describe('an error answer whose body stalls ends with its status', () => {
	it('Host Cloud Submit: a 400 with half a body, then silence, fails the item in words within the limit', async () => {
		answer = (_req, res) => stall(res, 400);
		const result = await harness.runNode({
			type: 'hostCloud',
			parameters: { resource: 'workflow', operation: 'submit', workflow: JSON.stringify(txt2img()) } as never,
			credentials: { hostCloudApi: cloud },
			continueOnFail: true,
		});
		expect(String(result.items[0]!.json.error)).toMatch(/^The service refused the request .*\(400\)|400/);
	});

	it('Host Media upscale: a 500 that is not retried (a submit), body stalled, fails the item within the limit', async () => {
		answer = (_req, res) => stall(res, 500);
		const result = await harness.runNode({
			type: 'hostMedia',
			parameters: upscaleFromUrl({ waitMode: 'none' }) as never,
			credentials: { hostApi: api },
			continueOnFail: true,
		});
		expect(String(result.items[0]!.json.error)).toMatch(/500/);
		expect(service.seen.filter((request) => request.method === 'POST')).toHaveLength(1);
	});

	it("the resume webhook's status read: a 400 whose body stalls answers the notification within the limit", async () => {
		answer = (req, res) => {
			if (req.method === 'POST') return sendJson(res, 200, { data: { task_id: 'stall-task-1', status: 'CREATED' } });
			stall(res, 400);
		};
		const world = await startWaitingExecution(harness, api, upscaleFromUrl({ waitMode: 'webhook' }));
		try {
			await world.waiting;
			const call = await world.notify({ data: { task_id: 'stall-task-1', status: 'COMPLETED', generated: [] } });
			expect(service.seen.some((request) => request.method === 'GET' && request.url.includes('stall-task-1'))).toBe(true);
			expect(call.status).toBeLessThan(500);
		} finally {
			await world.receiver.close();
		}
	});
});

/** Host Registry publish of one archive, with `credential`; the version's answer comes from `answer`. */
const publishWith = (credential: string) =>
	harness.runNode(
		{
			type: 'hostRegistry',
			parameters: {
				resource: 'nodeVersion',
				operation: 'publish',
				publisher: locator('acme'),
				node: locator('my-node', 'id'),
				version: '1.0.0',
			} as never,
			credentials: { hostApi: credential },
			continueOnFail: true,
		},
		[archiveItem()],
	);
const publish = () => publishWith(api);

describe('signed storage has the same limit', () => {
	it('Publish: a storage host that takes the archive and never answers fails the upload, saying so, within its tries', async () => {
		REQUEST_TIME_LIMIT.ms = 1000;
		REQUEST_TIME_LIMIT.readMs = 3000;
		answer = (_req, res) =>
			sendJson(res, 201, { node_version: { id: 'v-1', version: '1.0.0' }, signedUrl: `${storage.url}/o/archive.zip?signature=abc` });
		const result = await publish();
		expect(String(result.items[0]!.json.error)).toBe(
			'Version 1.0.0 of node "my-node" was created (version ID v-1), but its archive was not uploaded: the storage host sent nothing for 1 second',
		);
		// A second try fits the read limit (3 s: 1 s of silence, a pause of 0.5 s, 1 s more); a third would not.
		expect(storage.seen.map((request) => request.method)).toEqual(['PUT', 'PUT']);
	}, 20_000);

	it("Publish: a storage host's error page of 2 MiB is read only in part, and the reason stays short", async () => {
		const big = await startHostileService((_req, res) => {
			res.writeHead(403, { 'Content-Type': 'application/xml' });
			res.end(`<Error><Message>${'Request has expired. '.repeat(100_000)}</Message></Error>`);
		});
		try {
			answer = (_req, res) =>
				sendJson(res, 201, { node_version: { id: 'v-1', version: '1.0.0' }, signedUrl: `${big.url}/o/archive.zip?signature=abc` });
			const result = await publish();
			expect(String(result.items[0]!.json.error)).toMatch(
				/^Version 1\.0\.0 .* the storage host answered HTTP 403 \(Request has expired\. Request/,
			);
			expect(JSON.stringify(result.items[0]!.json).length).toBeLessThan(4096);
		} finally {
			await big.close();
		}
	});
});

describe('a read with all its retries ends within its read limit', () => {
	it('a silent node definitions read stops retrying at the read limit (3 x the idle limit), not after 4 full tries', async () => {
		REQUEST_TIME_LIMIT.ms = 1000;
		REQUEST_TIME_LIMIT.readMs = 3000;
		answer = (_req, res) => held.push(res);
		const result = await harness.runNode({
			type: 'hostCloud',
			parameters: { resource: 'system', operation: 'getNodeDefinitions' } as never,
			credentials: { hostCloudApi: cloud },
			continueOnFail: true,
		});
		expect(result.items[0]!.json.error).toBe(
			'The service sent nothing for 1 second while reading the node definitions. The service may be busy: try again later.',
		);
		// 1 s of silence, a pause of 0.5 s, 1 s more: a third try would not fit the 3 s, four full tries
		// would be 4 requests. (A busy machine may leave no room for the second: one is not a failure.)
		expect(service.seen.length).toBeGreaterThanOrEqual(1);
		expect(service.seen.length).toBeLessThanOrEqual(2);
	}, 20_000);

	it('no retry starts once the read limit is spent: whether one fits is asked when the last try failed', async () => {
		// Short pauses (as the fault replay has them): the third try begins with time to spare and ends at the deadline.
		const pauses = [...RETRY_DELAYS_MS];
		(RETRY_DELAYS_MS as unknown as number[]).splice(0, pauses.length, ...pauses.map((pause) => pause / 100));
		let arrived = 0;
		answer = (_req, res) => {
			arrived++;
			held.push(res);
		};
		try {
			const result = await harness.runNode({
				type: 'hostCloud',
				parameters: { resource: 'system', operation: 'getNodeDefinitions' } as never,
				credentials: { hostCloudApi: cloud },
				continueOnFail: true,
			});
			expect(result.items[0]!.json.error).toMatch(/^The service sent nothing for 0 seconds while reading the node definitions/);
		} finally {
			(RETRY_DELAYS_MS as unknown as number[]).splice(0, pauses.length, ...pauses);
		}
		// Three tries of 400 ms fill the read limit (1200 ms); a fourth would wait in silence past it.
		// (A busy machine may leave no room for the third, never for a fourth.)
		expect(arrived).toBeGreaterThanOrEqual(2);
		expect(arrived).toBeLessThanOrEqual(3);
	});
});

describe('an error answer is read to 64 KiB at most', () => {
	it('a 400 that sends 100 KiB and then holds the connection fails at once with its status, not after the idle limit', async () => {
		// Limits far beyond the test's own: only reading stopping at the bound can end the item in time.
		REQUEST_TIME_LIMIT.ms = 10 * 60_000;
		REQUEST_TIME_LIMIT.readMs = 30 * 60_000;
		answer = (_req, res) => stall(res, 400, `{"error": {"message": "${'e'.repeat(100 * 1024)}`);
		const result = await harness.runNode({
			type: 'hostCloud',
			parameters: { resource: 'workflow', operation: 'getStatus', promptId: 'job-1' } as never,
			credentials: { hostCloudApi: cloud },
			continueOnFail: true,
		});
		// Reading stopped at the bound: the open connection's silence was never waited for.
		expect(String(result.items[0]!.json.error)).toMatch(/\(HTTP 400\)/);
		expect(JSON.stringify(result.items[0]!.json).length).toBeLessThan(4096);
	}, 20_000);
});

describe("a storage host's error page is read to 64 KiB at most", () => {
	it('Publish: a 403 page that sends 100 KiB and then holds the connection fails the upload with its status', async () => {
		// Limits far beyond the test's own: only reading stopping at the bound can end the item in time.
		REQUEST_TIME_LIMIT.ms = 10 * 60_000;
		REQUEST_TIME_LIMIT.readMs = 30 * 60_000;
		const holding = await startHostileService((_req, res) => {
			res.writeHead(403, { 'Content-Type': 'application/xml' });
			res.write(`<Error><Message>${'Request has expired. '.repeat(5000)}`);
			held.push(res);
		});
		try {
			answer = (_req, res) =>
				sendJson(res, 201, { node_version: { id: 'v-1', version: '1.0.0' }, signedUrl: `${holding.url}/o/archive.zip?signature=abc` });
			const result = await publish();
			expect(String(result.items[0]!.json.error)).toMatch(/^Version 1\.0\.0 .* the storage host answered HTTP 403 \(Request has expired\./);
			expect(holding.seen).toHaveLength(1);
		} finally {
			await holding.close();
		}
	}, 20_000);

	it('a file download whose storage answers a 403 page and holds the connection fails at once: the page is not read', async () => {
		REQUEST_TIME_LIMIT.ms = 10 * 60_000;
		REQUEST_TIME_LIMIT.readMs = 30 * 60_000;
		const holding = await startHostileService((_req, res) => {
			res.writeHead(403, { 'Content-Type': 'application/xml' });
			res.write(`<Error><Message>${'Request has expired. '.repeat(5000)}`);
			held.push(res);
		});
		answer = (req, res) =>
			req.url.startsWith('/api/view')
				? sendJson(res, 302, {}, { Location: `${holding.url}/o/out.png?signature=abc` })
				: sendJson(res, 404, {});
		try {
			const result = await harness.runNode({
				type: 'hostCloud',
				parameters: { resource: 'file', operation: 'downloadOutput', filename: 'out.png' } as never,
				credentials: { hostCloudApi: cloud },
				continueOnFail: true,
			});
			expect(String(result.items[0]!.json.error)).toBe('Could not download output file "out.png" (HTTP 403)');
			expect(holding.seen).toHaveLength(1);
		} finally {
			await holding.close();
		}
	}, 20_000);
});

describe("signed storage keeps its own limit under a credential's raised Time Limit", () => {
	it('Publish with a Time Limit of 120 s: the registry may answer after 1.5 idle limits, the storage host may not', async () => {
		// The idle limit is shortened to 1 s; 120 s is twice the default, so the registry's becomes 2 s. An
		// answer at 1.5 s is 0.5 s from either limit: a busy machine's late timers do not move it across one.
		Object.assign(REQUEST_TIME_LIMIT, { ms: 1000, readMs: 3000 });
		const late = (res: ServerResponse, send: () => void) => {
			const timer = setTimeout(send, 1500);
			res.on('close', () => clearTimeout(timer));
		};
		const slowStorage = await startHostileService((_req, res) => late(res, () => sendJson(res, 200, {})));
		answer = (_req, res) =>
			late(res, () =>
				sendJson(res, 201, { node_version: { id: 'v-1', version: '1.0.0' }, signedUrl: `${slowStorage.url}/o/archive.zip?signature=abc` }),
			);
		const slowProxy = harness.addCredential(
			'hostApi',
			hostApiCredential({
				accessToken: 'access-token-stalled-0123',
				registryUrl: service.url,
				publisherId: 'acme',
				publishingToken: 'publishing-token-stalled-0123',
				timeLimitSeconds: 120,
			}),
		);
		try {
			const result = await publishWith(slowProxy);
			// The version was created (the registry's late answer was waited for); the upload was not.
			expect(String(result.items[0]!.json.error)).toMatch(
				/^Version 1\.0\.0 of node "my-node" was created \(version ID v-1\), but its archive was not uploaded: the storage host sent nothing for /,
			);
			expect(slowStorage.seen.length).toBeGreaterThanOrEqual(1);
		} finally {
			await slowStorage.close();
		}
	}, 20_000);
});

describe("a credential's Time Limit (Seconds) raises the limit", () => {
	/** Node definitions, sent after `delayMs` of silence. */
	const lateAnswer = (delayMs: number) => (_req: SeenRequest, res: ServerResponse) => {
		const timer = setTimeout(() => sendJson(res, 200, { KSampler: { input: { required: {} } } }), delayMs);
		res.on('close', () => clearTimeout(timer));
	};
	const definitions = (credential: string) =>
		harness.runNode({
			type: 'hostCloud',
			parameters: { resource: 'system', operation: 'getNodeDefinitions' } as never,
			credentials: { hostCloudApi: credential },
			continueOnFail: true,
		});

	it('an answer after 1.5 idle limits fails with the default, and arrives with a Time Limit of 120 s (twice the default)', async () => {
		// The idle limit is shortened to 1 s; 120 s is twice the default, so it becomes 2 s here. An answer
		// at 1.5 s is 0.5 s from either limit: a busy machine's late timers do not move it across one.
		Object.assign(REQUEST_TIME_LIMIT, { ms: 1000, readMs: 3000 });
		answer = lateAnswer(1500);
		const slowProxy = harness.addCredential(
			'hostCloudApi',
			hostCloudApiCredential({
				apiKey: 'cloud-key-stalled-0123456789',
				baseUrl: service.url,
				timeLimitSeconds: 120,
			}),
		);
		const raised = await definitions(slowProxy);
		expect(raised.items[0]!.json).toMatchObject({ class_type: 'KSampler' });
		const plain = await definitions(cloud);
		expect(String(plain.items[0]!.json.error)).toMatch(/^The service sent nothing for/);
	}, 20_000);
});
