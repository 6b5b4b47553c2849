/**
 * How Execute waits, through n8n's engine against the simulator: other jobs' messages on the same
 * socket, no WebSocket at all (polling), dropped sockets (reconcile by status, outputs recovered
 * from the job record or a clear "may be incomplete" failure; one job's drop and silence are in
 * servers.test.ts, on both servers), execution errors of each type, jobs cancelled by
 * someone else, the Max Wait, and the Stop button (the node cancels its own jobs, never the
 * account's others).
 */
import axios from 'axios';

import { cloudForSuite, FAST_WAIT, OUTLASTING_NODE_MS, storedFiles, txt2img, waitUntil, withoutWebSocket } from '../../support/cloud';

const cloud = cloudForSuite();

function execute(parameters: Record<string, unknown> = {}, items = [{ json: {} }], continueOnFail = false, signal?: AbortSignal) {
	const { waitOptions, ...rest } = parameters as { waitOptions?: Record<string, unknown> };
	return cloud.harness.runNode(
		{
			type: 'hostCloud',
			parameters: {
				resource: 'workflow',
				operation: 'execute',
				workflow: JSON.stringify(txt2img()),
				...rest,
				waitOptions: { ...FAST_WAIT, ...waitOptions },
			},
			credentials: { hostCloudApi: cloud.credential },
			continueOnFail,
		},
		items,
		{ signal },
	);
}

/** The names of a job's files as the simulator stored them: what a complete result must list. */
const storedNames = (promptId: string): string[] => storedFiles(cloud.sim, promptId).map((file) => file.filename);

describe('on the WebSocket', () => {
	test('messages of other jobs of the account (interleaved) are ignored', async () => {
		const { sim } = cloud;
		expect(sim.options.interleaveOtherJobs).toBe(true);
		const result = await execute();
		expect(result.status).toBe('success');
		const json = result.items[0]!.json as Record<string, any>;
		// The other job's execution_error (OOM) did not fail ours, and its image is not in our list.
		expect(json.files.map((file: { filename: string }) => file.filename)).toEqual(storedNames(json.prompt_id));
		expect(json.files[0].filename).toMatch(/^lighthouse_/);
		expect(json.outputs_from_job_record).toBeUndefined();
	});

	test('keeps the last preview image when asked', async () => {
		const result = await execute({ additionalFields: { includePreview: true } });
		const preview = result.items[0]!.binary?.preview;
		expect(preview?.mimeType).toMatch(/^image\/(jpeg|png)$/);
		expect(preview?.fileName).toMatch(/^preview\.(jpg|png)$/);
	});
});

describe('without a WebSocket', () => {
	test('polls the status and reads the outputs from the job record when the runtime has no WebSocket', async () => {
		const { sim } = cloud;
		const result = await withoutWebSocket(() => execute());
		expect(result.status).toBe('success');
		const json = result.items[0]!.json as Record<string, any>;
		expect(json.status).toBe('completed');
		expect(json.outputs_from_job_record).toBe(true);
		expect(json.images.map((file: { filename: string }) => file.filename)).toEqual(storedNames(json.prompt_id));
		expect(sim.counters.wsConnections).toBe(0);
		expect(sim.cloud.wsHandshakes).toHaveLength(0);
		expect(sim.requestsTo('GET', `/api/job/${json.prompt_id}/status`).length).toBeGreaterThan(0);
		expect(sim.requestsTo('GET', `/api/jobs/${json.prompt_id}`)).toHaveLength(1);
		const file = await axios.get(json.images[0].url, { responseType: 'arraybuffer' });
		expect(file.status).toBe(200);
	});

	test('"Use Live Progress" off polls too', async () => {
		const result = await execute({ waitOptions: { useWebSocket: false } });
		expect(result.status).toBe('success');
		expect(cloud.sim.counters.wsConnections).toBe(0);
		expect(result.items[0]!.json.outputs_from_job_record).toBe(true);
	});

	test('fails clearly, naming the job, when the service keeps no outputs in its job record', async () => {
		cloud.sim.options.jobsEndpointOutputs = false;
		const result = await withoutWebSocket(() => execute({}, [{ json: {} }], true));
		expect(result.status).toBe('success');
		const json = result.items[0]!.json as Record<string, any>;
		expect(json.prompt_id).toEqual(expect.any(String));
		expect(json.error).toBe(
			`Job ${json.prompt_id} finished, but the progress connection was interrupted while it ran and the service's job record does not list its outputs, so the outputs may be incomplete`,
		);
		expect(json.images).toBeUndefined();
	});
});

