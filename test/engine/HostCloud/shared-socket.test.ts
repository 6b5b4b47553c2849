/**
 * Node runs of one process share one progress socket per credential (issue 35, scale): a queue
 * worker runs ten executions at once, and each used to open its own socket and parse every message
 * of the account. Through n8n's engine against both flavours of the simulator: runs at once get
 * their own jobs' files over one connection (a self-hosted server sends a job's messages only to
 * the client id that submitted it, so they all submit with the socket's), another server gets a
 * socket of its own, the socket closes with the last run, and a Stop cancels only the stopped
 * run's jobs, a submit it cut short included, never a job of a run beside it.
 */
import { cloudBehindFaultProxy } from '../../support/cloud-behind-proxy';
import { executeTxt2img, OUTLASTING_NODE_MS, startCloud, storedFiles, waitUntil } from '../../support/cloud';

const RUNS = 3;

describe.each([
	{ server: 'the cloud', flavour: 'cloud' as const },
	{ server: 'a self-hosted server', flavour: 'self-hosted' as const },
])('on $server', ({ flavour }) => {
	const { cloud, node, proxy } = cloudBehindFaultProxy(flavour);

	const run = (items: number, signal?: AbortSignal) =>
		cloud.harness.runNode(
			node(executeTxt2img({ additionalFields: { maxConcurrentJobs: items } })),
			Array.from({ length: items }, (_, i) => ({ json: { i } })),
			{ signal },
		);
	const submits = () => cloud.sim.requestsTo('POST', '/api/prompt').map((request) => JSON.parse(request.body));

	test(`${RUNS} runs at once: one connection, every item its own job's files, heard on the socket`, async () => {
		cloud.sim.options.nodeMs = 40;
		const results = await Promise.all(Array.from({ length: RUNS }, () => run(2)));

		for (const result of results) {
			expect(result.status).toBe('success');
			expect(result.items).toHaveLength(2);
			for (const item of result.items) {
				const json = item.json as { prompt_id: string; status: string; images: Array<{ filename: string }> };
				expect(json.status).toBe('completed');
				expect(json.images.map((image) => image.filename).sort()).toEqual(
					storedFiles(cloud.sim, json.prompt_id)
						.map((file) => file.filename)
						.sort(),
				);
			}
		}
		const ids = results.flatMap((result) => result.items.map((item) => item.json.prompt_id));
		expect(new Set(ids).size).toBe(RUNS * 2);
		expect(cloud.sim.counters.wsConnections).toBe(1);
		// Every submit names the one socket's client id (a self-hosted server sends each job's messages there).
		const [handshake] = cloud.sim.cloud.wsHandshakes;
		expect(submits().map((body) => body.client_id)).toEqual(Array(RUNS * 2).fill(handshake!.clientId));
		// Heard, not looked up: no job status read, no job record or history read.
		const lookups = cloud.sim.requests.filter((request) => request.method === 'GET' && /\/api\/job|\/history/.test(request.path));
		expect(lookups).toEqual([]);
		// Closed with the last run.
		await waitUntil(() => cloud.sim.cloud.openSockets() === 0, 30_000);
	}, 30_000);

	test('a run on another server has a socket of its own', async () => {
		cloud.sim.options.nodeMs = 40;
		const other = await startCloud({ flavour });
		try {
			const onOther = other.harness.runNode(
				{ type: 'hostCloud', parameters: executeTxt2img() as never, credentials: { hostCloudApi: other.credential } },
				[{ json: {} }],
			);
			const [here, there] = await Promise.all([run(1), onOther]);
			expect(here.status).toBe('success');
			expect(there.status).toBe('success');
			expect(cloud.sim.counters.wsConnections).toBe(1);
			expect(other.sim.counters.wsConnections).toBe(1);
			expect(cloud.sim.cloud.wsHandshakes[0]!.clientId).not.toBe(other.sim.cloud.wsHandshakes[0]!.clientId);
		} finally {
			await other.sim.close();
		}
	}, 30_000);

	test('Stop cancels the stopped run’s jobs, one whose submit it cut short included, and never the jobs of a run beside it', async () => {
		cloud.sim.options.nodeMs = OUTLASTING_NODE_MS;
		const besideStop = new AbortController();
		const beside = run(2, besideStop.signal);
		await waitUntil(() => cloud.sim.cloud.jobs.size === 2);
		// One of the stopped run's two submits reaches the server, and its answer never comes back.
		proxy().arm({ request: 'POST /api/prompt', fault: { kind: 'stall-headers', status: 200 } });
		const stop = new AbortController();
		const stopped = run(2, stop.signal);
		await waitUntil(() => cloud.sim.cloud.jobs.size === 4);
		stop.abort();
		expect((await stopped).status).toBe('canceled');

		// The simulator lists jobs in the order they were submitted: the run beside it submitted first.
		const jobs = () => [...cloud.sim.cloud.jobs.values()];
		const besideJobs = () => jobs().slice(0, 2);
		await waitUntil(
			() =>
				jobs()
					.slice(2)
					.every((job) => job.status === 'cancelled'),
			10_000,
		);
		expect(besideJobs().map((job) => job.status)).not.toContain('cancelled');

		besideStop.abort();
		expect((await beside).status).toBe('canceled');
		await waitUntil(() => besideJobs().every((job) => job.status === 'cancelled'), 10_000);
	}, 40_000);
});
