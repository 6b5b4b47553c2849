/**
 * Lost submits and Retry On Fail at their edges, through n8n's engine against both flavours of the
 * simulator behind the loopback fault proxy (its test hook answers or rewrites chosen requests):
 * a job the node cancelled itself is never taken over; Submit answers an earlier try's prompt_id
 * rather than paying twice; on the cloud a lost submit that was not found is never sent again by a
 * retry; a job listed late is looked for once more and cancelled; a failed queue read fails only
 * the items with an earlier submit; each lookup read is made once. (Only the item's own job is
 * taken for a lost submit: lost-submit-lookalikes.test.ts.)
 */
import { REQUEST_TIME_LIMIT } from '../../../nodes/shared/transport/transport';
import type { Hooked } from '../../support/fault-proxy';
import { cloudBehindFaultProxy, EMPTY_QUEUE, hideFromQueue, isSubmit, quickWait, tagOf } from '../../support/cloud-behind-proxy';
import { executeTxt2img, txt2img, waitUntil } from '../../support/cloud';

/** A refusal the node does not take as a lost answer (nothing was made), nor send again (a 429 would be, after the wait it asks). */
const REFUSED: Hooked = { answer: { status: 402, body: '{"error":{"type":"insufficient_credits","message":"top up"}}' } };

