/**
 * The editor's Stop button in queue mode: the main process receives the stop, the worker that runs
 * the execution hears of it through the queue and aborts the node, which cancels its own cloud job.
 */
import { startWithRunningCloudJob, withSimulatorTiming } from '../../support/in-flight';
import { runningJobs, runsOf } from '../../support/queue-logs';
import { manualCloudWorkflow } from '../../support/queue-workflows';
import { waitFor } from '../../support/wait';
import { queue } from '../context';

describe('queue mode: stopping an execution', () => {
	it('a stop sent to the main process while the node waits on a worker cancels the cloud job; the execution ends as canceled', async () => {
		const { client, importWorkflow, simulator, workers } = queue();
		const workflow = await importWorkflow(manualCloudWorkflow('Queue: to be stopped', { downloadFiles: false }));
		await withSimulatorTiming(simulator, 'nodeMs', 3000, async () => {
			const { executionId, promptId } = await startWithRunningCloudJob(client, simulator, workflow.id);
			const [run] = runsOf(executionId, workers);
			expect(run).toMatchObject({ finished: false, errored: false });

			await client.stopExecution(executionId);

			const stopped = await client.waitForExecution(executionId, { timeoutMs: 30000 });
			expect(stopped.status).toBe('canceled');
			await waitFor('the job to be cancelled on the cloud', () => simulator.cloud.jobs.get(promptId)?.status === 'cancelled', {
				timeoutMs: 15000,
			});
			const deletes = simulator.requestsTo('POST', '/api/queue').map((request) => JSON.parse(request.body) as { delete?: string[] });
			expect(deletes.filter((body) => body.delete?.includes(promptId))).toHaveLength(1);
			expect(simulator.requestsTo('POST', '/api/interrupt')).toHaveLength(0);
			// The worker that ran it let the job go: its slot is free.
			const worker = workers.find((candidate) => candidate.name === run!.worker)!;
			await waitFor('the worker to let the job go', () => runningJobs(worker).length === 0);
			expect(runsOf(executionId, workers)).toEqual([expect.objectContaining({ errored: true })]);
		});
	});
});
