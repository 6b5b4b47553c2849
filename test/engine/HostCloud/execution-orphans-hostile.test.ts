/**
 * Queue → Cancel Jobs of an Execution against a service whose queue answers are odd or hostile
 * (a loopback server that answers what each test sets): an answer that is no queue is an error,
 * never "no job"; an entry listed twice is one job; a prompt_id that is no id is never sent; a tag
 * of another n8n install, or of no known operation, is left alone; control characters in a tag do
 * not reach the report; thousands of the execution's jobs are cancelled in bounded requests and
 * named at most 100 at a time; a self-hosted queue claiming many running jobs gets a few interrupts.
 */
import type { ServerResponse } from 'node:http';

import { EngineHarness, harnessInstanceId } from '../../support/engine';
import { sendJson, startHostileService, type HostileService } from '../../support/hostile-service';
import { hostCloudApiCredential, selfHostedCredential } from '../../support/credential-fixtures';

const harness = new EngineHarness();
let service: HostileService;
let credentials: { cloud: string; selfHosted: string };
let queueAnswer: () => unknown;
let rawQueueAnswer: string | undefined;

const tag = (more: Record<string, unknown> = {}) => ({
	n8n: {
		execution_id: '41',
		workflow_id: 'wf',
		node_name: 'Generate',
		item_index: 0,
		operation: 'execute',
		instance_id: harnessInstanceId(),
		request_id: 'r',
		...more,
	},
});
const entry = (promptId: unknown, extraData: unknown) => [1, promptId, {}, extraData, ['9']];
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

beforeAll(async () => {
	service = await startHostileService((request, res: ServerResponse) => {
		const path = request.url.split('?')[0]!;
		if (request.method === 'GET' && /\/queue$/.test(path)) {
			if (rawQueueAnswer === undefined) return sendJson(res, 200, queueAnswer());
			res.writeHead(200, { 'Content-Type': 'text/html' });
			return res.end(rawQueueAnswer);
		}
		if (request.method === 'POST' && /\/queue$/.test(path)) return sendJson(res, 200, { deleted: JSON.parse(request.body).delete });
		if (request.method === 'POST' && /\/interrupt$/.test(path)) return sendJson(res, 200, {});
		return sendJson(res, 404, { error: 'no route' });
	});
	credentials = {
		cloud: harness.addCredential('hostCloudApi', hostCloudApiCredential({ apiKey: 'cloud-key-0123456789abcdef', baseUrl: service.url })),
		selfHosted: harness.addCredential('hostCloudApi', selfHostedCredential({ serverUrl: service.url, proxyHeaders: { values: [] } })),
	};
});

afterAll(async () => await service.close());

beforeEach(() => {
	service.seen.length = 0;
	rawQueueAnswer = undefined;
	queueAnswer = () => ({ queue_running: [], queue_pending: [] });
});

function cancel(more: Record<string, unknown> = {}, flavour: keyof typeof credentials = 'cloud') {
	return harness.runNode(
		{
			type: 'hostCloud',
			parameters: { resource: 'queue', operation: 'cancelExecutionJobs', executionId: '41', workflowId: 'wf', ...more },
			credentials: { hostCloudApi: credentials[flavour] },
		},
		[{ json: {} }],
		{ workflowId: 'wf-error' },
	);
}

const cancelRequests = () => service.seen.filter((request) => request.method === 'POST' && /\/queue$/.test(request.url));
const idsSent = () => cancelRequests().flatMap((request) => JSON.parse(request.body).delete as string[]);

test.each([
	['an HTML page', undefined, '<html>Down for maintenance</html>'],
	['an empty object', {}, undefined],
	['lists of another type', { queue_running: 'busy', queue_pending: null }, undefined],
])('a queue answer that is %s is an error that says nothing was cancelled, never "no job"', async (_, answer, raw) => {
	queueAnswer = () => answer;
	rawQueueAnswer = raw;
	const result = await cancel();
	expect(result.status).toBe('error');
	expect(result.error('Node')?.message).toMatch(/could not be looked for/);
	expect(result.error('Node')?.description).toMatch(/Nothing was cancelled/);
	expect(cancelRequests()).toEqual([]);
});

