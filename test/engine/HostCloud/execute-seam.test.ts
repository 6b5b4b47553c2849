/**
 * The seam between Execute's items and their places on the cloud (issue 44), through n8n's engine
 * against the simulator: without Continue On Fail a place comes back only once a failure has
 * stopped the run, whatever failed (a submit the service refused, an upload, a finished job's
 * files), so an item waiting for that place is not submitted and the node's error is the failed
 * item's; an execution stopped before an item's turn submits nothing for it and leaves an earlier
 * try's memory as it was; a Retry On Fail follows an earlier try's job still running, in a place;
 * an item's Input Images are uploaded in its place, so a run uploads for no more items at once
 * than it runs jobs.
 * execute-places.test.ts holds the cases of a job failing on the cloud and of Stop.
 */
import * as cloudApi from '../../../nodes/HostCloud/transport/cloud-api';
import * as jobItem from '../../../nodes/HostCloud/helpers/jobs/job-item';
import * as prepareWorkflow from '../../../nodes/HostCloud/helpers/submit/prepare-workflow';
import * as itemSubmits from '../../../nodes/HostCloud/helpers/ownership/item-submits';
import { cloudForSuite, FAST_WAIT, TINY_PNG, txt2img, waitUntil } from '../../support/cloud';
import type { WorkflowNodeSpec } from '../../support/engine';
import type { HarnessItem } from '../../support/items-node';

const cloud = cloudForSuite();

type Run = Partial<Omit<WorkflowNodeSpec, 'name' | 'type' | 'parameters'>>;

function execute(parameters: Record<string, unknown>, items: HarnessItem[], more: Run = {}, signal?: AbortSignal) {
	return cloud.harness.runNode(
		{
			type: 'hostCloud',
			parameters: {
				resource: 'workflow',
				operation: 'execute',
				workflow: JSON.stringify(txt2img()),
				downloadFiles: false,
				waitOptions: { ...FAST_WAIT },
				...parameters,
			},
			credentials: { hostCloudApi: cloud.credential },
			...more,
		},
		items,
		{ signal },
	);
}

const three = () => [{ json: {} }, { json: {} }, { json: {} }];
/** The item index of each submit the simulator took, in order. */
const submittedItems = () =>
	cloud.sim.requestsTo('POST', '/api/prompt').map((request) => JSON.parse(request.body).extra_data.n8n.item_index as number);
const jobs = () => [...cloud.sim.cloud.jobs.values()];
const itemIndexOf = (error: unknown) => (error as { context?: { itemIndex?: number } } | undefined)?.context?.itemIndex;

afterEach(() => jest.restoreAllMocks());

describe('Max Concurrent Jobs 1, no Continue On Fail: a failure stops the items waiting for its place', () => {
	test('a submit the service refuses (400): the next items are never submitted, the error is item 0’s', async () => {
		const refused = txt2img();
		refused['3']!.inputs.sampler_name = 'warp';
		const result = await execute({ workflow: '={{ $json.workflow }}', additionalFields: { maxConcurrentJobs: 1 } }, [
			{ json: { workflow: JSON.stringify(refused) } },
			{ json: { workflow: JSON.stringify(txt2img()) } },
			{ json: { workflow: JSON.stringify(txt2img()) } },
		]);
		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toMatch(
			/^The service rejected the request as invalid while submitting the workflow \(HTTP 400\)/,
		);
		expect(itemIndexOf(result.error('Node'))).toBe(0);
		expect(submittedItems()).toEqual([0]);
	});

	test('an input upload that fails: nothing is submitted, the error is item 0’s', async () => {
		const original = prepareWorkflow.uploadInputImages;
		jest.spyOn(prepareWorkflow, 'uploadInputImages').mockImplementation(async (context, prepared, itemIndex) => {
			if (itemIndex === 0) throw new Error('the upload broke');
			await original(context, prepared, itemIndex);
		});
		const result = await execute({ additionalFields: { maxConcurrentJobs: 1 } }, three());
		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toMatch(/the upload broke/);
		expect(itemIndexOf(result.error('Node'))).toBe(0);
		expect(submittedItems()).toEqual([]);
	});

	test('a finished job’s files that fail after its place came back: the item submitted meanwhile is stopped, the next never submitted', async () => {
		const original = jobItem.finishedJobItem;
		jest.spyOn(jobItem, 'finishedJobItem').mockImplementation(async (context, job, itemIndex, options) => {
			if (itemIndex !== 0) return await original(context, job, itemIndex, options);
			// The place came back when the job ended: item 1 takes it while item 0's files are read.
			await waitUntil(() => submittedItems().length >= 2, 5000);
			throw new Error('files could not be read');
		});
		cloud.sim.options.nodeMs = 200;
		const result = await execute({ additionalFields: { maxConcurrentJobs: 1 } }, three());
		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toMatch(/files could not be read/);
		expect(itemIndexOf(result.error('Node'))).toBe(0);
		expect(submittedItems()).toEqual([0, 1]);
		await waitUntil(() => jobs()[1]!.status === 'cancelled');
	});
});

