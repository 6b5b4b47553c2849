/**
 * Through a real n8n's own HTTP server: a Host Media video task in "Wait for Notification" mode
 * puts the execution to waiting with its resume URL sent to the service, and the service's
 * callback (retried while n8n answers 409) resumes it with the video, read from the task's status.
 */
import { e2e } from '../support/context';
import { startWaitingForVideoTask, withSimulatorTiming } from '../support/in-flight';
import { describeFailure, outputItems } from '../support/n8n-client';
import { waitFor } from '../support/wait';
import { hostNodeType, linearWorkflow, manualTriggerNode } from '../support/workflows';

describe('webhook waiting in n8n', () => {
	it('a video task in webhook mode waits, then the callback resumes it with the video', async () => {
		const { client, importWorkflow, simulator } = e2e();
		const workflow = await importWorkflow(
			linearWorkflow('Host Media: video, wait for notification', [
				manualTriggerNode(),
				{
					name: 'Extend video',
					type: hostNodeType('hostMedia'),
					typeVersion: 1,
					parameters: { resource: 'video', operation: 'extend', model: 'videoq2-turbo', waitMode: 'webhook', downloadFiles: false },
					credentials: { hostApi: { name: 'Host API' } },
				},
			]),
		);
		await withSimulatorTiming(simulator, 'videoStepMs', 1500, async () => {
			const { executionId, waiting, callbackUrl } = await startWaitingForVideoTask(client, simulator, workflow.id);
			expect(waiting.status).toBe('waiting');
			expect(callbackUrl).toMatch(new RegExp(`/webhook-waiting/${executionId}\\?signature=`));

			const done = await client.waitForExecution(executionId, { timeoutMs: 60000 });
			expect(describeFailure(done)).toBe('succeeded');
			const [item] = outputItems(done, 'Extend video');
			expect(item!.json).toMatchObject({
				task_type: 'extend',
				status: 'succeeded',
				final: true,
				video_url: expect.stringContaining(simulator.storageUrl),
			});
			// The notification only woke the execution: the result was read from the task's status, with the credential.
			const statusReads = simulator.requestsTo('GET', `/proxy/video/tasks/${String(item!.json.task_id)}/creations`);
			expect(statusReads.map((r) => r.status)).toContain(200);
			const deliveries = simulator.proxy.deliveries.filter((d) => d.url === callbackUrl);
			expect(deliveries.some((d) => d.delivered && d.body && JSON.stringify(d.body).includes('success'))).toBe(true);
		});
	});
});

describe('Host Task Trigger in n8n', () => {
	it('starts one execution for a notification the service repeats', async () => {
		const { client, importWorkflow, webhookUrl } = e2e();
		const workflow = await importWorkflow(
			linearWorkflow('Host Task Trigger: repeats', [
				{ name: 'Host Task Trigger', type: hostNodeType('hostTaskTrigger'), typeVersion: 1, parameters: { events: 'final' } },
			]),
		);
		await client.activateWorkflow(workflow.id);
		try {
			const known = await client.executionIds(workflow.id);
			const url = webhookUrl(workflow as never, 'Host Task Trigger', 'host-task');
			const body = JSON.stringify({ data: { task_id: 'e2e-repeat-1', status: 'COMPLETED', generated: ['https://example.com/x.png'] } });
			const send = () => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
			// The production webhook goes live as the activation completes.
			await waitFor('the trigger webhook to be registered', async () => (await send()).status === 200, {
				timeoutMs: 15000,
				intervalMs: 250,
			});
			const execution = await client.waitForNewExecution(workflow.id, known);
			expect(outputItems(execution, 'Host Task Trigger')[0]!.json).toMatchObject({ task_id: 'e2e-repeat-1', status: 'succeeded' });
			// Once that execution has recorded the notification, repeats are acknowledged and start nothing.
			for (let i = 0; i < 2; i++) {
				const repeat = await send();
				expect(repeat.status).toBe(200);
				expect(await repeat.json()).toEqual({ received: true, ignored: 'repeated notification' });
			}
			await new Promise((resolve) => setTimeout(resolve, 1500));
			expect((await client.listExecutions(workflow.id)).filter((e) => !known.has(e.id))).toHaveLength(1);
		} finally {
			await client.deactivateWorkflow(workflow.id);
		}
	});
});