describe('a socket that drops or goes silent', () => {
	test('a dropped socket on a batch: every item is accounted for, in order', async () => {
		const { sim } = cloud;
		sim.options.nodeMs = 5;
		sim.faults.dropWebSocket = { afterMessages: 60 };
		const items = Array.from({ length: 8 }, () => ({ json: {} }));
		const result = await execute({}, items);
		expect(result.status).toBe('success');
		expect(result.items.map((item) => item.pairedItem)).toEqual(items.map((_, i) => ({ item: i })));
		for (const item of result.items) {
			const json = item.json as Record<string, any>;
			expect(json.status).toBe('completed');
			expect(json.files.map((file: { filename: string }) => file.filename)).toEqual(storedNames(json.prompt_id));
		}
		expect(sim.counters.wsConnections).toBeGreaterThanOrEqual(2);
	});

	test('after a drop, a service without outputs in its job record makes the item fail as "may be incomplete"', async () => {
		const { sim } = cloud;
		sim.options.nodeMs = 20;
		sim.options.jobsEndpointOutputs = false;
		sim.faults.dropWebSocket = { afterMessages: 4 };
		const result = await execute({}, [{ json: {} }], true);
		const json = result.items[0]!.json as Record<string, any>;
		expect(json.error).toMatch(new RegExp(`^Job ${json.prompt_id} finished, .*outputs may be incomplete$`));
		expect(sim.cloud.jobs.get(json.prompt_id)?.status).toBe('completed');
	});
});

describe('execution errors', () => {
	const cases: Array<[string, RegExp]> = [
		['OOMError', /the cloud ran out of GPU memory/],
		['InsufficientFundsError', /the account balance is too low/],
		['InactiveSubscriptionError', /the subscription is not active/],
		['ValidationError', /the workflow or one of its inputs is invalid/],
		['ModelDownloadError', /a model the workflow needs is not available or could not be downloaded/],
		['ImageDownloadError', /an input image could not be downloaded from its URL/],
	];
	test.each(cases)('%s is reported in plain words, naming the job and the node', async (exceptionType, words) => {
		cloud.sim.cloud.failNextJob({ exception_type: exceptionType, exception_message: `simulated ${exceptionType}`, nodeId: '3' });
		const result = await execute({}, [{ json: {} }], true);
		const json = result.items[0]!.json as Record<string, any>;
		expect(json.error).toMatch(new RegExp(`^Job ${json.prompt_id} failed at node 3 \\(KSampler\\): `));
		expect(json.error).toMatch(words);
		expect(json.error).toContain(`${exceptionType}: simulated ${exceptionType}`);
		expect(json).toMatchObject({ exception_type: exceptionType, node_id: '3' });
		expect(json.errorDetails).toEqual(expect.any(String));
		expect(result.items[0]!.pairedItem).toEqual({ item: 0 });
	});

	test('without Continue On Fail the execution fails with the item index', async () => {
		cloud.sim.cloud.failNextJob({ exception_type: 'OOMError', exception_message: 'CUDA out of memory' });
		const result = await execute();
		expect(result.status).toBe('error');
		const error = result.error('Node') as unknown as { message: string; context: Record<string, unknown> };
		expect(error.message).toMatch(/^Job [0-9a-f-]{36} failed at node 9 \(SaveImage\): the cloud ran out of GPU memory/);
		expect(error.context.itemIndex).toBe(0);
	});

	test('a missing model fails the job as the real service does', async () => {
		const graph = txt2img();
		graph['4']!.inputs.ckpt_name = 'sd_xl_turbo_1.0_fp16.safetensors';
		const result = await execute({ workflow: JSON.stringify(graph) }, [{ json: {} }], true);
		expect(result.items[0]!.json.error).toMatch(/failed at node 4 \(CheckpointLoaderSimple\): a model the workflow needs is not available/);
	});

	test('a job cancelled by someone else fails its item as cancelled', async () => {
		const { sim } = cloud;
		sim.options.nodeMs = OUTLASTING_NODE_MS;
		const running = execute({}, [{ json: {} }], true);
		const job = await waitUntil(() => [...sim.cloud.jobs.values()].find((j) => j.status === 'in_progress'));
		await axios.post(`${sim.baseUrl}/api/queue`, { delete: [job.promptId] }, { headers: { 'X-API-Key': sim.apiKey } });
		const result = await running;
		expect(result.items[0]!.json.error).toBe(`Job ${job.promptId} was cancelled on the cloud before it finished`);
	});
});

