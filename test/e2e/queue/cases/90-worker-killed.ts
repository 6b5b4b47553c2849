/**
 * A worker killed (SIGKILL) while its execution waits on a cloud job. What n8n 2.41.1 does, as
 * found here and written in the README: nothing retries the execution. Once the job's lock in the
 * queue has expired, a live worker's stall check fails the job (about 15 s after the kill with this
 * stack's shortened lock settings; up to 90 s with n8n's defaults), and the main process then marks
 * the execution as failed ("This execution failed to be processed too many times…"), about 45 s
 * after the kill in these runs. Nobody cancels the cloud job: it runs to its end on the service, and
 * its output reaches no n8n execution. The other worker keeps working. This case runs last: the
 * stack has one worker after it.
 */
import { startWithRunningCloudJob, withSimulatorTiming } from '../../support/in-flight';
import { describeFailure } from '../../support/n8n-client';
import { QUEUE_LOCK_SETTINGS } from '../../support/queue-stack';
import { runsOf } from '../../support/queue-logs';
import { manualCloudWorkflow } from '../../support/queue-workflows';
import { waitFor } from '../../support/wait';
import { queue } from '../context';

describe('queue mode: a worker killed mid-execution', () => {
	it('fails the execution once the queue notices, leaves the cloud job running to its end, and the other worker keeps working', async () => {
		const stack = queue();
		const { client, importWorkflow, simulator, workers } = stack;
		const workflow = await importWorkflow(manualCloudWorkflow('Queue: worker killed', { downloadFiles: false }));
		// Seven nodes of 5 s: the job is still running when the worker dies, and long after.
		const survivor = await withSimulatorTiming(simulator, 'nodeMs', 5000, async () => {
			const { executionId, promptId } = await startWithRunningCloudJob(client, simulator, workflow.id);
			const [run] = runsOf(executionId, workers);
			const victim = workers.find((worker) => worker.name === run!.worker)!;
			const other = workers.find((worker) => worker !== victim)!;
			const killedAt = Date.now();
			await stack.killWorker(victim);

			const failed = await client.waitForExecution(executionId, { timeoutMs: 120000 });
			const noticedAfterMs = Date.now() - killedAt;
			process.stderr.write(
				`[e2e:queue] killed ${victim.name}: execution ${executionId} ended as "${failed.status}" after ${(noticedAfterMs / 1000).toFixed(1)} s (lock ${QUEUE_LOCK_SETTINGS.QUEUE_WORKER_LOCK_DURATION} ms)\n`,
			);
			expect(failed.status).toBe('error');
			expect(failed.error?.message).toMatch(/failed to be processed too many times/);
			// Nothing retried it: no worker took it again.
			expect(runsOf(executionId, [other])).toEqual([]);

			// The cloud job was not cancelled: it runs to its end on the service.
			expect(simulator.requestsTo('POST', '/api/queue').some((request) => request.body.includes(promptId))).toBe(false);
			expect(simulator.cloud.jobs.get(promptId)?.status).not.toBe('cancelled');
			await waitFor('the orphaned job to finish on the cloud', () => simulator.cloud.jobs.get(promptId)?.status === 'completed', {
				timeoutMs: 60000,
			});
			return other;
		});

		// The other worker keeps working.
		const next = await client.runWorkflow(workflow.id, { timeoutMs: 60000 });
		expect(describeFailure(next)).toBe('succeeded');
		expect(runsOf(next.id, [survivor])).toEqual([expect.objectContaining({ finished: true })]);
	}, 240000);
});
