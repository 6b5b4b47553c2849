/**
 * n8n's Stop at the moments an Execute run is between two requests, on both flavours of the
 * simulator: during an item's Input Images upload (in its place), during a finished job's download
 * while the next job runs, while submits wait out a 429, and under Continue On Fail. Each time the
 * run ends canceled, nothing more is submitted and no job of the run is left on the server.
 */
import * as cloudApi from '../../../nodes/HostCloud/transport/cloud-api';
import { cloudForSuite, FAST_WAIT, OUTLASTING_NODE_MS, TINY_PNG, txt2img, waitUntil } from '../../support/cloud';

describe.each([{ flavour: 'cloud' as const }, { flavour: 'self-hosted' as const }])('$flavour', ({ flavour }) => {
	const cloud = cloudForSuite({ flavour, parallelLimit: 10 });
	const jobs = () => [...cloud.sim.cloud.jobs.values()];
	const open = () => jobs().filter((job) => ['pending', 'in_progress'].includes(job.status));
	const submittedItems = () =>
		cloud.sim.requestsTo('POST', '/api/prompt').map((request) => JSON.parse(request.body).extra_data.n8n.item_index as number);
	afterEach(() => jest.restoreAllMocks());

	const image = { data: { data: TINY_PNG.toString('base64'), fileName: 'cat.png', mimeType: 'image/png' } };
	const graph = {
		'1': { class_type: 'LoadImage', inputs: { image: 'placeholder.png' } },
		'2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'x' } },
	};

	test('Stop during item 1’s upload (Max Concurrent Jobs 2): item 1 is never submitted, item 0’s job is cancelled', async () => {
		cloud.sim.options.nodeMs = OUTLASTING_NODE_MS;
		const stop = new AbortController();
		const original = cloudApi.uploadFile;
		// Item 1's upload, whichever of the two places calls first (a busy machine may start item 1 first).
		jest.spyOn(cloudApi, 'uploadFile').mockImplementation(async (context, upload, options) => {
			if (options.itemIndex === 1) {
				await waitUntil(() => jobs().length >= 1 && jobs()[0]!.status === 'in_progress', 5000);
				stop.abort();
			}
			return await original(context, upload, options);
		});
		const result = await cloud.harness.runNode(
			{
				type: 'hostCloud',
				parameters: {
					resource: 'workflow',
					operation: 'execute',
					workflow: JSON.stringify(graph),
					inputImages: { values: [{ binaryPropertyName: 'data', nodeId: '1' }] },
					downloadFiles: false,
					waitOptions: { ...FAST_WAIT },
					additionalFields: { maxConcurrentJobs: 2 },
				},
				credentials: { hostCloudApi: cloud.credential },
			},
			[0, 1, 2].map(() => ({ json: {}, binaryBase64: image })),
			{ signal: stop.signal },
		);
		expect(result.status).toBe('canceled');
		expect(submittedItems()).toEqual([0]);
		expect(open()).toHaveLength(0);
	}, 30_000);

	test('Stop while a finished job’s files download (Max Concurrent Jobs 1): the next job is cancelled, nothing more submitted', async () => {
		cloud.sim.options.nodeMs = 5;
		cloud.sim.cloud.setOutputSize(64 * 1024 * 1024);
		const stop = new AbortController();
		const original = cloudApi.submitPrompt;
		jest.spyOn(cloudApi, 'submitPrompt').mockImplementation(async (...args) => {
			const answer = await original(...args);
			// The second job runs long; the first one's file is still coming down.
			cloud.sim.options.nodeMs = OUTLASTING_NODE_MS;
			if (submittedItems().length === 2) setImmediate(() => stop.abort());
			return answer;
		});
		const result = await cloud.harness.runNode(
			{
				type: 'hostCloud',
				parameters: {
					resource: 'workflow',
					operation: 'execute',
					workflow: JSON.stringify(txt2img()),
					waitOptions: { ...FAST_WAIT },
					additionalFields: { maxConcurrentJobs: 1 },
				},
				credentials: { hostCloudApi: cloud.credential },
			},
			[0, 1, 2].map(() => ({ json: {} })),
			{ signal: stop.signal },
		);
		expect(result.status).toBe('canceled');
		expect(submittedItems()).toEqual([0, 1]);
		await waitUntil(() => open().length === 0, 5000).catch(() => undefined);
		expect(open()).toHaveLength(0);
	}, 60_000);

	test('Stop while a submit waits out a 429: nothing more is sent, and the run ends', async () => {
		cloud.sim.options.nodeMs = OUTLASTING_NODE_MS;
		cloud.sim.faults.slowDown = { method: 'POST', pathPrefix: '/api/prompt', count: 1000, retryAfter: '30' } as never;
		const stop = new AbortController();
		const running = cloud.harness.runNode(
			{
				type: 'hostCloud',
				parameters: {
					resource: 'workflow',
					operation: 'execute',
					workflow: JSON.stringify(txt2img()),
					downloadFiles: false,
					waitOptions: { ...FAST_WAIT, maxWaitMinutes: 5 },
				},
				credentials: { hostCloudApi: cloud.credential },
			},
			[0, 1, 2, 3].map(() => ({ json: {} })),
			{ signal: stop.signal },
		);
		await waitUntil(() => cloud.sim.requestsTo('POST', '/api/prompt').length >= 3, 5000);
		const before = cloud.sim.requestsTo('POST', '/api/prompt').length;
		stop.abort();
		const result = await running;
		expect(result.status).toBe('canceled');
		expect(cloud.sim.requestsTo('POST', '/api/prompt').length).toBe(before);
		expect(jobs()).toHaveLength(0);
	}, 30_000);
});

describe.each([{ flavour: 'cloud' as const }, { flavour: 'self-hosted' as const }])('$flavour, Continue On Fail', ({ flavour }) => {
	const cloud = cloudForSuite({ flavour, parallelLimit: 10 });
	const jobs = () => [...cloud.sim.cloud.jobs.values()];
	const open = () => jobs().filter((job) => ['pending', 'in_progress'].includes(job.status));

	test('Stop with Continue On Fail (6 items, Max Concurrent Jobs 2): nothing more submitted, nothing left running, canceled', async () => {
		cloud.sim.options.nodeMs = OUTLASTING_NODE_MS;
		const stop = new AbortController();
		const running = cloud.harness.runNode(
			{
				type: 'hostCloud',
				parameters: {
					resource: 'workflow',
					operation: 'execute',
					workflow: JSON.stringify(txt2img()),
					downloadFiles: false,
					waitOptions: { ...FAST_WAIT },
					additionalFields: { maxConcurrentJobs: 2 },
				},
				credentials: { hostCloudApi: cloud.credential },
				continueOnFail: true,
			},
			[0, 1, 2, 3, 4, 5].map(() => ({ json: {} })),
			{ signal: stop.signal },
		);
		await waitUntil(() => jobs().filter((job) => job.status === 'in_progress').length >= (flavour === 'cloud' ? 2 : 1));
		stop.abort();
		const result = await running;
		expect(result.status).toBe('canceled');
		expect(cloud.sim.requestsTo('POST', '/api/prompt')).toHaveLength(2);
		expect(open()).toHaveLength(0);
	}, 30_000);
});