describe('ending the wait', () => {
	test('a status read the service refuses (403) ends the wait at once, naming the job and the answer', async () => {
		const { sim } = cloud;
		sim.faults.http5xx = { count: 1000, pathPrefix: '/api/job/', status: 403 };
		const result = await execute({ waitOptions: { useWebSocket: false, maxWaitMinutes: 5 } }, [{ json: {} }], true);
		const json = result.items[0]!.json as Record<string, any>;
		expect(json.error).toMatch(/HTTP 403/);
		expect(json.error).not.toMatch(/Max Wait/);
		expect(json.prompt_id).toEqual(expect.any(String));
		// Asked once: a refusal does not change by asking again.
		expect(sim.requestsTo('GET', `/api/job/${json.prompt_id}/status`)).toHaveLength(1);
	});

	test('a 408 from the status endpoint is asked again, and the job completes', async () => {
		const { sim } = cloud;
		sim.faults.http5xx = { count: 2, pathPrefix: '/api/job/', status: 408 };
		const result = await execute({ waitOptions: { useWebSocket: false } });
		expect(result.status).toBe('success');
		expect(result.items[0]!.json.status).toBe('completed');
	});

	test('Max Wait cancels the job and names it', async () => {
		const { sim } = cloud;
		sim.options.nodeMs = OUTLASTING_NODE_MS;
		const result = await execute({ waitOptions: { maxWaitMinutes: 0.005 } }, [{ json: {} }], true);
		const json = result.items[0]!.json as Record<string, any>;
		expect(json.error).toBe(`Job ${json.prompt_id} did not finish within 0.3 seconds (Max Wait), so it was cancelled on the cloud`);
		expect(sim.cloud.jobs.get(json.prompt_id)?.status).toBe('cancelled');
		expect(sim.requestsTo('POST', '/api/interrupt')).toHaveLength(0);
	});

	test('Max Wait with "Leave It Running" leaves the job running', async () => {
		const { sim } = cloud;
		sim.options.nodeMs = OUTLASTING_NODE_MS;
		const result = await execute({ waitOptions: { maxWaitMinutes: 0.005, onTimeout: 'keep' } }, [{ json: {} }], true);
		const json = result.items[0]!.json as Record<string, any>;
		expect(json.error).toMatch(new RegExp(`^Job ${json.prompt_id} did not finish within 0.3 seconds \\(Max Wait\\); it is still running`));
		expect(json.errorDetails).toMatch(/Wait for Completion/);
		expect(sim.cloud.jobs.get(json.prompt_id)?.status).toMatch(/pending|in_progress/);
	});

	test('Stop (the execution cancel signal) ends the wait and cancels only this node’s jobs', async () => {
		const { sim } = cloud;
		sim.options.nodeMs = OUTLASTING_NODE_MS;
		// A job of the same account started elsewhere: it must survive.
		const other = await axios.post(`${sim.baseUrl}/api/prompt`, { prompt: txt2img() }, { headers: { 'X-API-Key': sim.apiKey } });
		const controller = new AbortController();
		const items = Array.from({ length: 4 }, () => ({ json: {} }));
		const running = execute({ additionalFields: { maxConcurrentJobs: 4 } }, items, false, controller.signal);
		await waitUntil(() => sim.requestsTo('POST', '/api/prompt').length === 5);
		await waitUntil(() => [...sim.cloud.jobs.values()].filter((job) => job.status === 'in_progress').length >= 2);
		controller.abort();
		const result = await running;
		expect(result.status).toBe('canceled');
		const mine = [...sim.cloud.jobs.values()].filter((job) => job.promptId !== other.data.prompt_id);
		expect(mine).toHaveLength(4);
		expect(mine.every((job) => job.status === 'cancelled')).toBe(true);
		expect(sim.cloud.jobs.get(other.data.prompt_id)?.status).not.toBe('cancelled');
		expect(sim.requestsTo('POST', '/api/interrupt')).toHaveLength(0);
		// Cancelled by id (queue delete): the jobs it knew, plus any whose submit answer the Stop cut off.
		const cancelled = sim.requestsTo('POST', '/api/queue').flatMap((request) => JSON.parse(request.body).delete as string[]);
		expect(cancelled.sort()).toEqual(mine.map((job) => job.promptId).sort());
	});

	test('an item failing without Continue On Fail cancels the other items’ jobs', async () => {
		const { sim } = cloud;
		sim.options.nodeMs = 150; // the other jobs are still running when the failure cancels them
		sim.cloud.failNextJob({ exception_type: 'OOMError', exception_message: 'CUDA out of memory', nodeId: '4' });
		const result = await execute({ additionalFields: { maxConcurrentJobs: 3 } }, [{ json: {} }, { json: {} }, { json: {} }]);
		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toMatch(/ran out of GPU memory/);
		const jobs = [...sim.cloud.jobs.values()];
		expect(jobs.filter((job) => job.status === 'failed')).toHaveLength(1);
		expect(jobs.filter((job) => job.status === 'cancelled').length).toBeGreaterThanOrEqual(1);
		expect(jobs.some((job) => job.status === 'pending' || job.status === 'in_progress')).toBe(false);
	});
});
