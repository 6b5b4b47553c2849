/**
 * Host Media wait modes and failures, through the engine against the simulator: Poll (default),
 * Don't Wait, task failure, the maximum wait, cancellation, status checks that fail for a while,
 * refused calls in plain words, and continueOnFail per item.
 */
import { ChaosFaults } from '../../../simulator/shared/chaos';
import { FAST, IMAGE_URL, useMediaEnv } from '../../support/media';
import { hostApiCredential } from '../../support/credential-fixtures';

const env = useMediaEnv();
const IMAGING = '/proxy/imaging/v1/ai';
const UPSCALE = { resource: 'image', operation: 'upscale', imageUrl: IMAGE_URL };

describe('wait modes', () => {
	it('polls by default and returns once the task is final', async () => {
		const result = await env.run({ ...UPSCALE, downloadFiles: false, waitOptions: { pollIntervalSeconds: 0.01 } });
		expect(result.status).toBe('success');
		expect(result.items[0]!.json).toMatchObject({ status: 'succeeded', raw_status: 'COMPLETED', final: true });
		const taskId = String(result.items[0]!.json.task_id);
		const polls = env.sim.requestsTo('GET', `${IMAGING}/image-upscaler/${taskId}`);
		expect(polls.length).toBeGreaterThanOrEqual(1);
		expect(polls.every((poll) => poll.status === 200)).toBe(true);
	});

	it("Don't Wait returns the task ID at once and passes the webhook URL on for the Host Task Trigger", async () => {
		const hook = 'http://127.0.0.1:5678/webhook/host-task';
		const result = await env.withSlowTasks(() => env.run({ ...UPSCALE, waitMode: 'none', additionalFields: { webhookUrl: hook } }));
		expect(result.status).toBe('success');
		const json = result.items[0]!.json;
		expect(json).toEqual({
			task_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
			task_type: 'image-upscaler',
			status: 'pending',
			raw_status: 'CREATED',
			final: false,
			generated: [],
			status_path: `${IMAGING}/image-upscaler/${String(json.task_id)}`,
			webhook_url: hook,
		});
		expect(env.sim.requestsTo('GET', IMAGING)).toHaveLength(0);
		expect(env.sim.proxy.imageTasks.get(String(json.task_id))?.webhookUrl).toBe(hook);
	});

	it("Don't Wait for a video returns the task ID, the credits and the callback URL", async () => {
		const hook = 'http://127.0.0.1:5678/webhook/host-task';
		const result = await env.withSlowTasks(() =>
			env.run({ resource: 'video', operation: 'extend', waitMode: 'none', additionalFields: { callbackUrl: hook } }),
		);
		expect(result.items[0]!.json).toMatchObject({
			task_type: 'extend',
			status: 'pending',
			raw_status: 'created',
			credits: expect.any(Number),
			callback_url: hook,
		});
		expect(env.sim.requestsTo('GET', '/proxy/video/tasks')).toHaveLength(0);
	});

	it('a failed image task fails the item with its task ID', async () => {
		env.sim.proxy.failNextTask('upstream model crashed');
		const result = await env.run({ ...UPSCALE, ...FAST });
		expect(result.status).toBe('error');
		const taskId = [...env.sim.proxy.imageTasks.keys()][0]!;
		expect(result.error('Node')?.message).toBe(`The upscale task ${taskId} failed (status FAILED)`);
		expect(env.sim.requests.some((r) => r.host === 'storage')).toBe(false);
	});

	it('a failed video task fails the item with its err_code and task ID', async () => {
		env.sim.proxy.failNextTask('AuditSubmitIllegal');
		const result = await env.run({ resource: 'video', operation: 'extend', ...FAST }, [{ json: {} }], { continueOnFail: true });
		expect(result.status).toBe('success');
		const taskId = [...env.sim.proxy.videoTasks.keys()][0]!;
		expect(result.items[0]!.json.error).toBe(`The video extension task ${taskId} failed: AuditSubmitIllegal`);
		expect(result.items[0]!.pairedItem).toEqual({ item: 0 });
	});

	it('a slow task hits the maximum wait: the message names the task and its last status', async () => {
		const result = await env.withSlowTasks(() => env.run({ ...UPSCALE, waitOptions: { pollIntervalSeconds: 0.02, maxWaitMinutes: 0.01 } }));
		expect(result.status).toBe('error');
		const taskId = [...env.sim.proxy.imageTasks.keys()][0]!;
		expect(result.error('Node')?.message).toBe(`The upscale task ${taskId} did not finish within 600 ms (last status: CREATED)`);
		expect((result.error('Node') as { description?: string }).description).toMatch(/Get Task Status/);
	});

	it('cancelling the execution stops the polling promptly', async () => {
		const controller = new AbortController();
		const running = env.withSlowTasks(() =>
			env.run({ ...UPSCALE, waitOptions: { pollIntervalSeconds: 0.02 } }, [{ json: {} }], { signal: controller.signal }),
		);
		// Cancel once the task has been submitted and polled a few times.
		while (env.sim.requestsTo('GET', `${IMAGING}/image-upscaler/`).length < 3) await new Promise((resolve) => setTimeout(resolve, 5));
		controller.abort();
		const result = await running;
		expect(result.status).toBe('canceled');
		const taskId = [...env.sim.proxy.imageTasks.keys()][0]!;
		expect(result.error('Node')?.message).toBe(`The execution was canceled while waiting for upscale task ${taskId}`);
		const polls = env.sim.requestsTo('GET', `${IMAGING}/image-upscaler/`).length;
		await new Promise((resolve) => setTimeout(resolve, 150));
		expect(env.sim.requestsTo('GET', `${IMAGING}/image-upscaler/`).length).toBe(polls);
	});

	it('5xx answers on the status path count as "unknown", not as a failure', async () => {
		env.sim.faults.http5xx = { count: 3, pathPrefix: `${IMAGING}/image-upscaler/`, status: 503 };
		const result = await env.run({ ...UPSCALE, downloadFiles: false, ...FAST });
		expect(result.status).toBe('success');
		expect(result.items[0]!.json.status).toBe('succeeded');
		expect(env.sim.requestsTo('GET', `${IMAGING}/image-upscaler/`).filter((r) => r.status === 503)).toHaveLength(3);
	});

	it('a status read that hangs past its timeout counts as "unknown": the wait runs out naming the task, and says the check got no answer', async () => {
		env.sim.faults.chaos = new ChaosFaults(1, { taskStatusTimeout: 1 });
		const result = await env.run({ ...UPSCALE, downloadFiles: false, waitOptions: { pollIntervalSeconds: 0.01, maxWaitMinutes: 0.02 } });
		const taskId = [...env.sim.proxy.imageTasks.keys()][0]!;
		const error = result.error('Node') as { message?: string; description?: string };
		expect(error.message).toBe(`The upscale task ${taskId} did not finish within 1 s (last status: CREATED)`);
		// In words (a raw code would make n8n replace the message), and not as if the service were offline.
		expect(error.description).toMatch(
			new RegExp(
				`The last status check failed: The service sent nothing for 1 second while checking upscale task ${taskId}\\. The service may be busy`,
			),
		);
	});

	it('an unreadable status answer counts as "unknown" too', async () => {
		env.sim.faults.malformedJson = { count: 2, pathPrefix: `${IMAGING}/image-upscaler/` };
		const result = await env.run({ ...UPSCALE, downloadFiles: false, ...FAST });
		expect(result.status).toBe('success');
		expect(result.items[0]!.json.status).toBe('succeeded');
	});

	it('a status path that answers 404 is explained, with a pointer to the webhook mode', async () => {
		env.sim.faults.http5xx = { count: 1, pathPrefix: `${IMAGING}/image-upscaler/`, status: 404 };
		const result = await env.run({ ...UPSCALE, ...FAST });
		const taskId = [...env.sim.proxy.imageTasks.keys()][0]!;
		expect(result.error('Node')?.message).toMatch(
			new RegExp(`^The service has no status for upscale task ${taskId} \\(HTTP 404 on GET ${IMAGING}/image-upscaler/${taskId}\\)`),
		);
		expect((result.error('Node') as { description?: string }).description).toMatch(/Webhook wait mode/);
	});

	it('a refused status check stops at once and names the task', async () => {
		env.sim.faults.http5xx = { count: 1, pathPrefix: `${IMAGING}/image-upscaler/`, status: 401 };
		const result = await env.run({ ...UPSCALE, ...FAST });
		const taskId = [...env.sim.proxy.imageTasks.keys()][0]!;
		expect(result.error('Node')?.message).toMatch(
			new RegExp(`^The access token was rejected while checking upscale task ${taskId} \\(HTTP 401\\)`),
		);
		expect(env.sim.requestsTo('GET', `${IMAGING}/image-upscaler/`)).toHaveLength(1);
	});
});

