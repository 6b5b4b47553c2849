/**
 * Host Cloud Trigger in queue mode: the trigger listens on the main process (where n8n runs
 * triggers), each job a script posts to the cloud starts one execution, which the main process puts
 * on the queue and a worker runs, with the job's file as binary data in n8n's database (the main
 * process downloaded it).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { outputItems } from '../../support/n8n-client';
import { REPO_ROOT } from '../../support/n8n-server';
import { enqueuedBy, runsOf } from '../../support/queue-logs';
import { waitFor } from '../../support/wait';
import { hostNodeType, linearWorkflow } from '../../support/workflows';
import { queue } from '../context';

const TRIGGER = 'When a job succeeds';
const GRAPH = JSON.parse(readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'txt2img-api.json'), 'utf8')) as Record<string, unknown>;

describe('queue mode: Host Cloud Trigger', () => {
	it('listens on the main process; each job started outside n8n starts one execution, run on a worker, with its file', async () => {
		const { client, importWorkflow, main, workers, webhookProcessors, simulator } = queue();
		const workflow = await importWorkflow(
			linearWorkflow('Queue: cloud trigger', [
				{
					name: TRIGGER,
					type: hostNodeType('hostCloudTrigger'),
					typeVersion: 1,
					parameters: { events: 'succeeded' },
					credentials: { hostCloudApi: { name: 'Host Cloud API' } },
				},
			]),
		);
		const known = await client.executionIds(workflow.id);
		const handshakes = simulator.cloud.wsHandshakes.length;
		const reads = simulator.requestsTo('GET', '/api/queue').length;
		await client.activateWorkflow(workflow.id);
		try {
			await waitFor(
				'the trigger to listen',
				() => simulator.cloud.wsHandshakes.length > handshakes && simulator.requestsTo('GET', '/api/queue').length > reads,
				{ timeoutMs: 30000 },
			);
			const promptIds: string[] = [];
			for (let index = 0; index < 2; index++) {
				const response = await fetch(`${simulator.baseUrl}/api/prompt`, {
					method: 'POST',
					headers: { 'X-API-Key': simulator.apiKey, 'content-type': 'application/json' },
					body: JSON.stringify({ prompt: GRAPH }),
				});
				promptIds.push(((await response.json()) as { prompt_id: string }).prompt_id);
			}
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
				const binary = item!.binary!.data!;
				expect(binary.id).toMatch(/^database:/);
				const file = (item!.json.images as Array<{ url: string }>)[0]!;
				expect((await client.binaryContent(binary)).equals(Buffer.from(await (await fetch(file.url)).arrayBuffer()))).toBe(true);
			}
			expect(started.sort()).toEqual([...promptIds].sort());
		} finally {
			await client.deactivateWorkflow(workflow.id);
		}
	}, 180000);
});
