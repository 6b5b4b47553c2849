/**
 * Host Cloud Trigger, activated through n8n-core's TriggerContext against the simulator over real
 * HTTP and WebSocket: jobs submitted from outside n8n start one flow each, with their files; the
 * filters (a job is this n8n's Host Cloud node's only when its tag names this install); a dropped socket and a restart lose no job and repeat none; a test run; and a credential
 * the server refuses fails the activation in words.
 */
import { REQUEST_TIME_LIMIT } from '../../../../nodes/shared/transport/transport';
import { readBinary } from '../../../support/engine';
import { cloudForSuite, executeTxt2img, txt2img, waitUntil, type CloudSetup } from '../../../support/cloud';
import { ListeningTrigger } from '../../../support/listening-trigger';
import { hostCloudApiCredential, selfHostedCredential } from '../../../support/credential-fixtures';

/** A job submitted the way a script or the editor does, straight to the server. */
async function submitFromOutside(setup: CloudSetup, extraData: Record<string, unknown> = {}): Promise<string> {
	const response = await fetch(`${setup.sim.baseUrl}/api/prompt`, {
		method: 'POST',
		headers: { ...setup.headers, 'Content-Type': 'application/json' },
		body: JSON.stringify({ prompt: txt2img(), extra_data: extraData }),
	});
	const body = (await response.json()) as { prompt_id: string };
	expect(response.status).toBe(200);
	return body.prompt_id;
}

const triggers: ListeningTrigger[] = [];
function listening(setup: CloudSetup, parameters: Record<string, unknown> = {}, credential = setup.credential): ListeningTrigger {
	const trigger = new ListeningTrigger(setup.harness, credential, { pollSeconds: 2, ...parameters });
	triggers.push(trigger);
	return trigger;
}
afterEach(async () => {
	for (const trigger of triggers.splice(0)) await trigger.close();
});

/** The prompt_ids of the jobs the simulator finished. */
const finishedIds = (setup: CloudSetup) =>
	[...setup.sim.cloud.jobs.values()].filter((job) => job.status === 'completed').map((job) => job.promptId);

