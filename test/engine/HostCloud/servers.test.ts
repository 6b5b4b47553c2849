/**
 * The behaviour Host Cloud users rely on, on both servers it runs on: the cloud, and a self-hosted
 * ComfyUI-compatible server behind a reverse proxy that wants a header (no job status route: the
 * node reads the history and queue; files answered by /api/view itself; a queue delete that leaves
 * the running job alone). Through n8n's engine against the simulator's two flavours: Execute single
 * and batch, a dropped or silent socket and polling only (outputs recovered, never partial), files
 * as binary data, Input Images uploads, Wait for Completion, cancel of queued and running jobs
 * (Cancel Jobs, Stop, Max Wait) without touching anyone else's job.
 */
import axios from 'axios';

import { readBinary } from '../../support/engine';
import {
	cloudForSuite,
	FAST_WAIT,
	OUTLASTING_NODE_MS,
	storedFiles,
	TINY_PNG as PNG,
	txt2img,
	waitUntil,
	withoutWebSocket,
	type Graph,
} from '../../support/cloud';

describe.each(['cloud', 'self-hosted'] as const)('on a %s server', (flavour) => {
	const selfHosted = flavour === 'self-hosted';
	/** Where the node says a job ran. */
	const place = selfHosted ? 'your server' : 'the cloud';

	// One job at a time on both (the self-hosted server's only way), so a second job waits in the queue.
	const cloud = cloudForSuite({ flavour, parallelLimit: 1 });

	function run(
		parameters: Record<string, unknown>,
		items: Array<Record<string, unknown>> = [{ json: {} }],
		options: { continueOnFail?: boolean; signal?: AbortSignal } = {},
	) {
		const { waitOptions, ...rest } = parameters as { waitOptions?: Record<string, unknown>; operation?: string };
		const operation = rest.operation ?? 'execute';
		const waits = operation === 'execute' || operation === 'waitForCompletion';
		return cloud.harness.runNode(
			{
				type: 'hostCloud',
				parameters: {
					resource: 'workflow',
					operation,
					...(operation === 'execute' ? { workflow: JSON.stringify(txt2img()) } : {}),
					...rest,
					...(waits ? { waitOptions: { ...FAST_WAIT, ...waitOptions } } : {}),
				},
				credentials: { hostCloudApi: cloud.credential },
				continueOnFail: options.continueOnFail,
			},
			items as never,
			{ signal: options.signal },
		);
	}

	/** The names of a job's files as the simulator stored them: what a complete result must list. */
	const storedNames = (promptId: string): string[] => storedFiles(cloud.sim, promptId).map((file) => file.filename);

	/** A job someone else submitted directly to the server. */
	/** Another user's job: its own seed, as a real server would otherwise answer ours from its cache. */
	async function otherJob(): Promise<string> {
		const prompt = txt2img();
		prompt['3']!.inputs.seed = 424242;
		const answer = await axios.post(`${cloud.sim.baseUrl}/api/prompt`, { prompt, client_id: 'someone-else' }, { headers: cloud.headers });
		return answer.data.prompt_id as string;
	}

	/** Every request reached the server with the credential it wants, and nothing of the other kind. */
	function expectCredentialOnEveryRequest(): void {
		const requests = cloud.sim.requests.filter((request) => request.host === 'service');
		expect(requests.length).toBeGreaterThan(0);
		for (const request of requests) {
			const headers = Object.keys(request.headers).map((name) => name.toLowerCase());
			expect(headers.includes('x-proxy-token')).toBe(selfHosted);
			expect(headers.includes('x-api-key')).toBe(!selfHosted);
		}
	}

	describe('Execute', () => {
		test('one item: its files as links and as binary data, byte for byte what the server serves', async () => {
			const { sim } = cloud;
			const result = await run({ downloadFiles: true });
			expect(result.status).toBe('success');
			const item = result.items[0]!;
			const json = item.json as Record<string, any>;
			expect(json.status).toBe('completed');
			expect(item.pairedItem).toEqual({ item: 0 });
			expect(json.images.map((file: { filename: string }) => file.filename)).toEqual(storedNames(json.prompt_id));
			const url = json.images[0].url as string;
			// The cloud's link is signed storage, fetched with no credential; the server's is its own /api/view.
			expect(url.startsWith(selfHosted ? `${sim.baseUrl}/api/view?` : sim.storageUrl)).toBe(true);
			const served = await axios.get(url, { responseType: 'arraybuffer', headers: selfHosted ? cloud.headers : {} });
			const bytes = await readBinary(item.binary!.data!);
			expect(bytes.equals(Buffer.from(served.data))).toBe(true);
			expect(item.binary!.data).toMatchObject({ mimeType: 'image/png', fileName: json.images[0].filename });
			// Connected before the submit, one socket, and the run's client_id sent so messages reach it.
			expect(sim.counters.wsConnections).toBe(1);
			expect(sim.cloud.wsHandshakes[0]).toMatchObject({ accepted: true, clientId: sim.cloud.jobs.get(json.prompt_id)!.clientId });
			expect(sim.counters.storageCredentialAttempts).toBe(0);
			expectCredentialOnEveryRequest();
		});

		test('a batch over one socket: every item paired, each with all of its own files and none of another’s', async () => {
			const { sim } = cloud;
			const items = Array.from({ length: 6 }, (_, index) => ({ json: { index } }));
			const result = await run({ additionalFields: { maxConcurrentJobs: 3 } }, items);
			expect(result.status).toBe('success');
			expect(result.items.map((item) => item.pairedItem)).toEqual(items.map((_, item) => ({ item })));
			const ids = result.items.map((item) => item.json.prompt_id as string);
			expect(new Set(ids).size).toBe(6);
			for (const item of result.items) {
				const json = item.json as Record<string, any>;
				expect(json.status).toBe('completed');
				expect(json.files.map((file: { filename: string }) => file.filename)).toEqual(storedNames(json.prompt_id));
			}
			expect(sim.counters.wsConnections).toBe(1);
		});

		test('a dropped socket is reopened and the outputs are recovered whole', async () => {
			const { sim } = cloud;
			// The job outlasts the reconnect (about 0.1 s) by far: on a loaded machine a 0.14 s job
			// caught up on its deadlines and ended before the socket was back.
			sim.options.nodeMs = 400;
			sim.faults.dropWebSocket = { afterMessages: 4 };
			const result = await run({});
			expect(result.status).toBe('success');
			const json = result.items[0]!.json as Record<string, any>;
			expect(json.status).toBe('completed');
			expect(json.images.map((file: { filename: string }) => file.filename)).toEqual(storedNames(json.prompt_id));
			expect(json.outputs_from_job_record).toBe(true);
			expect(sim.counters.wsConnections).toBe(2);
			const record = selfHosted ? `/api/history/${json.prompt_id}` : `/api/jobs/${json.prompt_id}`;
			expect(sim.requestsTo('GET', record).length).toBeGreaterThan(0);
		});

		test('a silent socket: polls find the finished job, whose outputs come whole from the record or history', async () => {
			const { sim } = cloud;
			sim.options.nodeMs = 10;
			sim.faults.silenceWebSocket = { afterMessages: 3, ms: 600_000 };
			const result = await run({ waitOptions: { silenceSeconds: 0.2, pollIntervalSeconds: 0.05 } });
			expect(result.status).toBe('success');
			const json = result.items[0]!.json as Record<string, any>;
			expect(json.images.map((file: { filename: string }) => file.filename)).toEqual(storedNames(json.prompt_id));
			expect(json.outputs_from_job_record).toBe(true);
			// The self-hosted server has no status route: its history and queue answer instead.
			expect(sim.requestsTo('GET', `/api/job/${json.prompt_id}/status`).length > 0).toBe(!selfHosted);
			expect(sim.requestsTo('GET', `/api/history/${json.prompt_id}`).length > 0).toBe(selfHosted);
		});

		test('without a WebSocket, polling alone brings every item with all its files', async () => {
			const items = Array.from({ length: 3 }, () => ({ json: {} }));
			const result = await withoutWebSocket(async () => await run({}, items));
			expect(result.status).toBe('success');
			const clientIds = new Set<string | undefined>();
			for (const item of result.items) {
				const json = item.json as Record<string, any>;
				expect(json.files.map((file: { filename: string }) => file.filename)).toEqual(storedNames(json.prompt_id));
				clientIds.add(cloud.sim.cloud.jobs.get(json.prompt_id)!.clientId);
			}
			// No socket for this run (a socket of an earlier test may still be closing).
			expect(cloud.sim.cloud.wsHandshakes.filter((handshake) => clientIds.has(handshake.clientId))).toEqual([]);
		});

		test('"Input Images" uploads the binary and wires it into the Load Image node', async () => {
			const { sim } = cloud;
			const graph: Graph = {
				'1': { class_type: 'LoadImage', inputs: { image: 'example.png' } },
				'2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'from_upload' } },
			};
			const result = await run(
				{ workflow: JSON.stringify(graph), inputImages: { values: [{ binaryPropertyName: 'data', nodeId: '1' }] }, downloadFiles: true },
				[{ json: {}, binaryBase64: { data: { data: PNG.toString('base64'), fileName: 'cat.png', mimeType: 'image/png' } } }],
			);
			expect(result.status).toBe('success');
			expect(sim.cloud.uploads).toHaveLength(1);
			const upload = sim.cloud.uploads[0]!;
			expect(upload).toMatchObject({ type: 'input', size: PNG.length, mask: false });
			const job = sim.cloud.jobs.get(result.items[0]!.json.prompt_id as string) as unknown as { graph: Graph };
			expect(job.graph['1']!.inputs.image).toBe(upload.name);
			const item = result.items[0]!;
			expect((item.json.images as Array<{ filename: string }>)[0]!.filename).toMatch(/^from_upload_/);
			expect(item.binary?.data?.mimeType).toBe('image/png');
			expect((await readBinary(item.binary!.data!)).subarray(0, 8)).toEqual(PNG.subarray(0, 8));
		});

		test('a job that fails names the job, the node and where it ran', async () => {
			cloud.sim.cloud.failNextJob({ exception_type: 'OOMError', exception_message: 'CUDA out of memory', nodeId: '4' });
			const result = await run({}, [{ json: {} }], { continueOnFail: true });
			const json = result.items[0]!.json as Record<string, any>;
			expect(json.error).toBe(
				`Job ${json.prompt_id} failed at node 4 (CheckpointLoaderSimple): ${place} ran out of GPU memory (OOMError: CUDA out of memory)`,
			);
		});
	});

	describe('waiting for jobs submitted earlier', () => {
		test('Submit, then Wait for Completion collects the whole outputs', async () => {
			const { sim } = cloud;
			sim.options.nodeMs = 30;
			const submitted = await run({ operation: 'submit', workflow: JSON.stringify(txt2img()) });
			const promptId = submitted.items[0]!.json.prompt_id as string;
			const waited = await run({ operation: 'waitForCompletion', promptId });
			expect(waited.status).toBe('success');
			const json = waited.items[0]!.json as Record<string, any>;
			expect(json).toMatchObject({ prompt_id: promptId, status: 'completed', outputs_from_job_record: true });
			expect(json.images.map((file: { filename: string }) => file.filename)).toEqual(storedNames(promptId));
		});

		test('Get Status tells queued, running and finished apart, with the outputs once done', async () => {
			const { sim } = cloud;
			sim.options.nodeMs = 80;
			const first = await run({ operation: 'submit', workflow: JSON.stringify(txt2img()) });
			const promptId = first.items[0]!.json.prompt_id as string;
			await waitUntil(() => sim.cloud.jobs.get(promptId)?.status === 'in_progress');
			const running = await run({ operation: 'getStatus', promptId });
			expect(running.items[0]!.json).toMatchObject({ prompt_id: promptId, status: 'in_progress', state: 'running', finished: false });
			await waitUntil(() => sim.cloud.jobs.get(promptId)?.status === 'completed', 10_000);
			const done = await run({ operation: 'getStatus', promptId, additionalFields: { includeOutputs: true } });
			const json = done.items[0]!.json as Record<string, any>;
			expect(json).toMatchObject({ status: 'completed', state: 'completed', finished: true });
			expect(json.images.map((file: { filename: string }) => file.filename)).toEqual(storedNames(promptId));
		});
	});

	describe('cancelling', () => {
		test('Cancel Jobs stops a running and a queued job of ours, and nobody else’s', async () => {
			const { sim } = cloud;
			// Ours runs until it is cancelled, however slow the machine; the other job, started after
			// it, runs at the usual pace (a job's node time is fixed when it starts).
			sim.options.nodeMs = OUTLASTING_NODE_MS;
			const submitted = await run({ operation: 'submit', workflow: JSON.stringify(txt2img()) }, [{ json: {} }, { json: {} }]);
			const [running, queued] = submitted.items.map((item) => item.json.prompt_id as string) as [string, string];
			const other = await otherJob();
			await waitUntil(() => sim.cloud.jobs.get(running)?.status === 'in_progress');
			expect(sim.cloud.jobs.get(queued)?.status).toBe('pending');
			sim.options.nodeMs = 20;
			const result = await cloud.harness.runNode(
				{
					type: 'hostCloud',
					parameters: { resource: 'queue', operation: 'cancelJobs', promptIds: `${running}, ${queued}` },
					credentials: { hostCloudApi: cloud.credential },
				},
				[{ json: {} }],
			);
			expect(result.status).toBe('success');
			expect(result.items[0]!.json).toMatchObject({ requested: [running, queued], not_cancelled: [] });
			expect((result.items[0]!.json.cancelled as string[]).sort()).toEqual([running, queued].sort());
			await waitUntil(() => sim.cloud.jobs.get(running)?.status === 'cancelled');
			expect(sim.cloud.jobs.get(queued)?.status).toBe('cancelled');
			await waitUntil(() => sim.cloud.jobs.get(other)?.status === 'completed', 10_000);
			// Never a global interrupt: every interrupt names one of ours.
			for (const request of sim.requestsTo('POST', '/api/interrupt')) expect(JSON.parse(request.body)).toEqual({ prompt_id: running });
		});

		test('Stop cancels this run’s jobs, queued or running, and leaves another client’s job alone', async () => {
			const { sim } = cloud;
			sim.options.nodeMs = 100;
			const other = await otherJob();
			// The other job runs first (one at a time) and ends; ours, started after it, run until cancelled.
			sim.options.nodeMs = OUTLASTING_NODE_MS;
			const controller = new AbortController();
			const items = Array.from({ length: 3 }, () => ({ json: {} }));
			const execution = run({ additionalFields: { maxConcurrentJobs: 3 } }, items, { signal: controller.signal });
			await waitUntil(() => sim.requestsTo('POST', '/api/prompt').length === 4);
			// Stop once one of ours is running (on the self-hosted server the others wait in its queue).
			await waitUntil(() => [...sim.cloud.jobs.values()].some((job) => job.promptId !== other && job.status === 'in_progress'), 10_000);
			controller.abort();
			const result = await execution;
			expect(result.status).toBe('canceled');
			const mine = [...sim.cloud.jobs.values()].filter((job) => job.promptId !== other);
			expect(mine).toHaveLength(3);
			await waitUntil(() => mine.every((job) => job.status === 'cancelled'));
			expect(sim.cloud.jobs.get(other)?.status).not.toBe('cancelled');
			for (const request of sim.requestsTo('POST', '/api/interrupt')) {
				expect(mine.map((job) => job.promptId)).toContain(JSON.parse(request.body).prompt_id);
			}
		});

		test('Max Wait cancels the job on the server and says so', async () => {
			const { sim } = cloud;
			sim.options.nodeMs = 2000;
			const result = await run({ waitOptions: { maxWaitMinutes: 0.005 } }, [{ json: {} }], { continueOnFail: true });
			const json = result.items[0]!.json as Record<string, any>;
			expect(json.error).toBe(`Job ${json.prompt_id} did not finish within 0.3 seconds (Max Wait), so it was cancelled on ${place}`);
			await waitUntil(() => sim.cloud.jobs.get(json.prompt_id)?.status === 'cancelled');
		});

		test('a job interrupted by someone else fails its item as cancelled where it ran', async () => {
			const { sim } = cloud;
			sim.options.nodeMs = OUTLASTING_NODE_MS;
			const execution = run({}, [{ json: {} }], { continueOnFail: true });
			const job = await waitUntil(() => [...sim.cloud.jobs.values()].find((candidate) => candidate.status === 'in_progress'));
			// Someone presses Cancel in the server's own queue view.
			const cancel = selfHosted
				? { path: '/api/interrupt', body: { prompt_id: job.promptId } }
				: { path: '/api/queue', body: { delete: [job.promptId] } };
			await axios.post(`${sim.baseUrl}${cancel.path}`, cancel.body, { headers: cloud.headers });
			const result = await execution;
			expect(result.items[0]!.json.error).toBe(`Job ${job.promptId} was cancelled on ${place} before it finished`);
		});
	});
});
