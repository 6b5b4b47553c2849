/**
 * Through a real n8n's own HTTP server: a Host Media video task in "Wait for Notification" mode
 * puts the execution to waiting with its resume URL sent to the service, and the service's
 * callback (retried while n8n answers 409) resumes it with the video.
 */
import { e2e } from '../support/context';
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
		const slowSteps = simulator.options.videoStepMs;
		simulator.options.videoStepMs = 1500;
		try {
			const executionId = await client.startWorkflow(workflow.id);
			const waiting = await client.waitForExecution(executionId, { statuses: ['waiting'], timeoutMs: 30000 });
			expect(waiting.status).toBe('waiting');
			const submit = await waitFor('the extend task to be submitted', () =>
				simulator.requestsTo('POST', '/proxy/video/extend').find((r) => r.body.includes(`/${executionId}`)),
			);
			const callbackUrl = String(JSON.parse(submit.body).callback_url);
			expect(callbackUrl).toMatch(new RegExp(`/webhook-waiting/${executionId}\\?signature=`));

			const done = await client.waitForExecution(executionId, { timeoutMs: 60000 });
			expect(describeFailure(done)).toBe('succeeded');
			const [item] = outputItems(done, 'Extend video');
			expect(item!.json).toMatchObject({ status: 'succeeded', final: true, video_url: expect.stringContaining(simulator.storageUrl) });
			const deliveries = simulator.proxy.deliveries.filter((d) => d.url === callbackUrl);
			expect(deliveries.some((d) => d.delivered && d.body && JSON.stringify(d.body).includes('success'))).toBe(true);
		} finally {
			simulator.options.videoStepMs = slowSteps;
		}
	});
});