describe.each([
	['the cloud', 'cloud'],
	['a self-hosted server', 'self-hosted'],
] as const)('on %s', (_where, flavour) => {
	const cloud = cloudForSuite({ flavour, nodeMs: 60 });

	test('a job started outside n8n starts one flow, with its image listed and downloaded', async () => {
		const trigger = listening(cloud);
		await trigger.activate();
		const promptId = await submitFromOutside(cloud);
		const [item] = await trigger.flows(1);
		expect(item!.json).toMatchObject({ prompt_id: promptId, status: 'succeeded', server: flavour === 'cloud' ? 'cloud' : 'selfHosted' });
		const images = item!.json.images as Array<{ url: string; filename: string }>;
		expect(images).toHaveLength(1);
		expect(images[0]!.url).toMatch(
			flavour === 'cloud' ? /^http:\/\/localhost:\d+\/o\/.*signature=/ : /^http:\/\/127\.0\.0\.1:\d+\/api\/view\?/,
		);
		expect((await readBinary(item!.binary!.data!)).subarray(1, 4).toString()).toBe('PNG');
		// Nothing more comes of it: no second flow on the next looks.
		await new Promise((resolve) => setTimeout(resolve, 2500));
		expect(trigger.items).toHaveLength(1);
		expect(trigger.errors).toEqual([]);
		expect(JSON.stringify(trigger.items.map((one) => one.json))).not.toContain(cloud.sim.apiKey);
	});

	test('jobs a Host Cloud node started are left to it, unless they are wanted', async () => {
		const quiet = listening(cloud);
		const wanting = listening(cloud, { includeOwnJobs: true, downloadFiles: false });
		await quiet.activate();
		await wanting.activate();
		const run = await cloud.harness.runNode(
			{ type: 'hostCloud', parameters: executeTxt2img({ downloadFiles: false }) as never, credentials: { hostCloudApi: cloud.credential } },
			[{ json: {} }],
		);
		const promptId = run.items[0]!.json.prompt_id;
		const [item] = await wanting.flows(1);
		expect(item!.json).toMatchObject({ prompt_id: promptId, started_by: { node_name: 'Node' } });
		expect(item!.binary).toBeUndefined();
		const outside = await submitFromOutside(cloud);
		await quiet.flows(1);
		expect(quiet.items.map((one) => one.json.prompt_id)).toEqual([outside]);
	});

	test("a tag naming no n8n install, or another one, is not taken for this n8n's: such jobs start the flow, without started_by", async () => {
		cloud.sim.options.nodeMs = 150; // long enough for the cloud trigger to read the queue while they run
		const quiet = listening(cloud, { downloadFiles: false });
		await quiet.activate();
		// What a Host Cloud node's tag holds, without an install id (an older tag, or one another client wrote), or with another install's.
		const tag = { execution_id: '1', workflow_id: 'wf-harness', node_name: 'Node', item_index: 0, operation: 'execute', request_id: 'r' };
		const noInstall = await submitFromOutside(cloud, { n8n: tag });
		const otherInstall = await submitFromOutside(cloud, { n8n: { ...tag, instance_id: 'another-install' } });
		const items = await quiet.flows(2);
		expect(items.map((item) => item.json.prompt_id).sort()).toEqual([noInstall, otherInstall].sort());
		for (const item of items) expect(item.json).not.toHaveProperty('started_by');
	});

	test('a failed job starts the flow only with Every Finished Job, its failure in words', async () => {
		const succeededOnly = listening(cloud);
		const every = listening(cloud, { events: 'finished' });
		await succeededOnly.activate();
		await every.activate();
		cloud.sim.cloud.failNextJob({ exception_type: 'OOMError', exception_message: 'CUDA out of memory', nodeId: '3' });
		const failed = await submitFromOutside(cloud);
		const [item] = await every.flows(1);
		expect(item!.json).toMatchObject({ prompt_id: failed, status: 'failed', error: { exception_type: 'OOMError', node_id: '3' } });
		expect((item!.json.error as { message: string }).message).toMatch(/ran out of GPU memory/);
		const succeeded = await submitFromOutside(cloud);
		await succeededOnly.flows(1);
		await every.flows(2);
		expect(succeededOnly.items.map((one) => one.json.prompt_id)).toEqual([succeeded]);
	});

	test('only the files of the named output nodes are passed on, and a job with none starts nothing', async () => {
		const saved = listening(cloud, { outputNodes: 'SaveImage', downloadFiles: false });
		const elsewhere = listening(cloud, { outputNodes: 'PreviewImage, 42', downloadFiles: false });
		await saved.activate();
		await elsewhere.activate();
		const promptId = await submitFromOutside(cloud);
		const [item] = await saved.flows(1);
		expect(item!.json.prompt_id).toBe(promptId);
		expect(item!.json.images).toHaveLength(1);
		await new Promise((resolve) => setTimeout(resolve, 2500));
		expect(elsewhere.items).toEqual([]);
	});

	test('a restart loses no job that ended while n8n was down, and repeats none', async () => {
		cloud.sim.options.nodeMs = 400;
		// Queued before the activation: the trigger knows it from its first look, which n8n saves.
		const before = await submitFromOutside(cloud);
		const trigger = listening(cloud, { downloadFiles: false });
		await trigger.activate();
		await trigger.close();
		await waitUntil(() => finishedIds(cloud).includes(before), 10_000);
		// Running across the restart.
		const across = await submitFromOutside(cloud);
		await trigger.activate();
		const items = await trigger.flows(2, 15_000);
		expect(items.map((one) => one.json.prompt_id).sort()).toEqual([before, across].sort());
		await trigger.restart();
		await new Promise((resolve) => setTimeout(resolve, 2500));
		expect(trigger.items).toHaveLength(2);
	});

	test('a memory saved older than it was (an execution writes back its copy) starts no second flow: n8n refuses the same key', async () => {
		cloud.sim.options.nodeMs = 300;
		// On the cloud the job is queued when the trigger is published, so the memory saved then watches it.
		const early = flavour === 'cloud' ? await submitFromOutside(cloud) : undefined;
		const trigger = listening(cloud, { downloadFiles: false });
		await trigger.activate();
		const older = trigger.savedStaticData;
		const promptId = early ?? (await submitFromOutside(cloud));
		await trigger.flows(1, 15_000);
		expect(trigger.items[0]!.json.prompt_id).toBe(promptId);
		await trigger.close();
		trigger.savedStaticData = older;
		await trigger.activate();
		await waitUntil(() => trigger.refusedByKey > 0, 10_000);
		expect(trigger.items).toHaveLength(1);
	});

	test('a test run waits for the next job when it knows none, else shows the latest at once', async () => {
		const trigger = listening(cloud, { downloadFiles: false });
		await trigger.activate('manual');
		const promptId = await submitFromOutside(cloud);
		const [first] = await trigger.flows(1);
		expect(first!.json.prompt_id).toBe(promptId);
		await trigger.close();
		// Published, it passes a job on; a test run afterwards shows that one without waiting.
		await trigger.activate();
		const latest = await submitFromOutside(cloud);
		await trigger.flows(2);
		await trigger.close();
		await trigger.activate('manual');
		expect(trigger.items).toHaveLength(3);
		expect(trigger.items[2]!.json.prompt_id).toBe(latest);
	});

	test('a test run shows the job that last started a flow, not one judged after it that the filters left out', async () => {
		const trigger = listening(cloud, { downloadFiles: false });
		await trigger.activate();
		const passed = await submitFromOutside(cloud);
		await trigger.flows(1);
		await trigger.close();
		// A Host Cloud node's job, left out by the default filter, judged last (as n8n may have saved it at an activation).
		const run = await cloud.harness.runNode(
			{ type: 'hostCloud', parameters: executeTxt2img({ downloadFiles: false }) as never, credentials: { hostCloudApi: cloud.credential } },
			[{ json: {} }],
		);
		const leftOut = String(run.items[0]!.json.prompt_id);
		const saved = JSON.parse(trigger.savedStaticData) as Record<string, { done: string[] }>;
		saved['node:Trigger']!.done.push(leftOut);
		trigger.savedStaticData = JSON.stringify(saved);
		await trigger.activate('manual');
		expect(trigger.items.map((item) => item.json.prompt_id)).toEqual([passed, passed]);
	});

	test('a credential the server refuses fails the activation in words, and no flow starts', async () => {
		const wrong =
			flavour === 'cloud'
				? cloud.harness.addCredential(
						'hostCloudApi',
						hostCloudApiCredential({ server: 'cloud', baseUrl: cloud.sim.baseUrl, apiKey: 'not-the-key' }),
					)
				: cloud.harness.addCredential('hostCloudApi', selfHostedCredential({ serverUrl: cloud.sim.baseUrl }));
		const trigger = listening(cloud, {}, wrong);
		await expect(trigger.activate()).rejects.toThrow(
			flavour === 'cloud' ? /API key/ : /reverse proxy in front of it\) refused the request/,
		);
		expect(trigger.items).toEqual([]);
	});
});

