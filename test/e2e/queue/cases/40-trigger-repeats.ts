/**
 * Host Task Trigger on an active workflow in queue mode: notifications go to the webhook
 * processor; a repeated notification starts one execution, with one webhook processor and with
 * two. What the README says about repeats that arrive at the same moment is checked as well:
 * they can each start an execution, and what the trigger passes on stays within the deliveries.
 */
import { outputItems, type N8nClient } from '../../support/n8n-client';
import { enqueuedBy } from '../../support/queue-logs';
import { postJson } from '../../support/queue-workflows';
import { waitFor } from '../../support/wait';
import { hostNodeType, linearWorkflow } from '../../support/workflows';
import { queue } from '../context';

const TRIGGER = 'Host Task Trigger';
const FINAL = new Set(['success', 'error', 'canceled', 'crashed']);
const finished = (taskId: string) => ({ data: { task_id: taskId, status: 'COMPLETED', generated: ['https://example.com/result.png'] } });
const IGNORED = { received: true, ignored: 'repeated notification' };

/** How long the list of executions must stay the same before it counts as settled. */
const SETTLED_MS = 1500;

/**
 * The executions started since `known`, once all have ended and no other has appeared for
 * SETTLED_MS, with the task ids the trigger passed on in each. n8n answers a notification with the
 * trigger's own answer before it creates the execution, so an execution can be listed a moment
 * after its delivery was answered. With `atLeastOne`, waits for one to appear first.
 */
async function newExecutions(
	client: N8nClient,
	workflowId: string,
	known: Set<string>,
	atLeastOne = true,
): Promise<Array<{ id: string; passedOn: string[] }>> {
	let seen = '';
	let since = Date.now();
	const fresh = await waitFor(
		'the new executions to end',
		async () => {
			const listed = (await client.listExecutions(workflowId, { limit: 100 })).filter((execution) => !known.has(execution.id));
			const ids = listed.map((execution) => execution.id).join(',');
			if (ids !== seen) [seen, since] = [ids, Date.now()];
			const ended = (listed.length > 0 || !atLeastOne) && listed.every((execution) => FINAL.has(execution.status));
			return ended && Date.now() - since >= SETTLED_MS ? listed : undefined;
		},
		{ intervalMs: 250 },
	);
	const result = [];
	for (const { id } of fresh) {
		const execution = await client.getExecution(id);
		result.push({ id, passedOn: outputItems(execution, TRIGGER).map((item) => String(item.json.task_id)) });
	}
	return result;
}

/**
 * Waits until the workflow's executions have all ended. An execution still running when the next
 * one starts would save its static data over that one's (n8n keeps the copy of the execution that
 * ends last), and the webhook would then let a later repeat through: docs/host-task-trigger.md says
 * so. The cases that count executions start from a quiet workflow.
 */
async function quiet(client: N8nClient, workflowId: string): Promise<void> {
	await newExecutions(client, workflowId, new Set(), false);
}

