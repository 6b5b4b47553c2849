/**
 * The example pair for long videos: video-start-dont-wait.json starts a video and moves on, and
 * video-task-trigger.json's Host Task Trigger receives the service's notifications, and its Host
 * Media node reads the finished task from the service and downloads the video. The nodes run as
 * written; a loopback server stands in for n8n's webhook server at the trigger's URL.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { readBinary } from '../../support/engine';
import { ActiveTrigger } from '../../support/active-trigger';
import { startLoopbackServer } from '../../support/loopback-server';
import { useMediaEnv } from '../../support/media';

const env = useMediaEnv({ notifyBackoffMs: 10 });

interface ExampleNode {
	name: string;
	type: string;
	webhookId?: string;
	typeVersion: number;
	parameters: Record<string, unknown>;
}

const load = (file: string) =>
	(JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'examples', file), 'utf8')) as { nodes: ExampleNode[] }).nodes;

describe('examples: start a video without waiting + Host Task Trigger', () => {
	it('the trigger emits one item per finished video; "Get video" downloads the video the service names', async () => {
		const starter = load('video-start-dont-wait.json');
		const triggerNodes = load('video-task-trigger.json');
		const trigger = triggerNodes.find((node) => node.type === 'n8n-nodes-host.hostTaskTrigger')!;
		const media = starter.find((node) => node.type === 'n8n-nodes-host.hostMedia')!;
		const settings = starter.find((node) => node.name === 'Settings')!;
		const getVideo = triggerNodes.find((node) => node.name === 'Get video')!;
		expect(getVideo).toMatchObject({
			type: 'n8n-nodes-host.hostMedia',
			parameters: { operation: 'getTaskStatus', taskId: '={{ $json.task_id }}' },
		});

		// Active, as n8n runs it: the webhook, then the execution it starts (where repeats are recorded).
		const activeTrigger = new ActiveTrigger(env.harness, trigger.parameters as INodeParameters);
		const emitted: IDataObject[] = [];
		const webhookPath = `/webhook/${trigger.webhookId}/host-task`;
		const n8n = await startLoopbackServer((req, res) => {
			if (req.url !== webhookPath) {
				res.writeHead(404);
				return void res.end();
			}
			void activeTrigger.deliver(JSON.parse(req.body)).then(({ call, passedOn }) => {
				emitted.push(...passedOn.map((item) => item.json));
				res.writeHead(call.status, { 'content-type': 'application/json' });
				res.end(JSON.stringify(call.body));
			});
		});
		try {
			// The Settings node's values, with the trigger URL pointing at this test's n8n stand-in.
			const values = Object.fromEntries(
				(settings.parameters.assignments as { assignments: Array<{ name: string; value: string }> }).assignments.map((a) => [
					a.name,
					a.value,
				]),
			);
			expect(values.triggerUrl).toContain(webhookPath);
			values.triggerUrl = `${n8n.url}${webhookPath}`;

			env.sim.faults.duplicateNotifications = { times: 2 };
			expect(media.typeVersion).toBe(2);
			const started = await env.run(media.parameters as IDataObject, [{ json: values }], { typeVersion: media.typeVersion });
			expect(started.status).toBe('success');
			const taskId = String(started.items[0]!.json.task_id);
			expect(started.items[0]!.json).toMatchObject({ status: 'pending', callback_url: values.triggerUrl });

			await env.sim.proxy.waitForDeliveries((all) => all.length >= 6 && all.every((d) => d.done));
			expect(emitted).toHaveLength(1);
			expect(emitted[0]).toMatchObject({ task_id: taskId, kind: 'video', status: 'succeeded' });
			expect((emitted[0]!.creations as Array<{ url: string }>)[0]!.url).toContain(env.sim.storageUrl);

			// "Get video" takes the task ID from the notification, and nothing else: a notification
			// naming another address (anyone who knows the trigger's URL can send one) changes nothing.
			const forged = { ...emitted[0]!, creations: [{ url: 'http://127.0.0.1:9/internal' }] };
			const got = await env.run(getVideo.parameters as IDataObject, [{ json: forged }], { typeVersion: getVideo.typeVersion });
			expect(got.status).toBe('success');
			expect(got.items[0]!.json).toMatchObject({
				task_id: taskId,
				status: 'succeeded',
				video_url: expect.stringContaining(env.sim.storageUrl),
			});
			expect((await readBinary(got.items[0]!.binary!.data!)).subarray(4, 8).toString()).toBe('ftyp');
			expect(env.sim.requestsTo('GET', `/proxy/video/tasks/${taskId}/creations`)).toHaveLength(1);
		} finally {
			await n8n.close();
		}
	});
});