describe('on the cloud, across a gap', () => {
	const cloud = cloudForSuite({ nodeMs: 150 });

	test('a job whose messages were lost to a dropped socket is reported once, with its files from its record', async () => {
		const trigger = listening(cloud, { downloadFiles: false });
		await trigger.activate();
		cloud.sim.faults.dropWebSocket = { afterMessages: 2 };
		const promptId = await submitFromOutside(cloud);
		const [item] = await trigger.flows(1, 15_000);
		expect(item!.json).toMatchObject({ prompt_id: promptId, status: 'succeeded' });
		expect(item!.json.images).toHaveLength(1);
		expect(item!.json.outputs_unknown).toBeUndefined();
	});
});

describe('on the cloud, while its queue does not answer', () => {
	const cloud = cloudForSuite({ nodeMs: 20 });
	const saved = { ...REQUEST_TIME_LIMIT };
	beforeAll(() => Object.assign(REQUEST_TIME_LIMIT, { ms: 300, readMs: 900 }));
	afterAll(() => Object.assign(REQUEST_TIME_LIMIT, saved));

	test("a job's flow waits for one read of the queue at most, however many jobs start meanwhile", async () => {
		const trigger = listening(cloud, { downloadFiles: false });
		await trigger.activate();
		cloud.sim.faults.slow = { ms: 3_000, pathPrefix: '/api/queue' };
		const first = await submitFromOutside(cloud);
		let othersStarted = 0;
		// Other jobs keep starting while the trigger's read of the queue, to learn whose the first is, waits.
		const others = (async () => {
			for (let count = 0; count < 12; count++) {
				await new Promise((resolve) => setTimeout(resolve, 250));
				await submitFromOutside(cloud);
				othersStarted++;
			}
		})();
		const [item] = await trigger.flows(1, 10_000);
		const othersWhenItCame = othersStarted;
		await others;
		expect(item!.json).toMatchObject({ prompt_id: first, status: 'succeeded' });
		// The job's own run and one read limit (0.9 s), not a read for each job that started (12 of
		// 0.9 s): the flow came while the others were still starting. Counted in jobs, not timed: a busy
		// machine stretches the reads and the starts alike.
		expect(othersWhenItCame).toBeLessThan(12);
	});
});