describe('refused requests in plain words', () => {
	it('a wrong access token: the {error, message} body is shown, never the token', async () => {
		const wrong = env.harness.addCredential(
			'hostApi',
			hostApiCredential({ accessToken: 'wrong-token-123456', registryUrl: env.sim.registryUrl }),
		);
		const result = await env.run({ ...UPSCALE, ...FAST }, [{ json: {} }], { credential: wrong });
		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toBe(
			'The access token was rejected while starting the upscale task (HTTP 401): Missing or invalid access token: send the header Authorization: Bearer <ACCESS_TOKEN>.',
		);
		expect(JSON.stringify(result.run.data)).not.toContain('wrong-token-123456');
	});

	it('a wrong access token on a video endpoint: the {message, details} body is shown', async () => {
		const wrong = env.harness.addCredential(
			'hostApi',
			hostApiCredential({ accessToken: 'wrong-token-654321', registryUrl: env.sim.registryUrl }),
		);
		const result = await env.run({ resource: 'video', operation: 'extend', ...FAST }, [{ json: {} }], { credential: wrong });
		expect(result.error('Node')?.message).toMatch(
			/^The access token was rejected while starting the video extension task \(HTTP 401\): Missing or invalid access token.*: unauthorized$/,
		);
	});

	it('no credits: "Insufficient credits"', async () => {
		env.sim.faults.http5xx = { count: 1, pathPrefix: `${IMAGING}/image-upscaler`, status: 402 };
		const result = await env.run({ ...UPSCALE, ...FAST });
		expect(result.error('Node')?.message).toMatch(/^Insufficient credits while starting the upscale task \(HTTP 402\)/);
		expect((result.error('Node') as { description?: string }).description).toMatch(/Top up/);
	});
});

