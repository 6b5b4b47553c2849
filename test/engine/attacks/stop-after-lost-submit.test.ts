/**
 * Attack: n8n's Stop while Execute looks for the job of a submit whose answer was lost (a gateway's
 * 502 after forwarding it; the queue lists the job late). Execute owns its jobs: the docs promise that
 * Stop cancels the jobs this node started, and that a lost submit's job that appears later is
 * cancelled rather than left to run unwatched (and billed).
 */
import type { Exchange } from '../../support/fault-proxy';
import { cloudBehindFaultProxy } from '../../support/cloud-behind-proxy';
import { executeTxt2img, waitUntil } from '../../support/cloud';

const EMPTY_QUEUE = JSON.stringify({ queue_running: [], queue_pending: [] });
const isSubmit = (exchange: Exchange) => exchange.method === 'POST' && exchange.path === '/api/prompt';

describe.each([{ flavour: 'cloud' as const }, { flavour: 'self-hosted' as const }])('on $flavour', ({ flavour }) => {
	const { cloud, node, proxy } = cloudBehindFaultProxy(flavour);

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
		const running = cloud.harness.runNode(
			node(executeTxt2img({ waitOptions: { pollIntervalSeconds: 0.05, silenceSeconds: 15, maxWaitMinutes: 1 } })),
			[{ json: {} }],
			{ signal: stop.signal },
		);
		// Stopped in the 2 s pause between the two looks for the job.
		await waitUntil(() => proxy().log.some((exchange) => exchange.method === 'GET' && exchange.path === '/api/queue'));
		stop.abort();
		await running;

		const jobs = [...cloud.sim.cloud.jobs.values()];
		expect(jobs).toHaveLength(1);
		// Once it is over, it must have been cancelled (the queue showed it 2.5 s after the submit), not run to its end unwatched.
		await waitUntil(() => !['pending', 'in_progress'].includes(jobs[0]!.status), 30_000);
		expect(jobs[0]!.status).toBe('cancelled');
	}, 60_000);
});
