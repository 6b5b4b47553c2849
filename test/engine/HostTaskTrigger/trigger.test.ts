/**
 * Host Task Trigger through its webhook method, called as n8n's webhook server calls it: every
 * option, bad bodies, the shared secret, and the simulator's own (repeated) notifications.
 */
import axios from 'axios';
import type { INodeParameters, INodeType, Workflow } from 'n8n-workflow';

import { startSimulator, type Simulator } from '../../../simulator/server';
import { EngineHarness, type WebhookCall } from '../../support/engine';
import { ActiveTrigger } from '../../support/active-trigger';
import { startLoopbackServer, type LoopbackServer } from '../../support/loopback-server';

const imageDone = (taskId: string) => ({ data: { task_id: taskId, status: 'COMPLETED', generated: ['https://storage.example/a.png'] } });

describe('Host Task Trigger', () => {
	const harness = new EngineHarness();

	function trigger(parameters: INodeParameters = {}): Workflow {
		return harness.buildWorkflow({ nodes: [{ name: 'Trigger', type: 'hostTaskTrigger', parameters }] });
	}

	async function activate(workflow: Workflow): Promise<void> {
		// n8n asks checkExists, then create if needed, when the workflow is activated: there is
		// nothing to register with the service, and the static data is left alone.
		const node = workflow.getNode('Trigger')!;
		const type = harness.nodeTypes.getByNameAndVersion(node.type);
		const hooks = (type as unknown as { webhookMethods: { default: Record<string, (this: unknown) => Promise<boolean>> } }).webhookMethods
			.default;
		const context = { getWorkflowStaticData: (kind: 'node' | 'global') => workflow.getStaticData(kind, node) };
		expect(await hooks.checkExists!.call(context)).toBe(true);
		expect(await hooks.create!.call(context)).toBe(true);
		expect(await hooks.delete!.call(context)).toBe(true);
		expect(JSON.stringify(workflow.staticData)).toBe('{}');
	}

	const items = (call: WebhookCall) => call.result.workflowData?.[0] ?? [];

	it('emits one normalised item for a finished image task, with the raw body', async () => {
		const call = await harness.callWebhook(trigger(), 'Trigger', { body: imageDone('img-1') });
		expect(call.status).toBe(200);
		expect(items(call)).toHaveLength(1);
		expect(items(call)[0]!.json).toMatchObject({
			task_id: 'img-1',
			kind: 'image',
			status: 'succeeded',
			raw_status: 'COMPLETED',
			final: true,
			generated: ['https://storage.example/a.png'],
			creations: [],
			body: imageDone('img-1'),
		});
	});

	it('normalises video notifications with creations and failures', async () => {
		const ok = await harness.callWebhook(trigger(), 'Trigger', {
			body: { task_id: 'vid-1', state: 'success', creations: [{ id: 'c1', url: 'https://s/v.mp4', cover_url: 'https://s/c.png' }] },
		});
		expect(items(ok)[0]!.json).toMatchObject({ kind: 'video', status: 'succeeded', creations: [{ url: 'https://s/v.mp4' }] });
		const failed = await harness.callWebhook(trigger(), 'Trigger', {
			body: { task_id: 'vid-2', state: 'failed', err_code: 'GenerationFailed' },
		});
		expect(items(failed)[0]!.json).toMatchObject({ status: 'failed', final: true, error: 'GenerationFailed' });
	});

	it('by default ignores notifications that are not final, answering 2xx', async () => {
		const call = await harness.callWebhook(trigger(), 'Trigger', {
			body: { data: { task_id: 'img-2', status: 'IN_PROGRESS', generated: [] } },
		});
		expect(call.status).toBe(200);
		expect(call.result.workflowData).toBeUndefined();
	});

	it('emits every status change when asked', async () => {
		const call = await harness.callWebhook(trigger({ events: 'all' }), 'Trigger', {
			body: { data: { task_id: 'img-3', task_status: 'IN_PROGRESS' } },
		});
		expect(items(call)[0]!.json).toMatchObject({ status: 'running', raw_status: 'IN_PROGRESS', final: false });
	});

	it('"succeeded only" skips failures', async () => {
		const workflow = trigger({ events: 'succeeded' });
		const failed = await harness.callWebhook(workflow, 'Trigger', { body: { data: { task_id: 'img-4', status: 'FAILED' } } });
		expect(failed.result.workflowData).toBeUndefined();
		const ok = await harness.callWebhook(workflow, 'Trigger', { body: imageDone('img-4') });
		expect(items(ok)).toHaveLength(1);
	});

	it('filters on task ids', async () => {
		const workflow = trigger({ taskIds: 'keep-1, keep-2' });
		expect((await harness.callWebhook(workflow, 'Trigger', { body: imageDone('other') })).result.workflowData).toBeUndefined();
		expect(items(await harness.callWebhook(workflow, 'Trigger', { body: imageDone('keep-2') }))).toHaveLength(1);
	});

	it('takes a task id filter or a shared secret from an expression that gives a list or a number', async () => {
		const listed = trigger({ taskIds: '={{ ["keep-1", "keep-2"] }}' });
		expect((await harness.callWebhook(listed, 'Trigger', { body: imageDone('other') })).result.workflowData).toBeUndefined();
		expect(items(await harness.callWebhook(listed, 'Trigger', { body: imageDone('keep-1') }))).toHaveLength(1);
		const numbered = trigger({ secret: '={{ 12345 }}' });
		expect((await harness.callWebhook(numbered, 'Trigger', { body: imageDone('n-1'), query: { secret: '1234' } })).status).toBe(401);
		expect(items(await harness.callWebhook(numbered, 'Trigger', { body: imageDone('n-1'), query: { secret: '12345' } }))).toHaveLength(1);
	});

	it('refuses notifications with 500, starting nothing, while its settings cannot be read', async () => {
		const cases: Array<[INodeParameters, RegExp]> = [
			[{ events: '={{ "finished" }}' }, /Events is "finished"; use final, succeeded or all/],
			[{ secret: '={{ { value: "s" } }}' }, /Shared Secret is an object; it must be text/],
			[{ secret: '={{ ["a", "b"] }}' }, /Shared Secret is a list; it must be text/],
			[{ secret: 'fine', secretLocation: '={{ "cookie" }}' }, /Secret Location is "cookie"; use query or header/],
		];
		for (const [parameters, message] of cases) {
			const call = await harness.callWebhook(trigger(parameters), 'Trigger', {
				body: imageDone('cfg-1'),
				query: { secret: '[object Object]' },
			});
			expect({ parameters, status: call.status }).toEqual({ parameters, status: 500 });
			expect({ parameters, body: call.body }).toEqual({
				parameters,
				body: { error: 'trigger_misconfigured', message: expect.stringMatching(message) },
			});
			expect(call.result.workflowData).toBeUndefined();
		}
	});

	it('registers nothing with the service when activated, and leaves the static data alone', async () => {
		await activate(trigger());
	});

	it('ignores repeated notifications of the same task and status, unless turned off', async () => {
		const active = new ActiveTrigger(harness);
		const first = await active.deliver(imageDone('dup-1'));
		const again = await active.deliver(imageDone('dup-1'));
		expect(first.passedOn).toHaveLength(1);
		expect(again.call.status).toBe(200);
		expect(again.call.body).toEqual({ received: true, ignored: 'repeated notification' });
		expect(again.started).toBe(false);

		const everyTime = new ActiveTrigger(harness, { ignoreRepeated: false });
		expect((await everyTime.deliver(imageDone('dup-2'))).passedOn).toHaveLength(1);
		expect((await everyTime.deliver(imageDone('dup-2'))).passedOn).toHaveLength(1);
	});

	// n8n 2.41 loses what a webhook call writes to static data the workflow already has: the memory
	// of the first notification was all the trigger ever kept, and every later repeat started again.
	it('remembers every notification it passed on, not only the first one', async () => {
		const active = new ActiveTrigger(harness);
		const passed: unknown[] = [];
		for (const id of ['rep-a', 'rep-b', 'rep-a', 'rep-c', 'rep-b', 'rep-c', 'rep-a']) {
			const delivery = await active.deliver(imageDone(id));
			passed.push(...delivery.passedOn.map((item) => item.json.task_id));
		}
		expect(passed).toEqual(['rep-a', 'rep-b', 'rep-c']);
		expect(active.remembered).toHaveLength(3);
	});

	it('a repeat that comes before the first execution ended starts an execution that passes nothing on', async () => {
		const active = new ActiveTrigger(harness);
		const first = await active.receive(imageDone('early-1'));
		const early = await active.receive(imageDone('early-1'));
		expect(early.call.body).toEqual({ received: true });
		const [firstRun, earlyRun] = [await first.run(), await early.run()];
		expect(firstRun.passedOn.map((item) => item.json.task_id)).toEqual(['early-1']);
		expect(firstRun.passedOn[0]!.pairedItem).toEqual({ item: 0 });
		expect(earlyRun).toMatchObject({ started: true, passedOn: [] });
		expect((await active.deliver(imageDone('early-1'))).started).toBe(false);
	});

	it('passes every test event on and records none of them (manual runs)', async () => {
		const testing = new ActiveTrigger(harness, {}, 'manual');
		expect((await testing.deliver(imageDone('test-1'))).passedOn).toHaveLength(1);
		expect((await testing.deliver(imageDone('test-1'))).passedOn).toHaveLength(1);
		expect(testing.remembered).toEqual([]);
	});

	it.each([
		['not an object', 'COMPLETED'],
		['no task id', { status: 'COMPLETED' }],
		['no status', { data: { task_id: 'x' } }],
	])('answers 400 and emits nothing for a bad body (%s)', async (_case, body) => {
		const call = await harness.callWebhook(trigger(), 'Trigger', { body });
		expect(call.status).toBe(400);
		expect(call.body).toMatchObject({ error: 'invalid_notification' });
		expect(call.result.workflowData).toBeUndefined();
	});

	it('checks the shared secret in the query or a header before anything else', async () => {
		const inQuery = trigger({ secret: 's3cret-value' });
		const refused = await harness.callWebhook(inQuery, 'Trigger', { body: imageDone('sec-1'), query: { secret: 'wrong' } });
		expect(refused.status).toBe(401);
		expect(refused.result.workflowData).toBeUndefined();
		expect(JSON.stringify(refused.body)).not.toContain('s3cret-value');
		const badBodyNoSecret = await harness.callWebhook(inQuery, 'Trigger', { body: 'garbage' });
		expect(badBodyNoSecret.status).toBe(401);
		expect(
			items(await harness.callWebhook(inQuery, 'Trigger', { body: imageDone('sec-1'), query: { secret: 's3cret-value' } })),
		).toHaveLength(1);

		const inHeader = trigger({ secret: 'h-secret', secretLocation: 'header' });
		expect((await harness.callWebhook(inHeader, 'Trigger', { body: imageDone('sec-2'), query: { secret: 'h-secret' } })).status).toBe(401);
		expect(
			items(await harness.callWebhook(inHeader, 'Trigger', { body: imageDone('sec-2'), headers: { 'X-Host-Secret': 'h-secret' } })),
		).toHaveLength(1);
	});

	it('a notification that echoes the shared secret passes it on as ***', async () => {
		const withSecret = trigger({ secret: 'echoed-s3cret-value' });
		const echoed = { ...imageDone('sec-3'), note: 'secret echoed-s3cret-value', encoded: encodeURIComponent('echoed-s3cret-value') };
		const [item] = items(await harness.callWebhook(withSecret, 'Trigger', { body: echoed, query: { secret: 'echoed-s3cret-value' } }));
		expect(item!.json.body).toMatchObject({ note: 'secret ***', encoded: '***' });
		expect(JSON.stringify(item)).not.toContain('echoed-s3cret-value');
	});

	it('keeps a marker in place of a notification still over 64 KiB once its texts are clipped', async () => {
		// 80 texts of 999 characters: none is clipped, together they are about 80 KiB.
		const notes = Array.from({ length: 80 }, (_, index) => `${index}`.padEnd(999, 'n'));
		const [item] = items(await harness.callWebhook(trigger(), 'Trigger', { body: { ...imageDone('big-1'), notes } }));
		expect(item!.json).toMatchObject({ task_id: 'big-1', status: 'succeeded', generated: ['https://storage.example/a.png'] });
		expect(item!.json.body).toEqual({ cut: 'too large to keep', size_chars: expect.any(Number) });
		expect((item!.json.body as { size_chars: number }).size_chars).toBeGreaterThan(64 * 1024);
		expect(JSON.stringify(item).length).toBeLessThan(8 * 1024);
		// Just under the bound, the body is kept whole.
		const [kept] = items(await harness.callWebhook(trigger(), 'Trigger', { body: { ...imageDone('big-2'), notes: notes.slice(0, 60) } }));
		expect(kept!.json.body).toEqual({ ...imageDone('big-2'), notes: notes.slice(0, 60) });
	});

	it('takes a task id of 256 characters, and refuses one of 257 (400), starting nothing', async () => {
		const longest = 't'.repeat(256);
		expect(items(await harness.callWebhook(trigger(), 'Trigger', { body: imageDone(longest) }))[0]!.json.task_id).toBe(longest);
		const over = await harness.callWebhook(trigger(), 'Trigger', { body: imageDone(`${longest}t`) });
		expect(over.status).toBe(400);
		expect(over.body).toMatchObject({ error: 'invalid_notification' });
		expect(over.result.workflowData).toBeUndefined();
	});

	it('has no credential and fetches nothing: the addresses a notification names are passed on, never requested', async () => {
		const description = (harness.nodeTypes.getByNameAndVersion('n8n-nodes-host.hostTaskTrigger') as INodeType).description;
		expect(description.credentials ?? []).toEqual([]);
		const storage = await startLoopbackServer((_req, res) => {
			res.writeHead(200, { 'content-type': 'image/png' });
			res.end('png');
		});
		try {
			const image = { data: { task_id: 'urls-1', status: 'COMPLETED', generated: [`${storage.url}/a.png`, `${storage.url}/b.png`] } };
			const video = {
				task_id: 'urls-2',
				state: 'success',
				creations: [{ id: 'c1', url: `${storage.url}/v.mp4`, cover_url: `${storage.url}/c.png` }],
			};
			const active = new ActiveTrigger(harness);
			const passed = [...(await active.deliver(image)).passedOn, ...(await active.deliver(video)).passedOn];
			expect(passed.map((item) => item.json.task_id)).toEqual(['urls-1', 'urls-2']);
			expect(passed.every((item) => item.binary === undefined)).toBe(true);
			expect(storage.seen).toHaveLength(0);
		} finally {
			await storage.close();
		}
	});

	describe('with the simulator sending its own notifications', () => {
		let sim: Simulator;
		let receiver: LoopbackServer;
		const active = new ActiveTrigger(harness);
		const emitted: unknown[] = [];

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

		it('emits exactly one item per final notification when the service repeats them', async () => {
			sim.faults.duplicateNotifications = { times: 3 };
			const auth = { headers: { Authorization: `Bearer ${sim.accessToken}` } };
			const image = await axios.post(
				`${sim.registryUrl}/proxy/imaging/v1/ai/image-upscaler`,
				{ image: 'https://example.com/in.png', webhook_url: `${receiver.url}/hook` },
				auth,
			);
			const video = await axios.post(
				`${sim.registryUrl}/proxy/video/extend`,
				{ model: 'videoq2-turbo', callback_url: `${receiver.url}/hook` },
				auth,
			);
			const imageId = image.data.data.task_id as string;
			const videoId = video.data.task_id as string;
			await sim.proxy.waitForDeliveries(
				(all) => all.filter((d) => d.done && d.delivered).length >= 3 * 5 && all.every((d) => d.done),
				10000,
			);
			expect(emitted).toHaveLength(2);
			expect(emitted).toEqual(
				expect.arrayContaining([
					expect.objectContaining({
						task_id: imageId,
						kind: 'image',
						status: 'succeeded',
						generated: [expect.stringContaining(sim.storageUrl)],
					}),
					expect.objectContaining({
						task_id: videoId,
						kind: 'video',
						status: 'succeeded',
						creations: [expect.objectContaining({ url: expect.stringContaining(sim.storageUrl) })],
					}),
				]),
			);
		});
	});
});
