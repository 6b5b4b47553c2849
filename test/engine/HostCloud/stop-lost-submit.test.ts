/**
 * n8n's Stop while Execute does not know the prompt_id of a job it submitted, on both flavours of
 * the simulator behind the loopback fault proxy: during the lookup of a submit whose answer was
 * lost (a gateway's 502 after forwarding it), and while the submit itself is under way. Execute
 * owns its jobs: the docs promise that Stop cancels the jobs this node started, and that a lost
 * submit's job that the queue lists late is cancelled rather than left to run unwatched (and
 * billed). The clean-up looks as late as an unstopped run would, and no later.
 */
import { cloudBehindFaultProxy, EMPTY_QUEUE, isSubmit } from '../../support/cloud-behind-proxy';
import { executeTxt2img, waitUntil } from '../../support/cloud';

const quickWait = { waitOptions: { pollIntervalSeconds: 0.05, silenceSeconds: 15, maxWaitMinutes: 1 } };

describe.each([{ flavour: 'cloud' as const }, { flavour: 'self-hosted' as const }])('on $flavour', ({ flavour }) => {
	const { cloud, node, proxy } = cloudBehindFaultProxy(flavour);
	const jobs = () => [...cloud.sim.cloud.jobs.values()];
	const queueReads = () => proxy().log.filter((exchange) => exchange.method === 'GET' && exchange.path === '/api/queue');
	// A self-hosted server's cancel reads the queue once, to interrupt the job if it runs.
	const cancelReads = flavour === 'self-hosted' ? 1 : 0;
	const cancels = () => cloud.sim.requestsTo('POST', '/api/queue').map((request) => JSON.parse(request.body).delete as string[]);

	test('Stop during the lookup of a lost submit leaves no job of this execution running', async () => {
		cloud.sim.options.nodeMs = 1500;
		let hideUntil = 0;
		proxy().hook = (exchange) => {
			if (isSubmit(exchange)) {
				hideUntil = Date.now() + 2500;
				return { answer: { status: 502, body: '"Bad Gateway"' }, forwardAfterMs: 0 };
			}
			if (exchange.method === 'GET' && Date.now() < hideUntil && ['/api/queue', '/api/history'].includes(exchange.path))
				return { rewrite: () => (exchange.path === '/api/queue' ? EMPTY_QUEUE : '{}') };
			return undefined;
		};
		const stop = new AbortController();
		const running = cloud.harness.runNode(node(executeTxt2img(quickWait)), [{ json: {} }], { signal: stop.signal });
		// Stopped in the 2 s pause between the two looks for the job.
		await waitUntil(() => queueReads().length > 0);
		stop.abort();
		await running;

		expect(jobs()).toHaveLength(1);
		// Once it is over, it must have been cancelled (the queue showed it 2.5 s after the submit), not run to its end unwatched.
		await waitUntil(() => !['pending', 'in_progress'].includes(jobs()[0]!.status), 30_000);
		expect(jobs()[0]!.status).toBe('cancelled');
		expect(cancels()).toEqual([[jobs()[0]!.promptId]]);
		// Bounded: the lookup's first read, at most two looks for the submit the stop cut short, and the last look.
		expect(queueReads().length).toBeLessThanOrEqual(4 + cancelReads);
	}, 60_000);

	test('Stop while the submit is under way cancels its job, though the queue lists it 1.5 s late', async () => {
		cloud.sim.options.nodeMs = 1500;
		const stop = new AbortController();
		// The submit reaches the service; its answer is held, and the execution stopped meanwhile.
		proxy().arm({ request: 'POST /api/prompt', fault: { kind: 'stop' } });
		proxy().onStop = () => stop.abort();
		let hideUntil = Number.POSITIVE_INFINITY;
		proxy().hook = (exchange) => {
			if (isSubmit(exchange)) hideUntil = Date.now() + 1500;
			if (exchange.method === 'GET' && exchange.path === '/api/queue' && Date.now() < hideUntil) return { rewrite: () => EMPTY_QUEUE };
			return undefined;
		};
		const result = await cloud.harness.runNode(node(executeTxt2img(quickWait)), [{ json: {} }], { signal: stop.signal });

		expect(result.status).toBe('canceled');
		expect(jobs()).toHaveLength(1);
		await waitUntil(() => !['pending', 'in_progress'].includes(jobs()[0]!.status), 30_000);
		expect(jobs()[0]!.status).toBe('cancelled');
		// One look at once, one 2 s later (which finds it): no more.
		expect(queueReads()).toHaveLength(2 + cancelReads);
		expect(cancels()).toEqual([[jobs()[0]!.promptId]]);
	}, 60_000);
});
