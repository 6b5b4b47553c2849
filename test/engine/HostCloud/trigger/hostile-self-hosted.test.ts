/**
 * A hostile service (found by an outside review, kept as regression tests): the self-hosted side, the trigger's history poller and the
 * Server resource's Delete History, against a server of our own.
 */
import { ListeningTrigger } from '../../../support/listening-trigger';
import { selfHostedCredential, sleep, startHostileCloud, type HostileCloud } from '../../../support/hostile-cloud-server';
import { waitUntil } from '../../../support/wait';

jest.setTimeout(120_000);

let server: HostileCloud;
let credential: string;
const triggers: ListeningTrigger[] = [];
beforeEach(async () => {
	server = await startHostileCloud();
	credential = selfHostedCredential(server);
});
afterEach(async () => {
	for (const trigger of triggers.splice(0)) await trigger.close();
	await server.close();
});

const entry = (id: string, index: number, promptChars = 0) => ({
	prompt: [index, id, { '9': { class_type: 'SaveImage', inputs: { pad: 'p'.repeat(promptChars) } } }, {}, ['9']],
	outputs: {},
	status: { status_str: 'success', completed: true, messages: [] },
});

function historyRoute(body: () => string): void {
	server.routes.push((req, res, url) => {
		if (url.pathname !== '/api/history' || req.method !== 'GET') return false;
		res.writeHead(200, { 'Content-Type': 'application/json' });
		res.end(body());
		return true;
	});
}

test('trigger: jobs that had ended before publishing start no flow, even when the server lists more than 1000 of them', async () => {
	// A server (or proxy) that ignores max_items=100 and answers its whole history: 1200 jobs, all ended before.
	const history = Object.fromEntries(Array.from({ length: 1200 }, (_, index) => [`old-${index}`, entry(`old-${index}`, index)]));
	historyRoute(() => JSON.stringify(history));
	const trigger = new ListeningTrigger(server.harness, credential, { pollSeconds: 2, downloadFiles: false });
	triggers.push(trigger);
	await trigger.activate();
	await sleep(5_000);
	const flows = trigger.items.length;
	const refusedAsRepeats = trigger.refusedByKey;
	expect({ flows, refusedAsRepeats }).toEqual({ flows: 0, refusedAsRepeats: 0 });
});

test('Server → Delete History → All clears a full history (10,000 entries of ordinary workflows)', async () => {
	// 10,000 entries is the upstream server's most; each holds its workflow. Here 1,700 entries of
	// 40 KiB (68 MiB) are enough to pass the 64 MiB an answer may be.
	const pad = 40 * 1024;
	let cleared = false;
	historyRoute(() => {
		const parts: string[] = [];
		for (let index = 0; index < 1700; index++) parts.push(`"job-${index}":${JSON.stringify(entry(`job-${index}`, index, pad))}`);
		return `{${parts.join(',')}}`;
	});
	server.routes.push((req, res, url) => {
		if (url.pathname !== '/api/history' || req.method !== 'POST') return false;
		cleared = true;
		res.writeHead(200);
		res.end();
		return true;
	});
	const result = await server.harness.runNode(
		{
			type: 'hostCloud',
			parameters: { resource: 'server', operation: 'deleteHistory', scope: 'all' } as never,
			credentials: { hostCloudApi: credential },
			continueOnFail: true,
		},
		[{ json: {} }],
	);
	const json = result.items[0]!.json;
	expect({ cleared, error: json.error }).toEqual({ cleared: true, error: undefined });
});

test('trigger: a refusal of a history read (a proxy 403) deactivates the published workflow with the server’s words, as documented, and the polling stops', async () => {
	let refuse = false;
	server.routes.push((_req, res, url) => {
		if (url.pathname !== '/api/history') return false;
		res.writeHead(refuse ? 403 : 200, { 'Content-Type': 'application/json' });
		res.end(refuse ? '{"error":"forbidden"}' : '{}');
		return true;
	});
	const trigger = new ListeningTrigger(server.harness, credential, { pollSeconds: 2, downloadFiles: false });
	triggers.push(trigger);
	await trigger.activate();
	refuse = true;
	await waitUntil(() => server.seen.filter((line) => line.startsWith('GET /api/history')).length >= 2, 10_000);
	refuse = false;
	const reads = server.seen.filter((line) => line.startsWith('GET /api/history')).length;
	await sleep(5_000);
	const later = server.seen.filter((line) => line.startsWith('GET /api/history')).length;
	// n8n then tries to publish it again (docs/host-cloud-trigger.md).
	expect({ errors: trigger.errors.length, readsAfterRefusal: later - reads }).toEqual({ errors: 1, readsAfterRefusal: 0 });
});

test('Wait for Completion: a history entry without a readable status is no success; the node reads again, and takes the entry that says', async () => {
	let historyReads = 0;
	server.routes.push((req, res, url) => {
		if (url.pathname !== '/api/history/job-unsure' || req.method !== 'GET') return false;
		historyReads++;
		const outputs = { '9': { images: [{ filename: historyReads <= 2 ? 'not-yet.png' : 'done.png', subfolder: '', type: 'output' }] } };
		// Twice an entry with outputs but no status the server writes (none, then a word it never uses).
		const status = [{}, { status_str: 'constructor', completed: true, messages: [] }][historyReads - 1] ?? {
			status_str: 'success',
			completed: true,
			messages: [],
		};
		res.writeHead(200, { 'Content-Type': 'application/json' });
		res.end(JSON.stringify({ 'job-unsure': { prompt: [0, 'job-unsure', {}, {}, ['9']], outputs, status } }));
		return true;
	});
	const result = await server.harness.runNode({
		type: 'hostCloud',
		parameters: {
			resource: 'workflow',
			operation: 'waitForCompletion',
			promptId: 'job-unsure',
			downloadFiles: false,
			waitOptions: { pollIntervalSeconds: 0.05, silenceSeconds: 15, maxWaitMinutes: 1 / 3 },
		} as never,
		credentials: { hostCloudApi: credential },
	});
	expect(result.status).toBe('success');
	expect(historyReads).toBeGreaterThanOrEqual(3);
	expect(JSON.stringify(result.items[0]!.json)).toContain('done.png');
	expect(JSON.stringify(result.items[0]!.json)).not.toContain('not-yet.png');
});
