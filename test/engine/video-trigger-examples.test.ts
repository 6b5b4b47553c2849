/**
 * The example pair for long videos: video-start-dont-wait.json starts a video and moves on, and
 * video-task-trigger.json's Host Task Trigger receives the service's notifications. Both nodes
 * run as written; a loopback server stands in for n8n's webhook server at the trigger's URL.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import axios from 'axios';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { startLoopbackServer } from '../helpers/loopback-server';
import { useMediaEnv } from '../helpers/media';

const env = useMediaEnv({ notifyBackoffMs: 10 });

interface ExampleNode {
	name: string;
	type: string;
	webhookId?: string;
	typeVersion: number;
	parameters: Record<string, unknown>;
}

const load = (file: string) =>
	(JSON.parse(readFileSync(join(__dirname, '..', '..', 'examples', file), 'utf8')) as { nodes: ExampleNode[] }).nodes;

describe('examples: start a video without waiting + Host Task Trigger', () => {
	it('the trigger emits one item with the finished video, whose URL the storage serves', async () => {
		const starter = load('video-start-dont-wait.json');
		const triggerNodes = load('video-task-trigger.json');
		const trigger = triggerNodes.find((node) => node.type === 'n8n-nodes-host.hostTaskTrigger')!;
		const media = starter.find((node) => node.type === 'n8n-nodes-host.hostMedia')!;
		const settings = starter.find((node) => node.name === 'Settings')!;
		const download = triggerNodes.find((node) => node.name === 'Download video')!;
		expect(download.parameters.url).toBe('={{ $json.creations[0].url }}');

		const triggerWorkflow = env.harness.buildWorkflow({
			nodes: [{ name: trigger.name, type: 'hostTaskTrigger', parameters: trigger.parameters as INodeParameters }],
		});
		const emitted: IDataObject[] = [];
		const webhookPath = `/webhook/${trigger.webhookId}/host-task`;
		const n8n = await startLoopbackServer((req, res) => {
			if (req.url !== webhookPath) {
				res.writeHead(404);
				return void res.end();
			}
			void env.harness.callWebhook(triggerWorkflow, trigger.name, { body: JSON.parse(req.body) }).then((call) => {
				emitted.push(...(call.result.workflowData?.[0] ?? []).map((item) => item.json));
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
			const videoUrl = (emitted[0]!.creations as Array<{ url: string }>)[0]!.url;
			const video = await axios.get(videoUrl, { responseType: 'arraybuffer' });
			expect(Buffer.from(video.data).subarray(4, 8).toString()).toBe('ftyp');
		} finally {
			await n8n.close();
		}
	});
});
