/**
 * n8n killed (SIGKILL) while an execution waits on a Host Cloud job, in regular mode (issue 35). On
 * restart n8n 2.41.1 marks the execution `crashed` and starts its Error Workflow: here the
 * cancel-orphaned-jobs recipe as it is, which cancels the job the execution left running, within
 * 10 s of the marking, and mails the report (workflow, execution, error, the job by prompt_id) to
 * a loopback SMTP server. The job would otherwise run to its end, billed, with nobody to receive it.
 *
 * The restart keeps n8n's user folder, database and port, as restart.ts does; the cases after this
 * file run on the restarted n8n.
 */
import { recordReliability } from '../../support/reliability';
import { e2e } from '../support/context';
import { withSimulatorTiming } from '../support/in-flight';
import {
	expectOrphanCancelled,
	publishOrphanRecipe,
	runningTaggedJob,
	webhookJobWithErrorWorkflow,
	whenMarkedFailed,
} from '../support/orphans';
import { postJson } from '../support/queue-workflows';
import { startMailServer, type StandaloneMailServer } from '../support/recipe-servers';
import { waitFor } from '../support/wait';

/** Seven nodes of 8 s: the job runs through the kill, the restart and the recovery. */
const NODE_MS = 8000;

const WORKFLOW_NAME = 'Crash: job left running';

describe('n8n killed while an execution waits on a cloud job', () => {
	let mail: StandaloneMailServer | undefined;
	beforeAll(async () => {
		mail = await startMailServer();
	}, 300000);
	afterAll(async () => {
		await mail?.stop();
	});

	it('on restart the execution is marked crashed, and its Error Workflow cancels the orphaned job within 10 s and mails the workflow, execution, error and the job by prompt_id', async () => {
		const { client, importWorkflow, simulator, n8n } = e2e();
		const canceller = await publishOrphanRecipe({ client, importWorkflow }, mail!);
		const { workflow: json, path } = webhookJobWithErrorWorkflow(WORKFLOW_NAME, canceller.id);
		const workflow = await importWorkflow(json);
		await client.activateWorkflow(workflow.id);
		try {
			await withSimulatorTiming(simulator, 'nodeMs', NODE_MS, async () => {
				const before = new Set(simulator.cloud.jobs.keys());
				const url = `${n8n.url}/webhook/${path}`;
				await waitFor('the production webhook to answer', async () => (await postJson(url, { tag: 'crash' })).status === 200, {
					timeoutMs: 20000,
					intervalMs: 250,
				});
				const { promptId, executionId } = await runningTaggedJob(simulator, before);
				const known = await client.executionIds(canceller.id);

				const killedAt = Date.now();
				await n8n.kill();
				const restartedAt = Date.now();
				await n8n.restart();
				const readyAt = Date.now();
				const { execution, seenAt } = await whenMarkedFailed(client, executionId, 60000);
				expect(execution.status).toBe('crashed');
				const figures = await expectOrphanCancelled(
					client,
					simulator,
					{ id: canceller.id, known },
					{
						promptId,
						executionId,
						workflowId: workflow.id,
						workflowName: WORKFLOW_NAME,
						error: /Workflow did not finish/,
						seenAt,
						jobMs: 7 * NODE_MS,
					},
					mail!,
				);
				recordReliability('crash_orphans', {
					mode: 'regular',
					seconds_down: Number(((readyAt - killedAt) / 1000).toFixed(1)),
					restart_seconds: Number(((readyAt - restartedAt) / 1000).toFixed(1)),
					execution_status: execution.status,
					job_cancelled: true,
					...figures,
				});
			});
		} finally {
			await client.deactivateWorkflow(workflow.id);
			await client.deactivateWorkflow(canceller.id);
		}
	}, 240000);
});