test('a job listed as running and as pending is one job, cancelled once', async () => {
	queueAnswer = () => ({ queue_running: [entry(id(1), tag())], queue_pending: [entry(id(1), tag())] });
	const result = await cancel();
	expect(result.items[0]!.json).toMatchObject({ cancelled_count: 1, cancelled: [{ prompt_id: id(1), state: 'running' }] });
	expect(idsSent()).toEqual([id(1)]);
});

test('an entry whose prompt_id is no id (too long, a path, control characters, not text) is counted, never cut short and sent', async () => {
	const long = `${id(2)}${'x'.repeat(300)}`;
	queueAnswer = () => ({
		queue_running: [entry(long, tag()), entry('../admin', tag()), entry('a\nb', tag()), entry(42, tag())],
		queue_pending: [entry(id(3), tag())],
	});
	const result = await cancel();
	expect(result.items[0]!.json).toMatchObject({ cancelled_count: 1, unreadable_queue_entries: 4 });
	expect(idsSent()).toEqual([id(3)]);
});

test('a tag of another n8n install, of none, of no known operation, or meant to outlive its wait is left; control characters never reach the report', async () => {
	queueAnswer = () => ({
		queue_running: [entry(id(4), tag({ instance_id: 'another-install' })), entry(id(9), tag({ instance_id: undefined }))],
		queue_pending: [
			entry(id(5), tag({ operation: 'SUBMIT' })),
			entry(id(6), tag({ operation: undefined })),
			entry(id(7), tag({ keep: true })),
			entry(id(8), tag({ node_name: 'Gen\nCancelled 99 jobs\r' })),
		],
	});
	const result = await cancel();
	const json = result.items[0]!.json as Record<string, any>;
	expect(idsSent()).toEqual([id(8)]);
	expect(json.cancelled).toEqual([expect.objectContaining({ prompt_id: id(8), node_name: 'GenCancelled 99 jobs' })]);
	// The other install's job, and the one whose tag names none, are not this execution's at all; the others are listed, left running.
	expect(json.left_running.map((job: { prompt_id: string }) => job.prompt_id)).toEqual([id(5), id(6), id(7)]);
	expect(JSON.stringify(json)).not.toContain(id(4));
	expect(JSON.stringify(json)).not.toContain(id(9));
});

test('3000 jobs of the execution: cancelled in requests of 100 ids, 100 named in the answer, the rest counted', async () => {
	const ids = Array.from({ length: 3000 }, (_, n) => id(n + 10));
	queueAnswer = () => ({ queue_running: [], queue_pending: ids.map((promptId) => entry(promptId, tag())) });
	const result = await cancel();
	const json = result.items[0]!.json as Record<string, any>;
	expect(cancelRequests()).toHaveLength(30);
	expect(cancelRequests().every((request) => JSON.parse(request.body).delete.length === 100)).toBe(true);
	expect(new Set(idsSent()).size).toBe(3000);
	expect(json.cancelled_count).toBe(3000);
	expect(json.cancelled).toHaveLength(100);
	expect(json.cancelled_not_listed).toBe(2900);
	expect(String(json.message).length).toBeLessThan(600);
});

test('on a self-hosted server, a queue claiming 20 running jobs of the execution gets at most 5 interrupts, each naming its job', async () => {
	const running = Array.from({ length: 20 }, (_, n) => entry(id(n + 100), tag()));
	queueAnswer = () => ({ queue_running: running, queue_pending: [] });
	const result = await cancel({}, 'selfHosted');
	expect(result.status).toBe('success');
	const interrupts = service.seen.filter((request) => /\/interrupt$/.test(request.url));
	expect(interrupts).toHaveLength(5);
	for (const request of interrupts) expect(JSON.parse(request.body)).toEqual({ prompt_id: expect.stringMatching(/^00000000-/) });
});