test('Max Concurrent Jobs 1: the next item’s Input Images are uploaded once the running job has ended, in its place', async () => {
	cloud.sim.options.nodeMs = 500;
	const graph = {
		'1': { class_type: 'LoadImage', inputs: { image: 'placeholder.png' } },
		'2': { class_type: 'SaveImage', inputs: { images: ['1', 0], filename_prefix: 'x' } },
	};
	const unfinished = () => jobs().filter((job) => ['pending', 'in_progress'].includes(job.status)).length;
	const seen: number[] = [];
	const original = cloudApi.uploadFile;
	jest.spyOn(cloudApi, 'uploadFile').mockImplementation(async (context, upload, options) => {
		// The second upload looks once the first job is on the cloud (or after 3 s): is it still running?
		if (seen.length === 1) await waitUntil(() => jobs().length >= 1, 3000).catch(() => undefined);
		seen.push(unfinished());
		return await original(context, upload, options);
	});
	const image = { data: { data: TINY_PNG.toString('base64'), fileName: 'cat.png', mimeType: 'image/png' } };
	const result = await execute(
		{
			workflow: JSON.stringify(graph),
			inputImages: { values: [{ binaryPropertyName: 'data', nodeId: '1' }] },
			additionalFields: { maxConcurrentJobs: 1 },
		},
		[
			{ json: {}, binaryBase64: image },
			{ json: {}, binaryBase64: image },
		],
	);
	expect(result.status).toBe('success');
	expect(seen).toEqual([0, 0]);
	expect(submittedItems()).toEqual([0, 1]);
});

describe('Retry On Fail', () => {
	/** Max Wait of 3 s with the job left running at it, two tries 1 s apart. */
	const retried = { waitOptions: { ...FAST_WAIT, maxWaitMinutes: 0.05, onTimeout: 'keep' } };
	const tries = { retryOnFail: true, maxTries: 2, waitBetweenTries: 1000 };

	test('an execution stopped before the item’s turn submits nothing, says it was canceled, and leaves the earlier try’s memory as it was', async () => {
		// The first try's job outlasts Max Wait (seven nodes of 1 s): it is still running when the second try comes.
		cloud.sim.options.nodeMs = 1000;
		const stop = new AbortController();
		const keep = itemSubmits.keepSubmit;
		const kept = jest.spyOn(itemSubmits, 'keepSubmit').mockImplementation((context, itemIndex) => {
			keep(context, itemIndex);
			// The first try failed at Max Wait, keeping its submit: the execution is stopped before the second try.
			stop.abort();
		});
		const forgotten = jest.spyOn(itemSubmits, 'forgetSubmit');
		const lookedUp = jest.spyOn(itemSubmits, 'jobsToTakeOver');
		const checked = jest.spyOn(prepareWorkflow, 'readDefinitionsEarly');
		const result = await execute(retried, [{ json: {} }], tries, stop.signal);

		// The second try ran in the stopped execution (n8n-core does not look at its signal between tries).
		expect(checked).toHaveBeenCalledTimes(2);
		expect(result.status).toBe('canceled');
		expect(result.error('Node')).toMatchObject({
			message: 'The execution was canceled',
			description: 'This item was not submitted: the execution was canceled',
		});
		expect(submittedItems()).toEqual([0]);
		// The first try's submit is kept once, as its Max Wait left it; the second try neither looked for it nor touched it.
		expect(kept).toHaveBeenCalledTimes(1);
		expect(forgotten).not.toHaveBeenCalled();
		expect(lookedUp).toHaveBeenCalledTimes(1);
		expect(cloud.sim.requestsTo('GET', '/api/queue')).toHaveLength(0);
		// The earlier try's job was not taken over, nor cancelled.
		expect(jobs()[0]!.status).toBe('in_progress');
	}, 30_000);

	test('an earlier try’s job still running is followed (one job, not two) and holds its place: the next item waits for it', async () => {
		cloud.sim.options.nodeMs = 1000;
		// Only item 0's first job is long; item 1's is quick.
		const original = cloudApi.submitPrompt;
		jest.spyOn(cloudApi, 'submitPrompt').mockImplementation(async (...args) => {
			const answer = await original(...args);
			cloud.sim.options.nodeMs = 20;
			return answer;
		});
		const result = await execute({ ...retried, additionalFields: { maxConcurrentJobs: 1 } }, [{ json: {} }, { json: {} }], tries);
		expect(result.status).toBe('success');
		// Item 0 once (its job followed by the second try), item 1 once (refused in the first try, after item 0 failed).
		expect(submittedItems()).toEqual([0, 1]);
		const [first, second] = jobs();
		expect(result.items.map((item) => item.json.prompt_id)).toEqual([first!.promptId, second!.promptId]);
		// Item 1 waited for the place the followed job held.
		expect(second!.submittedAt).toBeGreaterThanOrEqual(first!.finishedAt!);
	}, 40_000);
});