describe('items', () => {
	it('continueOnFail: a bad item gets an error item, the others run, every item is paired', async () => {
		const result = await env.run(
			{ ...UPSCALE, additionalFields: { creativity: '={{ $json.creativity }}' }, waitMode: 'none' },
			[{ json: { creativity: 1 } }, { json: { creativity: 11 } }, { json: { creativity: -10 } }],
			{ continueOnFail: true },
		);
		expect(result.status).toBe('success');
		expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(result.items[0]!.json.status).toBe('pending');
		expect(result.items[1]!.json.error).toBe('Creativity (creativity) must be a whole number from -10 to 10 (got "11")');
		expect(result.items[2]!.json.status).toBe('pending');
		expect(env.sim.requestsTo('POST', `${IMAGING}/image-upscaler`).map((r) => JSON.parse(r.body).creativity)).toEqual([1, -10]);
	});

	it('without continueOnFail the error carries the item index', async () => {
		const result = await env.run({ ...UPSCALE, additionalFields: { creativity: '={{ $json.creativity }}' }, waitMode: 'none' }, [
			{ json: { creativity: 0 } },
			{ json: { creativity: 11 } },
		]);
		expect(result.status).toBe('error');
		expect((result.error('Node') as { context?: { itemIndex?: number } }).context?.itemIndex).toBe(1);
	});
});
