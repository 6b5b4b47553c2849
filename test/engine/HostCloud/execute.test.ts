/**
 * Host Cloud → Workflow → Execute through n8n's engine against the simulator: text-to-image end to
 * end (URLs the storage host serves, and files as binary data), many items over one WebSocket,
 * file references of every shape, partner nodes, inputs set without editing JSON.
 */
import axios from 'axios';

import { readBinary } from '../../support/engine';
import { cloudForSuite, type Graph, txt2img } from '../../support/cloud';

const cloud = cloudForSuite();

function execute(parameters: Record<string, unknown>, items = [{ json: {} }], continueOnFail = false) {
	return cloud.harness.runNode(
		{
			type: 'hostCloud',
			parameters: { resource: 'workflow', operation: 'execute', ...parameters },
			credentials: { hostCloudApi: cloud.credential },
			continueOnFail,
		},
		items,
	);
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe('text-to-image end to end', () => {
	test('with Download Files off, returns output URLs that the storage host serves', async () => {
		const { sim } = cloud;
		const result = await execute({ workflow: JSON.stringify(txt2img()), downloadFiles: false });
		expect(result.status).toBe('success');
		expect(result.items).toHaveLength(1);
		const item = result.items[0]!;
		const json = item.json as Record<string, any>;
		expect(json.status).toBe('completed');
		expect(sim.cloud.jobs.get(json.prompt_id)?.status).toBe('completed');
		expect(json.images).toHaveLength(1);
		expect(json.images[0]).toMatchObject({
			filename: expect.stringMatching(/^lighthouse_\d{5}_\.png$/),
			subfolder: '',
			type: 'output',
			node_id: '9',
			mime_type: 'image/png',
			url: expect.stringContaining(sim.storageUrl),
		});
		expect(json.files).toEqual(json.images);
		expect(json.videos).toEqual([]);
		expect(item.pairedItem).toEqual({ item: 0 });
		expect(item.binary).toBeUndefined();

		const file = await axios.get(json.images[0].url, { responseType: 'arraybuffer' });
		expect(file.status).toBe(200);
		expect(Buffer.from(file.data).subarray(0, 8)).toEqual(PNG_SIGNATURE);
		expect(sim.counters.storageCredentialAttempts).toBe(0);
		expect(sim.counters.wsConnections).toBe(1);
		// Happy path: one submit and one view per file; no status polls.
		expect(sim.requestsTo('POST', '/api/prompt')).toHaveLength(1);
		expect(sim.requestsTo('GET', '/api/view')).toHaveLength(1);
		expect(sim.requestsTo('GET', '/api/job')).toHaveLength(0);
		// The WebSocket carried the key as its token and a unique clientId; the log never holds the key.
		expect(sim.cloud.wsHandshakes[0]).toMatchObject({ path: '/ws', accepted: true, clientId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
		expect(JSON.stringify(sim.requests)).not.toContain(sim.apiKey);
	});

	test('the same run left at its defaults: the files also as binary data, bytes equal what the storage serves', async () => {
		const { sim } = cloud;
		const result = await execute({ workflow: JSON.stringify(txt2img()) });
		expect(result.status).toBe('success');
		const item = result.items[0]!;
		const json = item.json as Record<string, any>;
		expect(json.images[0].binary_property).toBe('data');
		const binary = item.binary!.data!;
		expect(binary).toMatchObject({ mimeType: 'image/png', fileName: json.images[0].filename });
		const bytes = await readBinary(binary);
		const served = await axios.get(json.images[0].url, { responseType: 'arraybuffer' });
		expect(bytes.equals(Buffer.from(served.data))).toBe(true);
		expect(bytes.subarray(0, 8)).toEqual(PNG_SIGNATURE);
		expect(sim.counters.storageCredentialAttempts).toBe(0);
	});
});

describe('many items', () => {
	test('20 items with Max Concurrent Jobs 3 against a limit of 3 complete in order over ONE WebSocket', async () => {
		const { sim } = cloud;
		sim.options.nodeMs = 2;
		const items = Array.from({ length: 20 }, (_, i) => ({ json: { prompt: `lighthouse number ${i}` } }));
		const result = await execute(
			{
				workflow: JSON.stringify(txt2img()),
				inputOverrides: { values: [{ nodeId: '6', inputName: 'text', value: '={{ $json.prompt }}' }] },
				additionalFields: { maxConcurrentJobs: 3 },
			},
			items,
		);
		expect(result.status).toBe('success');
		expect(result.items).toHaveLength(20);
		expect(result.items.map((item) => item.pairedItem)).toEqual(items.map((_, i) => ({ item: i })));
		expect(sim.counters.wsConnections).toBe(1);
		const ids = result.items.map((item) => item.json.prompt_id as string);
		expect(new Set(ids).size).toBe(20);
		// Each item's own prompt reached its own job, in item order.
		ids.forEach((id, i) => {
			const job = sim.cloud.jobs.get(id)!;
			expect(job.status).toBe('completed');
			expect((job as unknown as { graph: Graph }).graph['6']!.inputs.text).toBe(`lighthouse number ${i}`);
		});
		// Never more than 3 running at once (the node does not over-submit), and none waited in the cloud queue.
		const jobs = ids.map((id) => sim.cloud.jobs.get(id)!);
		for (const job of jobs) {
			const running = jobs.filter((other) => other.startedAt! <= job.startedAt! && other.finishedAt! > job.startedAt!);
			expect(running.length).toBeLessThanOrEqual(3);
			// When it was submitted, a slot was free: it did not wait behind the node's own jobs.
			const busy = jobs.filter((other) => other !== job && other.startedAt! <= job.submittedAt && other.finishedAt! > job.submittedAt);
			expect(busy.length).toBeLessThanOrEqual(2);
		}
		// At most ~3 HTTP requests per job: submit, view (plus one node-definitions read per run).
		const perJob = sim.requestsTo(undefined, '/api/').length / 20;
		expect(perJob).toBeLessThanOrEqual(2.1);
		expect(sim.requestsTo('GET', '/api/job')).toHaveLength(0);
	});
});
