/**
 * Host Cloud Trigger in queue mode: the trigger listens on the main process (where n8n runs
 * triggers), each job a script posts to the cloud starts one execution, which the main process puts
 * on the queue and a worker runs, with the job's file links. Not its files as binary data: n8n 2.41
 * moves the binary data a trigger makes to the execution only for webhooks, and in binary data mode
 * "database" such a file could not be read back (n8n answered 404), so the docs say to download in a
 * node after the trigger.
 */
import { postJobFromOutside, whenCloudTriggerListens } from '../../support/cloud-jobs';
import { outputItems } from '../../support/n8n-client';
import { enqueuedBy, runsOf } from '../../support/queue-logs';
import { waitFor } from '../../support/wait';
import { hostNodeType, linearWorkflow } from '../../support/workflows';
import { queue } from '../context';

const TRIGGER = 'When a job succeeds';

describe('queue mode: Host Cloud Trigger', () => {
	it('listens on the main process; each job started outside n8n starts one execution, run on a worker, with its file links', async () => {
		const { client, importWorkflow, main, workers, webhookProcessors, simulator } = queue();
		const workflow = await importWorkflow(
			linearWorkflow('Queue: cloud trigger', [
				{
					name: TRIGGER,
					type: hostNodeType('hostCloudTrigger'),
					typeVersion: 1,
					// Files as links: n8n (2.41) moves a trigger's binary data to its execution for webhooks only,
					// so in binary data mode "database" the trigger's files cannot be read back (docs/queue-mode.md).
					parameters: { events: 'succeeded', downloadFiles: false },
					credentials: { hostCloudApi: { name: 'Host Cloud API' } },
				},
			]),
		);
		const known = await client.executionIds(workflow.id);
		const listening = whenCloudTriggerListens(simulator);
		await client.activateWorkflow(workflow.id);
		try {
			await listening();
			const promptIds = [await postJobFromOutside(simulator), await postJobFromOutside(simulator)];
			const executions = await waitFor(
				'an execution per job',
				async () => {
					const listed = (await client.listExecutions(workflow.id, { limit: 100 })).filter((execution) => !known.has(execution.id));
					return listed.length >= 2 && listed.every((execution) => execution.status === 'success') ? listed : undefined;
				},
				{ timeoutMs: 60000 },
			);
			// Time for a repeat to show.
			await new Promise((resolve) => setTimeout(resolve, 3000));
			expect((await client.listExecutions(workflow.id, { limit: 100 })).filter((execution) => !known.has(execution.id))).toHaveLength(
				promptIds.length,
			);
			const started: string[] = [];
			for (const { id } of executions) {
				const execution = await client.getExecution(id);
				const [item] = outputItems(execution, TRIGGER);
				started.push(String(item!.json.prompt_id));
				// The main process put it on the queue; one worker ran it.
				expect(enqueuedBy(id, [main, ...webhookProcessors])).toEqual(['main']);
				expect(runsOf(id, workers)).toEqual([expect.objectContaining({ finished: true, errored: false })]);
				expect(item!.binary).toBeUndefined();
				const file = (item!.json.images as Array<{ url: string }>)[0]!;
				expect((await fetch(file.url)).status).toBe(200);
			}
			expect(started.sort()).toEqual([...promptIds].sort());
		} finally {
			await client.deactivateWorkflow(workflow.id);
		}
	}, 180000);
});