describe.each([
	{ server: 'the cloud', flavour: 'cloud' as const },
	{ server: 'a self-hosted server', flavour: 'self-hosted' as const },
])('on $server', ({ flavour }) => {
	const { cloud, node, proxy } = cloudBehindFaultProxy(flavour);

	beforeEach(() => proxy().arm(undefined));
	const submitNode = () => node({ resource: 'workflow', operation: 'submit', workflow: JSON.stringify(txt2img()) }, retrying(1000));
	const retrying = (waitBetweenTries = 0) => ({ retryOnFail: true, maxTries: 2, waitBetweenTries });
	/** The submits the simulator took, with the item each was for. */
	const submits = () => cloud.sim.requestsTo('POST', '/api/prompt').map((request) => tagOf(request.body));
	const jobs = () => [...cloud.sim.cloud.jobs.values()];
	const proxied = (method: string, path: string) => proxy().log.filter((exchange) => exchange.method === method && exchange.path === path);

	test('a retry after another item failed submits anew the job the node cancelled, though it is still listed running', async () => {
		cloud.sim.options.nodeMs = 650;
		let refused = false;
		proxy().hook = (exchange, body) => {
			if (isSubmit(exchange) && tagOf(body).item_index === 1 && !refused) {
				refused = true;
				return REFUSED;
			}
			// As upstream ComfyUI: a cancel is acknowledged at once, and takes effect at the job's next check.
			if (exchange.method === 'POST' && ['/api/queue', '/api/interrupt'].includes(exchange.path))
				return { answer: { status: 200, body: '{}' }, forwardAfterMs: 2500 };
			return undefined;
		};
		const result = await cloud.harness.runNode(node(executeTxt2img({ waitOptions: quickWait({ maxConcurrentJobs: 2 }) }), retrying()), [
			{ json: {} },
			{ json: {} },
		]);

		expect(result.status).toBe('success');
		// Item 0 twice (its first job cancelled), item 1 once (its first submit refused).
		expect(
			submits()
				.map((tag) => tag.item_index)
				.sort(),
		).toEqual([0, 0, 1]);
		const outputs = result.items.map((item) => item.json as { prompt_id: string; status: string });
		expect(outputs.map((output) => output.status)).toEqual(['completed', 'completed']);
		const first = jobs().find((job) => !outputs.some((output) => output.prompt_id === job.promptId))!;
		await waitUntil(() => first.status === 'cancelled');
	}, 60_000);

	test('Submit retried after another item failed answers the first item’s prompt_id, though its job ended: no second job', async () => {
		let refused = false;
		proxy().hook = (exchange, body) => {
			if (!isSubmit(exchange) || tagOf(body).item_index !== 1 || refused) return undefined;
			refused = true;
			return REFUSED;
		};
		const result = await cloud.harness.runNode(submitNode(), [{ json: {} }, { json: {} }]);

		expect(result.status).toBe('success');
		expect(submits().map((tag) => tag.item_index)).toEqual([0, 1]);
		const first = jobs().find(
			(job) => (job as unknown as { publicExtraData: { n8n: { item_index: number } } }).publicExtraData.n8n.item_index === 0,
		)!;
		// It ended during the try that failed: the retry read nothing and sent nothing for it.
		expect(first.status).toBe('completed');
		expect(result.items.map((item) => item.json.prompt_id)).toEqual(jobs().map((job) => job.promptId));
	}, 30_000);

	test('a job the queue lists late after a 502 is looked for once more as the run ends, and cancelled', async () => {
		cloud.sim.options.nodeMs = 1000;
		let hideUntil = 0;
		proxy().hook = (exchange) => {
			if (isSubmit(exchange)) {
				hideUntil = Date.now() + 3000;
				return { answer: { status: 502, body: '"Bad Gateway"' }, forwardAfterMs: 0 };
			}
			if (exchange.method === 'GET' && Date.now() < hideUntil && ['/api/queue', '/api/history'].includes(exchange.path))
				return { rewrite: () => (exchange.path === '/api/queue' ? EMPTY_QUEUE : '{}') };
			return undefined;
		};
		const result = await cloud.harness.runNode(node(executeTxt2img({ waitOptions: quickWait() })));

		const error = result.error('Node')!;
		expect(error.message).toMatch(/and no job with request id [0-9a-f-]{36} was found on/);
		expect(error.description).toMatch(/may never have reached .*, or .* may list its job late/);
		expect(error.description).not.toMatch(/most likely/);
		expect(error.description).toContain('When this run ends, the node looks for it once more and cancels it if it is there.');
		expect(jobs()).toHaveLength(1);
		await waitUntil(() => jobs()[0]!.status === 'cancelled');
	}, 30_000);

	test('when the retry cannot read the queue, only the item with an earlier submit fails, naming its own request id', async () => {
		cloud.sim.options.nodeMs = 650;
		let refused = false;
		// Each try reads the server's node definitions first: the second read is the retry beginning.
		let definitionReads = 0;
		proxy().hook = (exchange, body) => {
			if (exchange.path === '/api/object_info') definitionReads++;
			// Item 1's first submit is refused: no job, nothing to take over.
			if (isSubmit(exchange) && tagOf(body).item_index === 1 && !refused) {
				refused = true;
				return REFUSED;
			}
			// Once the retry has begun (not at a time, which a busy machine stretches), the queue cannot be read.
			if (definitionReads >= 2 && exchange.method === 'GET' && exchange.path === '/api/queue') {
				// Item 1's job, submitted anew, is a short one.
				cloud.sim.options.nodeMs = 5;
				return { answer: { status: 500, body: '{"error":"boom"}' } };
			}
			return undefined;
		};
		// Item 0's job outlasts Max Wait (left running); Continue On Fail with a failed first item: n8n retries every item.
		const parameters = executeTxt2img({ waitOptions: quickWait({ maxWaitMinutes: 0.05, onTimeout: 'keep', maxConcurrentJobs: 1 }) });
		const result = await cloud.harness.runNode(node(parameters, { continueOnFail: true, ...retrying(1000) }), [{ json: {} }, { json: {} }]);

		const item0 = submits().find((tag) => tag.item_index === 0)!;
		const [first, second] = result.items.map((item) => item.json as { error?: string; status?: string });
		expect(first!.error).toBe(
			`An earlier try of this node submitted the workflow (request id ${item0.request_id}), and the queue could not be read to see whether that job still runs: The service had an internal error while looking for the jobs of earlier tries (HTTP 500): boom`,
		);
		expect(second!.error).toBeUndefined();
		expect(second!.status).toBe('completed');
		expect(submits().map((tag) => tag.item_index)).toEqual([0, 1]);
	}, 60_000);

	test('each lookup read is made once: a queue that answers 500 is read once for the lookup (and once as the run ends)', async () => {
		proxy().hook = (exchange) => {
			if (isSubmit(exchange)) return { answer: { status: 502, body: '"Bad Gateway"' } };
			if (exchange.method === 'GET' && exchange.path === '/api/queue') return { answer: { status: 500, body: '{"error":"boom"}' } };
			return undefined;
		};
		const result = await cloud.harness.runNode(node(executeTxt2img({ waitOptions: quickWait() })));

		expect(proxied('GET', '/api/queue')).toHaveLength(2);
		const error = result.error('Node')!;
		expect(error.message).toMatch(
			/and its job \(request id [0-9a-f-]{36}\) could not be looked for \(The service had an internal error while looking for the job of request [0-9a-f-]{36} \(HTTP 500\): boom\)$/,
		);
		expect(`${error.message} ${error.description}`).not.toMatch(/try again later/i);
		expect(proxied('GET', '/api/history')).toHaveLength(0);
	}, 30_000);

	if (flavour === 'cloud') {
		test('a retry never sends again a lost submit that was not found: its short job may have ended unseen', async () => {
			// A job of some 35 ms, over before the one-second time limit runs out, and the cloud lists no
			// ended jobs: its queue never shows it (so a busy machine, on which it still runs, is the same).
			REQUEST_TIME_LIMIT.ms = 1000;
			proxy().arm({ request: 'POST /api/prompt', fault: { kind: 'stall-headers', status: 200 } });
			proxy().hook = hideFromQueue;
			const result = await cloud.harness.runNode(node(executeTxt2img({ waitOptions: quickWait() }), retrying()));

			const error = result.error('Node')!;
			expect(error.message).toMatch(
				/^An earlier try of this node lost the answer to its submit \(request id [0-9a-f-]{36}\), and its job is not in the cloud's queue: it may never have arrived, or already ended$/,
			);
			expect(error.description).toContain('the retry sent nothing');
			expect(submits()).toHaveLength(1);
			expect(jobs()[0]!.status).toBe('completed');
		}, 30_000);

		test('Submit: a retry never sends again a lost submit that was not found', async () => {
			REQUEST_TIME_LIMIT.ms = 1000;
			proxy().arm({ request: 'POST /api/prompt', fault: { kind: 'stall-headers', status: 200 } });
			proxy().hook = hideFromQueue;
			const result = await cloud.harness.runNode(submitNode());

			expect(result.error('Node')?.message).toMatch(/^An earlier try of this node lost the answer to its submit/);
			expect(submits()).toHaveLength(1);
		}, 30_000);
	}
});