describe('queue mode: Host Task Trigger', () => {
	let workflowId: string;
	let urls: string[];

	beforeAll(async () => {
		const { client, importWorkflow, webhookUrl, webhookProcessors } = queue();
		const workflow = await importWorkflow(
			linearWorkflow('Queue: task trigger', [
				{ name: TRIGGER, type: hostNodeType('hostTaskTrigger'), typeVersion: 1, parameters: { events: 'final' } },
			]),
		);
		workflowId = workflow.id;
		await client.activateWorkflow(workflowId);
		urls = [webhookUrl(workflow, TRIGGER, 'host-task', webhookProcessors[0])];
		await waitFor(
			'the trigger to answer on the webhook processor',
			async () => (await postJson(urls[0]!, finished('warm-up'))).status === 200,
			{
				timeoutMs: 20000,
				intervalMs: 250,
			},
		);
		await quiet(client, workflowId);
	});

	afterAll(async () => {
		await queue().client.deactivateWorkflow(workflowId);
	});

	it('a notification goes to the webhook processor; its repeats start nothing more', async () => {
		const { client, main, webhookProcessors } = queue();
		const known = await client.executionIds(workflowId);
		expect(await postJson(urls[0]!, finished('task-one'))).toEqual({ status: 200, text: JSON.stringify({ received: true }) });
		const [first] = await newExecutions(client, workflowId, known);
		expect(first!.passedOn).toEqual(['task-one']);
		expect(enqueuedBy(first!.id, [main, ...webhookProcessors])).toEqual(['webhook-1']);

		for (let i = 0; i < 3; i++)
			expect(await postJson(urls[0]!, finished('task-one'))).toEqual({ status: 200, text: JSON.stringify(IGNORED) });
		expect((await newExecutions(client, workflowId, known)).map((execution) => execution.passedOn)).toEqual([['task-one']]);
	});

	it('a repeat that arrives while the first execution runs starts an execution that passes nothing on', async () => {
		const { client, importWorkflow, webhookUrl, postgres } = queue();
		// The first execution then lasts 3 s after the trigger has recorded the notification.
		const slow = await importWorkflow(
			linearWorkflow('Queue: task trigger, slow workflow', [
				{ name: TRIGGER, type: hostNodeType('hostTaskTrigger'), typeVersion: 1, parameters: { events: 'final' } },
				{ name: 'Wait', type: 'n8n-nodes-base.wait', typeVersion: 1.1, parameters: { resume: 'timeInterval', amount: 3, unit: 'seconds' } },
			]),
		);
		await client.activateWorkflow(slow.id);
		try {
			const url = webhookUrl(slow, TRIGGER, 'host-task');
			await waitFor('the trigger to answer', async () => (await postJson(url, finished('slow-warm-up'))).status === 200, {
				timeoutMs: 20000,
				intervalMs: 250,
			});
			await quiet(client, slow.id);
			const known = await client.executionIds(slow.id);
			const recorded = async () => await postgres.query(`SELECT value FROM processed_data WHERE "workflowId" = '${slow.id}'`);
			const before = await recorded();
			expect((await postJson(url, finished('task-slow'))).status).toBe(200);
			await waitFor('the first execution to record the notification', async () => (await recorded()) !== before);
			// Recorded, but the execution has not ended: its static data is not saved yet, so the webhook lets the repeat through.
			expect(await postJson(url, finished('task-slow'))).toEqual({ status: 200, text: JSON.stringify({ received: true }) });
			const executions = await newExecutions(client, slow.id, known);
			expect(executions.map((execution) => execution.passedOn).sort()).toEqual([[], ['task-slow']]);
		} finally {
			await client.deactivateWorkflow(slow.id);
		}
	});

	describe('with two webhook processors', () => {
		beforeAll(async () => {
			const { startWebhookProcessor, webhookUrl, client } = queue();
			const second = await startWebhookProcessor();
			const workflow = await client.getWorkflow(workflowId);
			urls.push(webhookUrl(workflow, TRIGGER, 'host-task', second));
			await waitFor(
				'the trigger to answer on the second webhook processor',
				async () => (await postJson(urls[1]!, finished('warm-up'))).status === 200,
				{
					timeoutMs: 20000,
					intervalMs: 250,
				},
			);
			await quiet(client, workflowId);
		}, 120000);

		it('repeats that arrive one after another, at either processor, start one execution', async () => {
			const { client, main, webhookProcessors } = queue();
			const known = await client.executionIds(workflowId);
			expect((await postJson(urls[1]!, finished('task-two'))).text).toBe(JSON.stringify({ received: true }));
			const [first] = await newExecutions(client, workflowId, known);
			expect(enqueuedBy(first!.id, [main, ...webhookProcessors])).toEqual(['webhook-2']);
			for (const url of [urls[0]!, urls[1]!, urls[0]!])
				expect((await postJson(url, finished('task-two'))).text).toBe(JSON.stringify(IGNORED));
			expect((await newExecutions(client, workflowId, known)).map((execution) => execution.passedOn)).toEqual([['task-two']]);
		});

		it('repeats that arrive at the same moment can each start an execution (as the README says), never more than one per delivery', async () => {
			const { client } = queue();
			const rounds = 4;
			let executionsStarted = 0;
			let passedTwice = 0;
			for (let round = 0; round < rounds; round++) {
				const known = await client.executionIds(workflowId);
				const taskId = `task-at-once-${round}`;
				const answers = await Promise.all(urls.map((url) => postJson(url, finished(taskId))));
				expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
				const executions = await newExecutions(client, workflowId, known);
				const passedOn = executions.flatMap((execution) => execution.passedOn);
				expect(executions.length).toBeGreaterThanOrEqual(1);
				expect(executions.length).toBeLessThanOrEqual(urls.length);
				expect(passedOn.length).toBeGreaterThanOrEqual(1);
				expect(passedOn.length).toBeLessThanOrEqual(urls.length);
				expect(new Set(passedOn)).toEqual(new Set([taskId]));
				executionsStarted += executions.length;
				if (passedOn.length > 1) passedTwice++;
			}
			process.stderr.write(
				`[e2e:queue] ${rounds} pairs of simultaneous repeats: ${executionsStarted} executions started, ${passedTwice} pair(s) passed on twice\n`,
			);
			// Both processors read the repeat memory before either execution could record the task.
			expect(executionsStarted).toBeGreaterThan(rounds);
		});
	});
});
