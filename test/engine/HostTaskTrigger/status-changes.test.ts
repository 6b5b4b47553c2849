/**
 * Host Task Trigger with "Every Status Change": each status a task passes through starts one
 * execution, even when two of the service's words share a word of the node's vocabulary (video
 * `created` and `queueing` are both "pending"); only a true repeat (same task, same status word of
 * the service) is ignored. The other event modes and the bounded memory of repeats are unchanged.
 */
import axios from 'axios';
import type { IDataObject, INodeParameters, Workflow } from 'n8n-workflow';

import { startSimulator, type Simulator } from '../../../simulator/server';
import { EngineHarness, type WebhookCall } from '../../support/engine';
import { ActiveTrigger } from '../../support/active-trigger';
import { startLoopbackServer, type LoopbackServer } from '../../support/loopback-server';

const video = (taskId: string, state: string) => ({ task_id: taskId, state, err_code: '', creations: [], payload: '' });
const image = (taskId: string, status: string) => ({ data: { task_id: taskId, status, generated: [] } });

describe('Host Task Trigger: every status change', () => {
	const harness = new EngineHarness();

	const trigger = (parameters: INodeParameters = {}): Workflow =>
		harness.buildWorkflow({ nodes: [{ name: 'Trigger', type: 'hostTaskTrigger', parameters }] });

	const items = (call: WebhookCall) => call.result.workflowData?.[0] ?? [];

	/** Sends each body in turn to an active trigger; answers the raw status of everything it passed on, in order. */
	async function started(active: ActiveTrigger, bodies: unknown[]): Promise<string[]> {
		const raw: string[] = [];
		for (const body of bodies) {
			const { call, passedOn } = await active.deliver(body);
			expect(call.status).toBe(200);
			raw.push(...passedOn.map((item) => String(item.json.raw_status)));
		}
		return raw;
	}

	it('starts once for each state a video task passes through, created and queueing included', async () => {
		const workflow = trigger({ events: 'all' });
		const calls = [];
		for (const state of ['created', 'queueing', 'processing', 'success'])
			calls.push(await harness.callWebhook(workflow, 'Trigger', { body: video('vid-1', state) }));
		expect(calls.map((call) => items(call).map((item) => [item.json.raw_status, item.json.status]))).toEqual([
			[['created', 'pending']],
			[['queueing', 'pending']],
			[['processing', 'running']],
			[['success', 'succeeded']],
		]);
		expect(calls.every((call) => call.status === 200)).toBe(true);
	});

	it('ignores a true repeat, the same status word of the same task, however often it comes', async () => {
		const active = new ActiveTrigger(harness, { events: 'all' });
		const bodies = [
			video('vid-2', 'created'),
			video('vid-2', 'created'),
			video('vid-2', 'queueing'),
			video('vid-2', 'queueing'),
			// The service's words in another case are the same word (statuses compare case-insensitively).
			video('vid-2', 'QUEUEING'),
			video('vid-2', 'processing'),
			video('vid-2', 'success'),
			video('vid-2', 'success'),
		];
		expect(await started(active, bodies)).toEqual(['created', 'queueing', 'processing', 'success']);
		const repeat = await active.deliver(video('vid-2', 'queueing'));
		expect(repeat.call.body).toEqual({ received: true, ignored: 'repeated notification' });
		expect(repeat.started).toBe(false);
	});

	it('keeps tasks apart, and starts for every change when repeats are not ignored', async () => {
		const active = new ActiveTrigger(harness, { events: 'all' });
		expect(await started(active, [image('img-a', 'CREATED'), image('img-b', 'CREATED'), image('img-a', 'CREATED')])).toEqual([
			'CREATED',
			'CREATED',
		]);
		const everyTime = new ActiveTrigger(harness, { events: 'all', ignoreRepeated: false });
		expect(await started(everyTime, [video('vid-3', 'created'), video('vid-3', 'created'), video('vid-3', 'queueing')])).toEqual([
			'created',
			'created',
			'queueing',
		]);
	});

	it.each([
		['final', ['success', 'failed']],
		['succeeded', ['success']],
	])('"%s" still starts once per finished task and ignores what it did not select', async (events, expected) => {
		const active = new ActiveTrigger(harness, { events });
		const bodies = ['created', 'queueing', 'processing', 'success', 'success'].map((state) => video('vid-ok', state));
		bodies.push(video('vid-ko', 'queueing'), video('vid-ko', 'failed'), video('vid-ko', 'failed'));
		expect(await started(active, bodies)).toEqual(expected);
	});

	it('remembers at most 1000 notifications: the oldest is forgotten first', async () => {
		const active = new ActiveTrigger(harness, { events: 'all' });
		expect(await started(active, [video('old', 'created'), video('old', 'queueing')])).toEqual(['created', 'queueing']);
		const others = Array.from({ length: 999 }, (_, index) => image(`other-${index}`, 'IN_PROGRESS'));
		expect(await started(active, others)).toHaveLength(999);
		expect(active.remembered).toHaveLength(1000);
		// "old created" fell out of the memory; "old queueing" is still in it.
		expect(await started(active, [video('old', 'queueing'), video('old', 'created')])).toEqual(['created']);
		expect(active.remembered).toHaveLength(1000);
	});

	it('remembers at most 128 KiB of notifications: twenty with task ids of the longest size stay within it', async () => {
		const active = new ActiveTrigger(harness, { events: 'all' });
		const longest = (index: number) => `${index}`.padEnd(256, 'x');
		expect(
			await started(
				active,
				Array.from({ length: 600 }, (_, index) => image(longest(index), 'IN_PROGRESS')),
			),
		).toHaveLength(600);
		expect(active.remembered.join('').length).toBeLessThanOrEqual(128 * 1024);
		expect(active.remembered.length).toBeLessThan(600);
		// The newest are the ones kept.
		expect(active.remembered.at(-1)).toContain(longest(599));
		// A task id longer than any the service gives is no task: refused, nothing started.
		const tooLong = await active.deliver(image('y'.repeat(256 * 1024), 'IN_PROGRESS'));
		expect(tooLong.call.status).toBe(400);
		expect(tooLong.passedOn).toEqual([]);
	});

	describe("with the simulator's own notifications, each sent twice", () => {
		let sim: Simulator;
		let receiver: LoopbackServer;
		const active = new ActiveTrigger(harness, { events: 'all' });
		const emitted: IDataObject[] = [];

		beforeAll(async () => {
			sim = await startSimulator({ imageStepMs: 10, videoStepMs: 10, notifyBackoffMs: 10 });
			// Stands in for n8n: each delivery goes through the trigger's webhook, then its execution.
			receiver = await startLoopbackServer((req, res) => {
				void active.deliver(JSON.parse(req.body)).then(({ call, passedOn }) => {
					emitted.push(...passedOn.map((item) => item.json));
					res.writeHead(call.status, { 'content-type': 'application/json' });
					res.end(JSON.stringify(call.body));
				});
			});
		});
		afterAll(async () => {
			await sim.close();
			await receiver.close();
		});

		it('starts one execution per status change of each task', async () => {
			sim.faults.duplicateNotifications = { times: 2 };
			const auth = { headers: { Authorization: `Bearer ${sim.accessToken}` } };
			const hook = `${receiver.url}/hook`;
			const imageId = (
				await axios.post(
					`${sim.registryUrl}/proxy/imaging/v1/ai/image-upscaler`,
					{ image: 'https://example.com/in.png', webhook_url: hook },
					auth,
				)
			).data.data.task_id as string;
			const videoId = (await axios.post(`${sim.registryUrl}/proxy/video/extend`, { model: 'videoq2-turbo', callback_url: hook }, auth)).data
				.task_id as string;
			await sim.proxy.waitForDeliveries((all) => all.length >= 2 * 5 && all.every((d) => d.done && d.delivered), 10000);
			const changes = (taskId: string) => emitted.filter((json) => json.task_id === taskId).map((json) => json.raw_status);
			expect(changes(imageId)).toEqual(['IN_PROGRESS', 'COMPLETED']);
			expect(changes(videoId)).toEqual(['queueing', 'processing', 'success']);
		});
	});
});
