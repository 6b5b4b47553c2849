/**
 * Host Cloud Trigger in a published workflow of a real n8n (issue 38): each job started outside n8n
 * (a script posting to the cloud) starts one execution with its prompt_id and image link, across a
 * SIGKILL and restart of n8n: a job that ended while n8n was down (queued when the workflow was
 * published, so in the memory n8n saved then), and one running through the restart, each start
 * exactly one execution; none starts twice.
 *
 * The restart keeps n8n's user folder, database and port, as restart.ts does; the cases after this
 * file run on the restarted n8n.
 */
import { postJobFromOutside, whenCloudTriggerListens } from '../support/cloud-jobs';
import { e2e } from '../support/context';
import { outputItems, type N8nClient } from '../support/n8n-client';
import { waitFor } from '../support/wait';
import { hostNodeType, linearWorkflow } from '../support/workflows';

const TRIGGER = 'When a job finishes';

/** The prompt_id each finished execution of the workflow started with, oldest first. */
async function startedWith(client: N8nClient, workflowId: string): Promise<string[]> {
	const executions = (await client.listExecutions(workflowId, { limit: 100 })).sort((a, b) => Number(a.id) - Number(b.id));
	const ids: string[] = [];
	for (const { id } of executions) {
		const execution = await client.waitForExecution(id, { timeoutMs: 30000 });
		for (const item of outputItems(execution, TRIGGER)) ids.push(String(item.json.prompt_id));
	}
	return ids;
}

/** Of `ids`, those the workflow started with so far, in the order it started them (others' jobs of the account left out). */
async function startedFor(client: N8nClient, workflowId: string, ids: string[]): Promise<string[]> {
	return (await startedWith(client, workflowId)).filter((id) => ids.includes(id));
}

describe('Host Cloud Trigger in a published workflow', () => {
	it('starts one execution per job started outside n8n, with its image link, and across a kill and restart loses none and repeats none', async () => {
		const { client, importWorkflow, simulator, n8n } = e2e();
		const workflow = await importWorkflow(
			linearWorkflow('Cloud trigger: every job', [
				{
					name: TRIGGER,
					type: hostNodeType('hostCloudTrigger'),
					typeVersion: 1,
					parameters: { events: 'finished', downloadFiles: false },
					credentials: { hostCloudApi: { name: 'Host Cloud API' } },
				},
				{ name: 'Next', type: 'n8n-nodes-base.noOp', typeVersion: 1, parameters: {} },
			]),
		);
		// Queued when the workflow is published: the trigger's first look finds it, and n8n saves that memory.
		const endsWhileDown = await postJobFromOutside(simulator, 2500);
		const listening = whenCloudTriggerListens(simulator);
		await client.activateWorkflow(workflow.id);
		try {
			// n8n 2.41 answers the publish before the trigger runs: a job that ended before it listens is not seen (the docs say so).
			await listening();
			const first = await postJobFromOutside(simulator, 20);
			await waitFor('the first job’s execution', async () => (await startedFor(client, workflow.id, [first])).length === 1, {
				timeoutMs: 30000,
			});
			const execution = (
				await Promise.all((await client.listExecutions(workflow.id)).map(async ({ id }) => await client.waitForExecution(id)))
			).find((candidate) => outputItems(candidate, TRIGGER)[0]?.json.prompt_id === first);
			const [item] = outputItems(execution!, TRIGGER);
			expect(item!.json).toMatchObject({ prompt_id: first, status: 'succeeded' });
			expect((item!.json.images as Array<{ url: string }>)[0]!.url).toMatch(/signature=/);

			// Running through the kill and the restart: 8 s a node (about a minute in all), so that it is still
			// running when the restarted trigger first looks, however long n8n takes to come back (4 s a node
			// ended during the restart on a busy machine, and a job that starts and ends while n8n is down and
			// was not in its saved memory is one the docs say the trigger cannot find).
			const across = await postJobFromOutside(simulator, 8000);
			await waitFor('the job to run', async () => simulator.cloud.jobs.get(across)?.status === 'in_progress', { timeoutMs: 30000 });
			await n8n.kill();
			await waitFor('the long job to end while n8n is down', async () => simulator.cloud.jobs.get(endsWhileDown)?.status === 'completed', {
				timeoutMs: 60000,
			});
			expect(simulator.cloud.jobs.get(across)?.status).not.toBe('completed');
			const listeningAgain = whenCloudTriggerListens(simulator);
			await n8n.restart();
			await listeningAgain();

			const ours = [endsWhileDown, first, across];
			await waitFor('an execution for each job', async () => (await startedFor(client, workflow.id, ours)).length >= 3, {
				timeoutMs: 60000,
			});
			// Time for a repeat to show: the trigger's next look at the queue and the jobs it watched.
			await new Promise((resolve) => setTimeout(resolve, 5000));
			expect(await startedFor(client, workflow.id, ours)).toEqual([first, endsWhileDown, across]);
		} finally {
			await client.deactivateWorkflow(workflow.id);
		}
	}, 240000);
});
