/**
 * A service that never answers: every Host Cloud request has a time limit (a submit's job is then
 * looked for, and when it cannot be, the message says it may exist), and Max Wait ends a job's
 * wait while a status read hangs.
 */
import type { ServerResponse } from 'node:http';

import { REQUEST_TIME_LIMIT } from '../../../nodes/shared/transport/transport';
import { EngineHarness } from '../../support/engine';
import { txt2img } from '../../support/cloud';
import { sendJson, startHostileService, type HostileService, type SeenRequest } from '../../support/hostile-service';
import { hostCloudApiCredential } from '../../support/credential-fixtures';

const harness = new EngineHarness();
let service: HostileService;
let credential: string;
/** Requests the service holds without answering, answered (and closed) after each test. */
const held: ServerResponse[] = [];
let silentPaths: RegExp = /^$/;
/** Requests answered with a status and the start of a body, then nothing more. */
let stallingPaths: RegExp = /^$/;

beforeAll(async () => {
	service = await startHostileService((req: SeenRequest, res: ServerResponse) => {
		const path = req.url.split('?')[0]!;
		if (silentPaths.test(`${req.method} ${path}`)) {
			held.push(res);
			return;
		}
		if (stallingPaths.test(`${req.method} ${path}`)) {
			res.writeHead(200, { 'Content-Type': 'application/json' });
			res.write('{"KSampler": {"input": ');
			held.push(res);
			return;
		}
		if (req.method === 'POST' && path === '/api/prompt') return sendJson(res, 200, { prompt_id: 'silent-1', number: 1, node_errors: {} });
		if (req.method === 'POST' && path === '/api/queue') return sendJson(res, 200, {});
		sendJson(res, 404, { error: { type: 'not_found', message: `no route ${path}` } });
	});
	credential = harness.addCredential(
		'hostCloudApi',
		hostCloudApiCredential({ apiKey: 'cloud-key-silent-0123456789', baseUrl: service.url }),
	);
});

afterEach(() => {
	for (const res of held.splice(0)) res.destroy();
	REQUEST_TIME_LIMIT.ms = 120_000;
	silentPaths = /^$/;
	stallingPaths = /^$/;
});

afterAll(async () => {
	await service.close();
});

const run = (parameters: Record<string, unknown>) =>
	harness.runNode({ type: 'hostCloud', parameters: parameters as never, credentials: { hostCloudApi: credential }, continueOnFail: true });

describe('every request has a time limit', () => {
	beforeEach(() => {
		// One second instead of two minutes, so that the test does not wait for the real limit.
		REQUEST_TIME_LIMIT.ms = 1000;
	});

	it('a node definitions read that never answers fails, saying the service sent nothing', async () => {
		silentPaths = /^GET \/api\/object_info$/;
		const result = await run({ resource: 'system', operation: 'getNodeDefinitions' });
		expect(result.items[0]!.json.error).toBe(
			'The service sent nothing for 1 second while reading the node definitions. The service may be busy: try again later.',
		);
	});

	it('an answer that stops half-way is bounded alike (answers are read as streams, within the same limit)', async () => {
		stallingPaths = /^GET \/api\/object_info$/;
		const result = await run({ resource: 'system', operation: 'getNodeDefinitions' });
		expect(result.items[0]!.json.error).toBe(
			'The service sent nothing for 1 second while reading the node definitions. The service may be busy: try again later.',
		);
	}, 15_000);

	it('a submit that never answers is looked for by its request id; a service that cannot be asked leaves it said that the job may exist', async () => {
		silentPaths = /^POST \/api\/prompt$/;
		const result = await run({
			resource: 'workflow',
			operation: 'submit',
			workflow: JSON.stringify(txt2img()),
		});
		const json = result.items[0]!.json as { error: string; errorDetails: string };
		const requestId = /request id ([0-9a-f-]{36})/.exec(json.error)?.[1];
		expect(json.error).toBe(
			`The answer to the submit was lost (The service sent nothing for 1 second while submitting the workflow), and its job (request id ${requestId}) could not be looked for (Not found while looking for the job of request ${requestId} (HTTP 404): no route /api/queue)`,
		);
		expect(json.errorDetails).toBe(
			`The job may exist on the cloud: check the queue (Queue → Get) for a job whose extra_data.n8n.request_id is ${requestId} before running again. Nothing was sent again.`,
		);
	});
});

describe('Max Wait ends the wait whatever is in flight', () => {
	it('a job whose status read never answers times out at its Max Wait, naming the job', async () => {
		// The request limit stays at its two minutes: only Max Wait (3 s) can end this wait in time.
		silentPaths = /^GET \/api\/job\/silent-1\/status$/;
		const result = await run({
			resource: 'workflow',
			operation: 'execute',
			workflow: JSON.stringify(txt2img()),
			waitOptions: { maxWaitMinutes: 0.05, pollIntervalSeconds: 0.1, useWebSocket: false, onTimeout: 'cancel' },
		});
		expect(result.items[0]!.json.error).toBe('Job silent-1 did not finish within 3 seconds (Max Wait), so it was cancelled on the cloud');
		expect(held.length).toBeGreaterThan(0);
	}, 30_000);
});
