/**
 * Host Media's *Wait for Notification* in queue mode: the execution waits (status `waiting`)
 * holding no worker slot; the service's notification reaches the resume URL on the webhook
 * processor, which puts the execution back on the queue; a worker resumes it and it ends with the
 * video as binary data in the database.
 */
import { startWaitingForVideoTask, withSimulatorTiming } from '../../support/in-flight';
import { describeFailure, outputItems } from '../../support/n8n-client';
import { enqueuedBy, runningJobs, runsOf } from '../../support/queue-logs';
import { MEDIA_NODE, mediaWaitWorkflow } from '../../support/queue-workflows';
import { queue } from '../context';

describe('queue mode: Host Media waiting for a notification', () => {
	it('waits without a worker slot; the notification resumes it through the webhook processor on a worker, with the file', async () => {
		const { client, importWorkflow, simulator, main, workers, webhookProcessors, redis } = queue();
		const workflow = await importWorkflow(mediaWaitWorkflow('Queue: wait for notification', { downloadFiles: true }));
		// Each of the task's states lasts 1.5 s, so the wait is long enough to look at.
		await withSimulatorTiming(simulator, 'videoStepMs', 1500, async () => {
			const { executionId, waiting, callbackUrl } = await startWaitingForVideoTask(client, simulator, workflow.id);
			expect(waiting.status).toBe('waiting');
			// The resume URL the node gave the service is the webhook processor's (N8N_WEBHOOK_URL).
			expect(callbackUrl.startsWith(`${webhookProcessors[0]!.url}/webhook-waiting/${executionId}?signature=`)).toBe(true);

			// While it waits, no worker holds it: the worker that ran it let its job go, and the queue has no active job.
			expect(runsOf(executionId, workers)).toEqual([expect.objectContaining({ finished: true })]);
			expect(workers.map((worker) => runningJobs(worker).length)).toEqual(workers.map(() => 0));
			expect(await redis.command('LLEN', 'bull:jobs:active')).toBe('0');

			const done = await client.waitForExecution(executionId, { timeoutMs: 60000 });
			expect(describeFailure(done)).toBe('succeeded');
			// The final notification went to the webhook processor, which put the execution back on the queue; a worker finished it.
			const deliveries = simulator.proxy.deliveries.filter((delivery) => delivery.url === callbackUrl);
			expect(deliveries.some((delivery) => delivery.delivered && JSON.stringify(delivery.body).includes('success'))).toBe(true);
			expect(enqueuedBy(executionId, [main, ...webhookProcessors])).toEqual(['main', 'webhook-1']);
			expect(runsOf(executionId, workers)).toEqual([
				expect.objectContaining({ finished: true }),
				expect.objectContaining({ finished: true }),
			]);

			const [item] = outputItems(done, MEDIA_NODE);
			expect(item!.json).toMatchObject({ task_type: 'extend', status: 'succeeded', final: true });
			const video = Object.values(item!.binary ?? {}).find((binary) => binary.mimeType === 'video/mp4');
			expect(video?.id).toMatch(/^database:/);
			const bytes = await client.binaryContent(video!);
			const original = Buffer.from(await (await fetch(String(item!.json.video_url))).arrayBuffer());
			expect(bytes.equals(original)).toBe(true);
		});
	});
});
