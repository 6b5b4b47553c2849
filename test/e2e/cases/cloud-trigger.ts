/**
 * Host Cloud Trigger in a published workflow of a real n8n (issue 38): each job started outside n8n
 * (a script posting to the cloud) starts one execution with its prompt_id and image link, across a
 * SIGKILL and restart of n8n: a job that ended while n8n was down, and one running through the
 * restart, each start exactly one execution; none starts twice.
 *
 * The restart keeps n8n's user folder, database and port, as restart.ts does; the cases after this
 * file run on the restarted n8n.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { Simulator } from '../../../simulator/server';
import { e2e } from '../support/context';
import { REPO_ROOT } from '../support/n8n-server';
import { outputItems, type N8nClient } from '../support/n8n-client';
import { waitFor } from '../support/wait';
import { hostNodeType, linearWorkflow } from '../support/workflows';

const TRIGGER = 'When a job finishes';
const GRAPH = JSON.parse(readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'txt2img-api.json'), 'utf8')) as Record<string, unknown>;

/** A job posted straight to the cloud, as a script does; each node of its graph takes `nodeMs`. */
async function submitFromOutside(simulator: Simulator, nodeMs: number): Promise<string> {
	const previous = simulator.options.nodeMs;
	simulator.options.nodeMs = nodeMs;
	try {
		const response = await fetch(`${simulator.baseUrl}/api/prompt`, {
			method: 'POST',
			headers: { 'X-API-Key': simulator.apiKey, 'content-type': 'application/json' },
			body: JSON.stringify({ prompt: GRAPH }),
		});
		return ((await response.json()) as { prompt_id: string }).prompt_id;
	} finally {
		simulator.options.nodeMs = previous;
	}
}

/** The prompt_id each execution of the workflow started with, oldest first. */
async function startedWith(client: N8nClient, workflowId: string): Promise<string[]> {
	const executions = (await client.listExecutions(workflowId, { limit: 100 })).sort((a, b) => Number(a.id) - Number(b.id));
	const ids: string[] = [];
	for (const { id } of executions) {
		const execution = await client.waitForExecution(id, { timeoutMs: 30000 });
		const [item] = outputItems(execution, TRIGGER);
		ids.push(String(item?.json.prompt_id));
	}
	return ids;
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
		await client.activateWorkflow(workflow.id);
		try {
			const first = await submitFromOutside(simulator, 20);
			await waitFor('the first job’s execution', async () => (await startedWith(client, workflow.id)).length === 1, { timeoutMs: 30000 });
			const [execution] = await client.listExecutions(workflow.id);
			const [item] = outputItems(await client.getExecution(execution!.id), TRIGGER);
			expect(item!.json).toMatchObject({ prompt_id: first, status: 'succeeded' });
			expect((item!.json.images as Array<{ url: string }>)[0]!.url).toMatch(/signature=/);

			// A long job the trigger hears start; a short one ends meanwhile, and its execution saves what the trigger watches.
			const endsWhileDown = await submitFromOutside(simulator, 2000);
			await waitFor('the long job to run', async () => simulator.cloud.jobs.get(endsWhileDown)?.status === 'in_progress', {
				timeoutMs: 10000,
			});
			const short = await submitFromOutside(simulator, 20);
			await waitFor('the short job’s execution', async () => (await startedWith(client, workflow.id)).length === 2, { timeoutMs: 30000 });
			const across = await submitFromOutside(simulator, 3000);

			await n8n.kill();
			await waitFor('the long job to end while n8n is down', async () => simulator.cloud.jobs.get(endsWhileDown)?.status === 'completed', {
				timeoutMs: 30000,
			});
			expect(simulator.cloud.jobs.get(across)?.status).not.toBe('completed');
			await n8n.restart();

			await waitFor('an execution for each job', async () => (await startedWith(client, workflow.id)).length >= 4, { timeoutMs: 60000 });
			// Time for a repeat to show: the trigger's next look at the queue and the jobs it watched.
			await new Promise((resolve) => setTimeout(resolve, 5000));
			const started = await startedWith(client, workflow.id);
			expect(started.slice(0, 2)).toEqual([first, short]);
			expect(started.slice(2).sort()).toEqual([endsWhileDown, across].sort());
		} finally {
			await client.deactivateWorkflow(workflow.id);
		}
	}, 240000);
});
