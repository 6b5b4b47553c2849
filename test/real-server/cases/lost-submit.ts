/**
 * A lost submit on the real upstream server (issue 35), through n8n's engine with a loopback fault
 * proxy in front of the server: the answer to `POST /api/prompt` is dropped after forwarding, held
 * past the time limit, or replaced by a gateway's 502. The node finds the job by the request id of
 * its tag, in the server's own queue while it runs and in its own history once it is over, and the
 * server holds exactly one job of the item.
 */
import { randomUUID } from 'node:crypto';

import { REQUEST_TIME_LIMIT } from '../../../nodes/shared/transport/transport';
import { emptyImage, type Graph, save, slowGraph } from '../../support/contract/scenarios';
import { EngineHarness, type WorkflowNodeSpec } from '../../support/engine';
import { startFaultProxy, type Fault, type FaultProxy } from '../../support/fault-proxy';
import { drainQueue, realServer } from '../support/real-server';
import { selfHostedCredential } from '../../support/credential-fixtures';

const WAIT = { pollIntervalSeconds: 0.2, silenceSeconds: 15, maxWaitMinutes: 3 };
const colour = () => Math.floor(Math.random() * 0xffffff);

/** The server's jobs (queued, running and in its history) whose workflow saves under `prefix`. */
async function jobsSavingAs(prefix: string): Promise<Array<{ promptId: string; requestId?: string; where: string }>> {
	const url = realServer().url;
	const queue = (await (await fetch(`${url}/queue`)).json()) as { queue_running: unknown[][]; queue_pending: unknown[][] };
	const history = (await (await fetch(`${url}/history?max_items=200`)).json()) as Record<string, { prompt: unknown[] }>;
	const entries: Array<[unknown[], string]> = [
		...queue.queue_running.map((entry): [unknown[], string] => [entry, 'running']),
		...queue.queue_pending.map((entry): [unknown[], string] => [entry, 'pending']),
		...Object.values(history).map((entry): [unknown[], string] => [entry.prompt, 'history']),
	];
	// A job that ended between the two reads is in both: it is one job (the later read says where it is now).
	const jobs = new Map<string, { promptId: string; requestId?: string; where: string }>();
	for (const [entry, where] of entries.filter(([candidate]) => JSON.stringify(candidate[2]).includes(`"${prefix}"`))) {
		const promptId = String(entry[1]);
		jobs.set(promptId, { promptId, requestId: (entry[3] as { n8n?: { request_id?: string } }).n8n?.request_id, where });
	}
	return [...jobs.values()];
}

describe('a lost submit on the real upstream server (engine, through a fault proxy)', () => {
	const harness = new EngineHarness();
	let proxy: FaultProxy;
	let credential: string;

	beforeAll(async () => {
		const url = realServer().url;
		proxy = await startFaultProxy({ api: url, registry: url, storage: url });
		credential = harness.addCredential('hostCloudApi', selfHostedCredential({ serverUrl: proxy.urls.api, proxyHeaders: { values: [] } }));
	});

	afterEach(async () => {
		proxy.release();
		proxy.arm(undefined);
		REQUEST_TIME_LIMIT.ms = 60_000;
		await drainQueue(realServer().url);
	});

	afterAll(async () => {
		await proxy?.close();
	});

	const node = (graph: Graph): WorkflowNodeSpec => ({
		name: 'Host Cloud',
		type: 'hostCloud',
		parameters: {
			resource: 'workflow',
			operation: 'execute',
			workflow: JSON.stringify(graph),
			waitOptions: WAIT,
		} as WorkflowNodeSpec['parameters'],
		credentials: { hostCloudApi: credential },
		continueOnFail: true,
	});

	const proxied = (method: string, path: string) => proxy.log.filter((exchange) => exchange.method === method && exchange.path === path);

	async function runLosing(fault: Fault, graph: Graph, prefix: string) {
		if (fault.kind === 'stall-headers') REQUEST_TIME_LIMIT.ms = 1000;
		proxy.arm({ request: 'POST /api/prompt', fault });
		const result = await harness.runNode(node(graph));
		const json = result.items[0]!.json as { prompt_id?: string; status?: string; error?: string };
		expect(json.error).toBeUndefined();
		expect(json.status).toBe('completed');
		const jobs = await jobsSavingAs(prefix);
		// One job on the server, the item's, made by the one submit the proxy forwarded.
		expect(jobs).toHaveLength(1);
		expect(jobs[0]!.promptId).toBe(json.prompt_id);
		expect(jobs[0]!.requestId).toBe(JSON.parse(proxied('POST', '/api/prompt')[0]!.requestBody).extra_data.n8n.request_id);
		expect(proxied('POST', '/api/prompt')).toHaveLength(1);
		return result;
	}

	test.each<[string, Fault]>([
		['the connection dropped after the server took the submit', { kind: 'drop' }],
		['the time limit ran out after the submit was sent', { kind: 'stall-headers', status: 200 }],
		['a gateway answered 502 after forwarding the submit', { kind: 'bad-gateway', forward: true }],
	])('%s: the running job is found in the server’s queue', async (_what, fault) => {
		const prefix = `n8n-lost-${randomUUID()}`;
		await runLosing(fault, slowGraph(colour(), 8, prefix), prefix);
		// Found while it ran: the history was not read to find it.
		expect(proxied('GET', '/api/queue').length).toBeGreaterThanOrEqual(1);
		expect(proxied('GET', '/api/history')).toHaveLength(0);
	});

	test('the time limit ran out after the job was over: it is found in the server’s history', async () => {
		const prefix = `n8n-lost-${randomUUID()}`;
		await runLosing({ kind: 'stall-headers', status: 200 }, { '1': emptyImage(colour()), '2': save('1', prefix) }, prefix);
		expect(proxied('GET', '/api/history')).toHaveLength(1);
	});

	test('a 502 without forwarding: looked for in the queue and the history, not found, not sent again', async () => {
		const prefix = `n8n-lost-${randomUUID()}`;
		proxy.arm({ request: 'POST /api/prompt', fault: { kind: 'bad-gateway', forward: false } });
		const result = await harness.runNode(node({ '1': emptyImage(colour()), '2': save('1', prefix) }));
		expect(result.items[0]!.json.error).toMatch(/, and no job with request id [0-9a-f-]{36} was found on your server$/);
		expect(await jobsSavingAs(prefix)).toHaveLength(0);
		// Two looks, 2 s apart, in the queue and the history; then Execute's last look in the queue as its run ends.
		expect(proxied('GET', '/api/queue')).toHaveLength(3);
		expect(proxied('GET', '/api/history')).toHaveLength(2);
	});
});
