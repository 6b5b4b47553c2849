/**
 * Execute's places on the cloud: Max Concurrent Jobs counts jobs on the cloud, not the download of
 * a finished job's files; without Continue On Fail the first failure stops the items waiting for a
 * place (the run gives the failed item's place back only once the stop has fired), so nothing is
 * submitted only to be cancelled; a Stop while items wait for a place submits nothing more and
 * cancels what ran.
 */
import * as cloudApi from '../../../nodes/HostCloud/transport/cloud-api';
import * as jobItem from '../../../nodes/HostCloud/helpers/jobs/job-item';
import { cloudForSuite, FAST_WAIT, OUTLASTING_NODE_MS, txt2img, waitUntil } from '../../support/cloud';

const cloud = cloudForSuite();

function execute(maxConcurrentJobs: number, items: Array<{ json: Record<string, unknown> }>, continueOnFail = false, signal?: AbortSignal) {
	return cloud.harness.runNode(
		{
			type: 'hostCloud',
			parameters: {
				resource: 'workflow',
				operation: 'execute',
				workflow: JSON.stringify(txt2img()),
				downloadFiles: false,
				waitOptions: { ...FAST_WAIT },
				additionalFields: { maxConcurrentJobs },
			},
			credentials: { hostCloudApi: cloud.credential },
			continueOnFail,
		},
		items,
		{ signal },
	);
}

afterEach(() => jest.restoreAllMocks());

test('Max Concurrent Jobs 1: the next item is submitted while the finished job’s item is still being made (files)', async () => {
	const submits = jest.spyOn(cloudApi, 'submitPrompt');
	const original = jobItem.finishedJobItem;
	let submittedDuringFirstItem = -1;
	jest.spyOn(jobItem, 'finishedJobItem').mockImplementation(async (context, job, itemIndex, options) => {
		if (itemIndex === 0) {
			// Held until the second item's submit has gone out (or 3 s): a place held during the files would never let it.
			await waitUntil(() => submits.mock.calls.length >= 2, 3000).catch(() => undefined);
			submittedDuringFirstItem = submits.mock.calls.length;
		}
		return await original(context, job, itemIndex, options);
	});
	const result = await execute(1, [{ json: {} }, { json: {} }]);
	expect(result.status).toBe('success');
	expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	expect(submittedDuringFirstItem).toBe(2);
});

test('Max Concurrent Jobs 1, no Continue On Fail: the first job failing stops the items still waiting for a place', async () => {
	const { sim } = cloud;
	sim.cloud.failNextJob({ exception_type: 'OOMError', exception_message: 'CUDA out of memory', nodeId: '4' });
	const result = await execute(1, [{ json: {} }, { json: {} }, { json: {} }]);
	expect(result.status).toBe('error');
	expect(result.error('Node')?.message).toMatch(/ran out of GPU memory/);
	expect(sim.requestsTo('POST', '/api/prompt')).toHaveLength(1);
});

test('Max Concurrent Jobs 1, Continue On Fail: a failed job is its item’s output, the others run, in item order', async () => {
	const { sim } = cloud;
	sim.cloud.failNextJob({ exception_type: 'OOMError', exception_message: 'CUDA out of memory', nodeId: '4' });
	const result = await execute(1, [{ json: {} }, { json: {} }, { json: {} }], true);
	expect(result.status).toBe('success');
	expect(result.items).toHaveLength(3);
	expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
	expect(result.items[0]!.json.error).toMatch(/ran out of GPU memory/);
	expect(result.items[1]!.json.status).toBe('completed');
	expect(result.items[2]!.json.status).toBe('completed');
	expect(sim.requestsTo('POST', '/api/prompt')).toHaveLength(3);
});

test('Stop while items wait for a place: nothing more is submitted, the running job is cancelled, one "canceled" error', async () => {
	const { sim } = cloud;
	sim.options.nodeMs = OUTLASTING_NODE_MS;
	const controller = new AbortController();
	const running = execute(1, [{ json: {} }, { json: {} }, { json: {} }], false, controller.signal);
	await waitUntil(() => [...sim.cloud.jobs.values()].some((job) => job.status === 'in_progress'));
	controller.abort();
	const result = await running;
	expect(result.status).toBe('canceled');
	expect(sim.requestsTo('POST', '/api/prompt')).toHaveLength(1);
	expect([...sim.cloud.jobs.values()].every((job) => job.status === 'cancelled')).toBe(true);
});

describe('a place is given back on every way out of an item', () => {
	const three = () => [{ json: {} }, { json: {} }, { json: {} }];

	test('a submit that throws after the place was taken (Continue On Fail: the others run)', async () => {
		const original = cloudApi.submitPrompt;
		let calls = 0;
		jest.spyOn(cloudApi, 'submitPrompt').mockImplementation(async (...args) => {
			if (calls++ === 0) throw new Error('boom before the cloud');
			return await original(...args);
		});
		const result = await execute(1, three(), true);
		expect(result.status).toBe('success');
		expect(result.items.map((item) => item.json.error ?? item.json.status)).toEqual([
			expect.stringMatching(/boom/),
			'completed',
			'completed',
		]);
	});

	test('a submit that throws, no Continue On Fail: one submit, the waiting items are not submitted, no hang', async () => {
		const submits = jest.spyOn(cloudApi, 'submitPrompt').mockImplementation(async () => {
			throw new Error('boom before the cloud');
		});
		const result = await execute(1, three(), false);
		expect(result.status).toBe('error');
		expect(submits).toHaveBeenCalledTimes(1);
	});

	test('a finished job whose files fail (Continue On Fail): the next items still get their place', async () => {
		const original = jobItem.finishedJobItem;
		jest.spyOn(jobItem, 'finishedJobItem').mockImplementation(async (context, job, itemIndex, options) => {
			if (itemIndex === 0) throw new Error('files could not be read');
			return await original(context, job, itemIndex, options);
		});
		const result = await execute(1, three(), true);
		expect(result.items.map((item) => item.json.error ?? item.json.status)).toEqual([
			expect.stringMatching(/files could not be read/),
			'completed',
			'completed',
		]);
	});
});
