/**
 * Host Media's "Wait for Notification" through n8n-core's engine: the execution goes to waiting
 * with its resume URL sent to the service, the service's notifications reach the node's webhook
 * (through a loopback stand-in for n8n's waiting-webhook server, which answers 409 until the
 * execution is saved as waiting, as n8n does), and a final one resumes the execution.
 */
import type { IDataObject } from 'n8n-workflow';

import { readBinary } from '../../support/engine';
import { IMAGE_URL, useMediaEnv } from '../../support/media';
import { startWaitingExecution, type WaitingExecution } from '../../support/waiting-execution';

const env = useMediaEnv({ notifyBackoffMs: 10 });

/** Runs the node in webhook mode; the receiver routes the service's notifications into webhook(). */
const runWaiting = (parameters: IDataObject, items?: Array<{ json: IDataObject }>, notSavedYet?: number) =>
	startWaitingExecution(env.harness, env.credential, parameters, { items, notSavedYet });

describe('Host Media: Wait for Notification (webhook)', () => {
	let world: WaitingExecution | undefined;
	afterEach(async () => {
		await world?.receiver.close();
		world = undefined;
	});

	it('a video task: the execution waits, the callback notification resumes it with the video', async () => {
		world = await runWaiting({ resource: 'video', operation: 'extend', model: 'videoq2-turbo', waitMode: 'webhook' });
		const waiting = await world.waiting;
		expect(waiting.status).toBe('waiting');
		expect(waiting.waitTill!.getTime()).toBeGreaterThan(Date.now() + 60 * 60_000);
		const submit = env.sim.requestsTo('POST', '/proxy/video/extend')[0]!;
		// The execution's resume URL, its signature token included.
		expect(JSON.parse(submit.body).callback_url).toMatch(
			new RegExp(`^${world.receiver.url}/webhook-waiting/${waiting.executionId}\\?signature=[0-9a-f]{64}$`),
		);
		expect(waiting.output('Node')[0]!.json).toMatchObject({ status: 'pending', waiting_for_notification: true });

		const resumed = await world.resumed;
		expect(resumed.status).toBe('success');
		const [item] = resumed.output('Node');
		expect(item!.json).toMatchObject({
			task_type: 'extend',
			status: 'succeeded',
			raw_status: 'success',
			final: true,
			video_url: expect.stringContaining(env.sim.storageUrl),
		});
		const video = await readBinary(item!.binary!.data!);
		expect(video.subarray(4, 8).toString()).toBe('ftyp');
		// Intermediate states kept it waiting; only the final one resumed it, after one status read (no polling).
		expect(env.sim.requestsTo('GET', '/proxy/video/tasks')).toHaveLength(1);
		await env.sim.proxy.waitForDeliveries((all) => all.length >= 3 && all.every((d) => d.done));
		expect(env.sim.proxy.deliveries.every((d) => d.delivered)).toBe(true);
		expect(env.sim.counters.storageCredentialAttempts).toBe(0);
	});

	it('an image task resumes with the same output shape as Poll mode, files included', async () => {
		world = await runWaiting({
			resource: 'image',
			operation: 'upscale',
			imageSource: 'url',
			imageUrl: IMAGE_URL,
			scaleFactor: '4x',
			waitMode: 'webhook',
		});
		const resumed = await world.resumed;
		const [item] = resumed.output('Node');
		expect(item!.json).toMatchObject({
			task_type: 'image-upscaler',
			status: 'succeeded',
			raw_status: 'COMPLETED',
			url: expect.stringContaining(env.sim.storageUrl),
		});
		expect((await readBinary(item!.binary!.data!)).subarray(1, 4).toString()).toBe('PNG');
		expect(JSON.parse(env.sim.requestsTo('POST', '/proxy/imaging')[0]!.body).webhook_url).toContain('/webhook-waiting/');
	});

	it('early notifications answered 409 are retried by the service until the execution waits', async () => {
		world = await runWaiting({ resource: 'video', operation: 'extend', model: 'videoq2-pro', waitMode: 'webhook' }, [{ json: {} }], 2);
		const resumed = await world.resumed;
		expect(resumed.status).toBe('success');
		expect(world.answers.slice(0, 2)).toEqual([409, 409]);
		expect(world.answers[world.answers.length - 1]).toBe(200);
		expect(resumed.output('Node')[0]!.json).toMatchObject({ status: 'succeeded' });
	});

	it('a failed task resumes with an item that says it failed, with the task id', async () => {
		env.sim.proxy.failNextTask('ContentRejected');
		world = await runWaiting({ resource: 'video', operation: 'extend', model: 'videoq2-turbo', waitMode: 'webhook' });
		const resumed = await world.resumed;
		const json = resumed.output('Node')[0]!.json;
		expect(json).toMatchObject({ status: 'failed', final: true });
		expect(String(json.error)).toBe(`The video extension task ${String(json.task_id)} failed: ContentRejected`);
	});

	it('a finished task whose files cannot be downloaded resumes with an item that says so, URLs kept', async () => {
		env.sim.faults.http5xx = { count: 1000, pathPrefix: '/o/', status: 403 };
		world = await runWaiting({ resource: 'video', operation: 'extend', model: 'videoq2-turbo', waitMode: 'webhook' });
		const resumed = await world.resumed;
		expect(resumed.status).toBe('success');
		const [item] = resumed.output('Node');
		expect(item!.json).toMatchObject({ status: 'succeeded', video_url: expect.stringContaining(env.sim.storageUrl) });
		expect(String(item!.json.error)).toMatch(
			new RegExp(`^The video extension task ${String(item!.json.task_id)} finished, but its files could not be downloaded: `),
		);
		expect(item!.binary).toBeUndefined();
		// The service was told the notification arrived, so it does not keep retrying.
		expect(world.answers[world.answers.length - 1]).toBe(200);
	});

	it('refuses notifications about another task and keeps waiting', async () => {
		env.sim.options.videoStepMs = 60_000;
		world = await runWaiting({ resource: 'video', operation: 'extend', model: 'videoq2-turbo', waitMode: 'webhook' });
		const waiting = await world.waiting;
		const workflow = env.harness.buildWorkflow(world.spec);
		const other = await env.harness.callWebhook(
			workflow,
			'Node',
			{ body: { task_id: 'someone-else', state: 'success', creations: [] } },
			{ runExecutionData: waiting.run.data, executionId: waiting.executionId },
		);
		expect(other.status).toBe(400);
		expect(other.body).toMatchObject({ error: 'other_task' });
		expect(other.result.workflowData).toBeUndefined();
		const ownTaskId = String(waiting.output('Node')[0]!.json.task_id);
		const progress = await env.harness.callWebhook(
			workflow,
			'Node',
			{ body: { task_id: ownTaskId, state: 'processing' } },
			{ runExecutionData: waiting.run.data, executionId: waiting.executionId },
		);
		expect(progress.status).toBe(200);
		expect(progress.result.workflowData).toBeUndefined();
		env.sim.options.videoStepMs = 15;
	});

	it('a resume on timeout is reported as a timeout, not as a result', async () => {
		env.sim.options.videoStepMs = 60_000;
		world = await runWaiting({
			resource: 'video',
			operation: 'extend',
			model: 'videoq2-turbo',
			waitMode: 'webhook',
			waitOptions: { maxWaitMinutes: 5 },
		});
		const waiting = await world.waiting;
		const taskId = String(waiting.output('Node')[0]!.json.task_id);
		// n8n's wait tracker resumes without webhook data when waitTill passes.
		const timedOut = await env.harness.resume(world.spec, waiting, undefined);
		expect(timedOut.status).toBe('success');
		const json = timedOut.output('Node')[0]!.json;
		expect(json).toMatchObject({ task_id: taskId, status: 'timeout', timed_out: true, final: false });
		expect(String(json.error)).toContain(`No notification for video extension task ${taskId} arrived within 5 minutes`);
		env.sim.options.videoStepMs = 15;
	});

	it('refuses several items, naming Wait Mode and the alternatives, before sending anything', async () => {
		const result = await env.run({ resource: 'video', operation: 'extend', model: 'videoq2-turbo', waitMode: 'webhook' }, [
			{ json: {} },
			{ json: {} },
		]);
		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toMatch(/^Wait Mode "Wait for Notification" handles one item per execution/);
		expect(env.proxyRequests()).toHaveLength(0);
	});

	it('refuses Put Files in Field "__proto__" before the submit, as Poll mode does: no paid task for a file that would be lost', async () => {
		const result = await env.run({
			resource: 'image',
			operation: 'upscale',
			imageSource: 'url',
			imageUrl: IMAGE_URL,
			waitMode: 'webhook',
			binaryPropertyName: '__proto__',
		});
		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toBe('Put Files in Field cannot be "__proto__": choose another name, such as "data"');
		expect(env.proxyRequests()).toHaveLength(0);
	});

	it('Put Files in Field given by an expression of the input item: the resumed file lands in the field it named', async () => {
		world = await runWaiting(
			{
				resource: 'image',
				operation: 'upscale',
				imageSource: 'url',
				imageUrl: IMAGE_URL,
				waitMode: 'webhook',
				binaryPropertyName: '={{ $json.field }}',
			},
			[{ json: { field: 'upscaled' } }],
		);
		const [item] = (await world.resumed).output('Node');
		expect(Object.keys(item!.binary ?? {})).toEqual(['upscaled']);
		expect((await readBinary(item!.binary!.upscaled!)).subarray(1, 4).toString()).toBe('PNG');
	});

	it("refuses a callback URL of the user's own in webhook mode, before sending anything", async () => {
		const result = await env.run({
			resource: 'video',
			operation: 'extend',
			model: 'videoq2-turbo',
			waitMode: 'webhook',
			additionalFields: { callbackUrl: 'https://example.com/hook' },
		});
		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toMatch(/^Callback URL \(callback_url\) must be empty with "Wait for Notification"/);
		expect(env.proxyRequests()).toHaveLength(0);
	});
});
