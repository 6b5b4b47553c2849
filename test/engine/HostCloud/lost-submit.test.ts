/**
 * A lost submit is found, not repeated (issue 35), through n8n's engine against both flavours of
 * the simulator behind a loopback fault proxy: when the answer to `POST /api/prompt` is lost after
 * the server took it (the connection dropped, the time limit ran out, a gateway answered 502), the
 * node finds the job by the request id of its tag and follows it (Submit answers its prompt_id);
 * one job exists. A submit that never reached the server fails saying it was looked for and not
 * found, and is not sent again. A Retry On Fail takes over the job an earlier try left running,
 * never a job of another execution.
 */
import { randomUUID } from 'node:crypto';

import axios from 'axios';

import { REQUEST_TIME_LIMIT } from '../../../nodes/shared/transport/transport';
import type { Fault } from '../../support/fault-proxy';
import { cloudBehindFaultProxy } from '../../support/cloud-behind-proxy';
import { executeTxt2img, OUTLASTING_NODE_MS, storedFiles, txt2img, waitUntil } from '../../support/cloud';

/** Per node of the seven-node graph: a job of about 2.8 s, still running when a lost submit is looked for. */
const RUNNING_NODE_MS = 400;

describe.each([
	{ server: 'the cloud', flavour: 'cloud' as const },
	{ server: 'a self-hosted server', flavour: 'self-hosted' as const },
])('on $server', ({ flavour }) => {
	const { cloud, node, proxy } = cloudBehindFaultProxy(flavour);

	const submits = () => cloud.sim.requestsTo('POST', '/api/prompt');
	const requestIdOf = (body: string): string => JSON.parse(body).extra_data.n8n.request_id;
	const proxied = (method: string, path: string) => proxy().log.filter((exchange) => exchange.method === method && exchange.path === path);

	/** The answer to the item's submit is lost by `fault` (a short time limit for a silence). */
	function loseTheAnswer(fault: Fault): void {
		if (fault.kind === 'stall-headers') REQUEST_TIME_LIMIT.ms = 1000;
		proxy().arm({ request: 'POST /api/prompt', fault });
	}

	const lostAnswers: Array<[string, Fault]> = [
		['the connection drops after the server took the submit', { kind: 'drop' }],
		['the time limit runs out after the submit was sent', { kind: 'stall-headers', status: 200 }],
		['a gateway answers 502 after forwarding the submit', { kind: 'bad-gateway', forward: true }],
	];

	describe.each(lostAnswers)('when %s', (_what, fault) => {
		test('Execute finds the one job by its request id and returns its outputs', async () => {
			cloud.sim.options.nodeMs = RUNNING_NODE_MS;
			loseTheAnswer(fault);
			const result = await cloud.harness.runNode(node(executeTxt2img()));

			expect(result.status).toBe('success');
			expect(submits()).toHaveLength(1);
			expect(cloud.sim.cloud.jobs.size).toBe(1);
			const [job] = [...cloud.sim.cloud.jobs.values()];
			const json = result.items[0]!.json as { prompt_id: string; status: string; images: Array<{ filename: string }> };
			expect(json.prompt_id).toBe(job!.promptId);
			expect(json.status).toBe('completed');
			expect(json.images.map((image) => image.filename).sort()).toEqual(
				storedFiles(cloud.sim, job!.promptId)
					.map((file) => file.filename)
					.sort(),
			);
			// Found while it ran: in the queue, so the history was not read.
			expect(proxied('GET', '/api/queue').length).toBeGreaterThanOrEqual(1);
			expect(proxied('GET', '/api/history')).toHaveLength(0);
			expect(proxy().log.find((exchange) => exchange.path === '/api/prompt')?.fault).toBeDefined();
		}, 30_000);

		test('Submit answers the prompt_id of the one job', async () => {
			cloud.sim.options.nodeMs = RUNNING_NODE_MS;
			loseTheAnswer(fault);
			const result = await cloud.harness.runNode(node({ resource: 'workflow', operation: 'submit', workflow: JSON.stringify(txt2img()) }));

			expect(result.status).toBe('success');
			expect(submits()).toHaveLength(1);
			const [job] = [...cloud.sim.cloud.jobs.values()];
			expect(result.items[0]!.json).toEqual({ prompt_id: job!.promptId, status: 'submitted' });
		}, 30_000);
	});

	if (flavour === 'self-hosted') {
		test('a job that already ended is found in the history, and its outputs returned', async () => {
			// A job of some 35 ms: over long before the one-second time limit runs out.
			loseTheAnswer({ kind: 'stall-headers', status: 200 });
			const result = await cloud.harness.runNode(node(executeTxt2img()));

			expect(result.status).toBe('success');
			expect(submits()).toHaveLength(1);
			const [job] = [...cloud.sim.cloud.jobs.values()];
			expect(result.items[0]!.json).toMatchObject({ prompt_id: job!.promptId, status: 'completed' });
			expect(proxied('GET', '/api/history')).toHaveLength(1);
		}, 30_000);
	}

	/** A job of another execution, submitted straight to the server, tagged for the same node and item (its own seed: never a cached run). */
	async function decoy(seed: number): Promise<string> {
		const tag = {
			execution_id: 'another-execution',
			workflow_id: 'wf-harness',
			node_name: 'Node',
			item_index: 0,
			request_id: randomUUID(),
		};
		const prompt = txt2img();
		prompt['3']!.inputs.seed = seed;
		const answer = await axios.post(`${cloud.sim.baseUrl}/api/prompt`, { prompt, extra_data: { n8n: tag } }, { headers: cloud.headers });
		return answer.data.prompt_id as string;
	}

	test('a submit that never reached the server is looked for, not found, not sent again, and no other job is taken', async () => {
		const ended = await decoy(1001);
		await waitUntil(() => cloud.sim.cloud.jobs.get(ended)?.status === 'completed');
		cloud.sim.options.nodeMs = OUTLASTING_NODE_MS;
		const running = await decoy(1002);
		proxy().arm({ request: 'POST /api/prompt', fault: { kind: 'bad-gateway', forward: false } });
		const startedAt = Date.now();
		const result = await cloud.harness.runNode(node(executeTxt2img()));

		const error = result.error('Node')!;
		const place = flavour === 'cloud' ? 'the cloud' : 'your server';
		expect(error.message).toMatch(
			new RegExp(
				`^The answer to the submit was lost \\(The service had an internal error while submitting the workflow \\(HTTP 502\\): Bad Gateway\\), and no job with request id [0-9a-f-]{36} was found on ${place}$`,
			),
		);
		expect(error.description).toMatch(
			/^The node looked for it twice, 2 seconds apart, .* and did not find it\. It was not sent again: the workflow may never have reached/,
		);
		expect(error.description).toContain(
			flavour === 'cloud' ? 'a job that already ran to its end cannot be found' : 'among the 100 jobs that ended last',
		);
		expect(Date.now() - startedAt).toBeGreaterThanOrEqual(2000);
		// Two looks, and one more in the queue as the run ends; nothing sent again; the other execution's jobs untouched.
		expect(proxied('GET', '/api/queue')).toHaveLength(3);
		expect(proxied('GET', '/api/history')).toHaveLength(flavour === 'cloud' ? 0 : 2);
		expect(proxied('POST', '/api/prompt')).toHaveLength(1);
		expect(submits()).toHaveLength(2);
		expect(cloud.sim.cloud.jobs.size).toBe(2);
		expect(cloud.sim.cloud.jobs.get(running)?.status).toMatch(/^(pending|in_progress)$/);
		expect(JSON.stringify(result.run.data)).not.toContain(running);
		expect(JSON.stringify(result.run.data)).not.toContain(ended);
	}, 30_000);

	describe('Retry On Fail', () => {
		/** Max Wait of 3 s, the job left running at it; a job of about 4.5 s. */
		const slowJobShortWait = () => {
			cloud.sim.options.nodeMs = 650;
			return executeTxt2img({ waitOptions: { pollIntervalSeconds: 0.05, silenceSeconds: 15, maxWaitMinutes: 0.05, onTimeout: 'keep' } });
		};

		test('a retry after Max Wait follows the job still running: one job, and its outputs', async () => {
			const result = await cloud.harness.runNode(node(slowJobShortWait(), { retryOnFail: true, maxTries: 3, waitBetweenTries: 1 }));

			expect(result.status).toBe('success');
			expect(submits()).toHaveLength(1);
			expect(cloud.sim.cloud.jobs.size).toBe(1);
			const [job] = [...cloud.sim.cloud.jobs.values()];
			expect(result.items[0]!.json).toMatchObject({ prompt_id: job!.promptId, status: 'completed' });
			// The first try ended at Max Wait with the job running: the retry looked for it in the queue.
			expect(job!.finishedAt! - job!.submittedAt).toBeGreaterThan(3000);
			expect(proxied('GET', '/api/queue').length).toBeGreaterThanOrEqual(1);
		}, 30_000);

		// On the cloud, which lists no ended jobs, such a retry fails instead (lost-submit-retry.test.ts).
		if (flavour === 'self-hosted') {
			test('a retry after a lost answer that was not found looks again, and submits only when the job is not there', async () => {
				proxy().arm({ request: 'POST /api/prompt', fault: { kind: 'bad-gateway', forward: false } });
				const result = await cloud.harness.runNode(node(executeTxt2img(), { retryOnFail: true, maxTries: 2, waitBetweenTries: 1 }));

				expect(result.status).toBe('success');
				// The first try's request never arrived: the second try looked for it (queue and history), then submitted once.
				expect(proxied('POST', '/api/prompt')).toHaveLength(2);
				expect(submits()).toHaveLength(1);
				expect(proxied('GET', '/api/queue').length).toBeGreaterThanOrEqual(4);
				expect(proxied('GET', '/api/history').length).toBeGreaterThanOrEqual(3);
				const [first, second] = proxied('POST', '/api/prompt');
				expect(requestIdOf(second!.requestBody)).not.toBe(requestIdOf(first!.requestBody));
			}, 30_000);
		}

		test('another execution never takes over a job an earlier execution left running', async () => {
			const parameters = slowJobShortWait();
			const first = await cloud.harness.runNode(node(parameters, { continueOnFail: true }));
			const left = (first.items[0]!.json as { prompt_id: string }).prompt_id;
			expect(first.items[0]!.json.error).toMatch(/did not finish within 3 seconds \(Max Wait\); it is still running/);
			const second = await cloud.harness.runNode(node(parameters, { continueOnFail: true }));

			expect(submits()).toHaveLength(2);
			expect(cloud.sim.cloud.jobs.size).toBe(2);
			expect((second.items[0]!.json as { prompt_id: string }).prompt_id).not.toBe(left);
			expect(requestIdOf(submits()[1]!.body)).not.toBe(requestIdOf(submits()[0]!.body));
		}, 30_000);
	});
});
