/**
 * A worker killed (SIGKILL) while its execution waits on a cloud job. What n8n 2.41.1 does, as
 * found here and written in docs/queue-mode.md: nothing retries the execution. Once the job's lock
 * in the queue has expired, a live worker's stall check fails the job (about 15 s after the kill
 * with this stack's shortened lock settings; up to 90 s with n8n's defaults), and the process that
 * put the execution on the queue, here the webhook processor (the execution is started by a
 * production webhook: n8n starts no Error Workflow for a run started by hand), logs "Problem with
 * execution … Aborting.", marks it as failed ("This execution failed to be processed too many
 * times…"), about 45 s after the kill in these runs, and starts its Error Workflow. That is the
 * cancel-orphaned-jobs recipe as it is: it cancels the cloud job the execution left running, within
 * 10 s of the marking, and mails the report (workflow, execution, error, the job by prompt_id) to a
 * loopback SMTP server. The other worker keeps working. This case runs last: the stack has one
 * worker after it.
 */
import { recordReliability } from '../../../support/reliability';
import { withSimulatorTiming } from '../../support/in-flight';
import { describeFailure } from '../../support/n8n-client';
import {
	expectOrphanCancelled,
	publishOrphanRecipe,
	runningTaggedJob,
	webhookJobWithErrorWorkflow,
	whenMarkedFailed,
} from '../../support/orphans';
import { QUEUE_LOCK_SETTINGS } from '../../support/queue-stack';
import { abortedBy, enqueuedBy, runsOf } from '../../support/queue-logs';
import { manualCloudWorkflow, postJson } from '../../support/queue-workflows';
import { startMailServer, type StandaloneMailServer } from '../../support/recipe-servers';
import { waitFor } from '../../support/wait';
import { queue } from '../context';

/** Seven nodes of 15 s: the job runs through the kill, the stall check and the marking. */
const NODE_MS = 15000;

const WORKFLOW_NAME = 'Queue: worker killed';

describe('queue mode: a worker killed mid-execution', () => {
	let mail: StandaloneMailServer | undefined;
	beforeAll(async () => {
		mail = await startMailServer();
	}, 300000);
	afterAll(async () => {
		await mail?.stop();
	});

	it('fails the execution once the queue notices; its Error Workflow cancels the orphaned cloud job within 10 s and mails the workflow, execution, error and the job by prompt_id; the other worker keeps working', async () => {
		const stack = queue();
		const { client, importWorkflow, simulator, workers } = stack;
		const canceller = await publishOrphanRecipe(stack, mail!);
		const { workflow: json, path } = webhookJobWithErrorWorkflow(WORKFLOW_NAME, canceller.id);
		const workflow = await importWorkflow(json);
		await client.activateWorkflow(workflow.id);
		try {
			const survivor = await withSimulatorTiming(simulator, 'nodeMs', NODE_MS, async () => {
				const before = new Set(simulator.cloud.jobs.keys());
				const url = `${stack.webhookProcessors[0]!.url}/webhook/${path}`;
				await waitFor('the production webhook to answer', async () => (await postJson(url, { tag: 'killed' })).status === 200, {
					timeoutMs: 20000,
					intervalMs: 250,
				});
				const { promptId, executionId } = await runningTaggedJob(simulator, before);
				const [run] = await waitFor('a worker to run the execution', () => runsOf(executionId, workers)[0] && runsOf(executionId, workers));
				const victim = workers.find((worker) => worker.name === run!.worker)!;
				const other = workers.find((worker) => worker !== victim)!;
				const known = await client.executionIds(canceller.id);
				const killedAt = Date.now();
				await stack.killWorker(victim);

				const { execution: failed, seenAt } = await whenMarkedFailed(client, executionId, 120000);
				const noticedAfterMs = seenAt - killedAt;
				process.stderr.write(
					`[e2e:queue] killed ${victim.name}: execution ${executionId} ended as "${failed.status}" after ${(noticedAfterMs / 1000).toFixed(1)} s (lock ${QUEUE_LOCK_SETTINGS.QUEUE_WORKER_LOCK_DURATION} ms)\n`,
				);
				expect(failed.status).toBe('error');
				expect(failed.error?.message).toMatch(/failed to be processed too many times/);
				// The webhook processor that put it on the queue gave it up, not the main process.
				const enqueuers = enqueuedBy(executionId, stack.processes);
				expect(enqueuers).toEqual([stack.webhookProcessors[0]!.name]);
				expect(
					await waitFor(
						'the process that gave it up',
						() => abortedBy(executionId, stack.processes)[0] && abortedBy(executionId, stack.processes),
					),
				).toEqual(enqueuers);
				// Nothing retried it: no worker took it again.
				expect(runsOf(executionId, [other])).toEqual([]);

				const figures = await expectOrphanCancelled(
					client,
					simulator,
					{ id: canceller.id, known },
					{
						promptId,
						executionId,
						workflowId: workflow.id,
						workflowName: WORKFLOW_NAME,
						error: /failed to be processed too many times/,
						seenAt,
						jobMs: 7 * NODE_MS,
					},
					mail!,
				);
				recordReliability('crash_orphans_queue', {
					mode: 'queue',
					execution_marked_seconds_after_kill: Number((noticedAfterMs / 1000).toFixed(1)),
					execution_status: failed.status,
					job_cancelled: true,
					...figures,
				});
				return other;
			});

			// The other worker keeps working.
			const manual = await importWorkflow(manualCloudWorkflow('Queue: after the kill', { downloadFiles: false }));
			const next = await client.runWorkflow(manual.id, { timeoutMs: 60000 });
			expect(describeFailure(next)).toBe('succeeded');
			expect(runsOf(next.id, [survivor])).toEqual([expect.objectContaining({ finished: true })]);
		} finally {
			await client.deactivateWorkflow(workflow.id);
			await client.deactivateWorkflow(canceller.id);
		}
	}, 240000);
});
