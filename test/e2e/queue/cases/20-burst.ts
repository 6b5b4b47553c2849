/**
 * 40 executions at once: a production webhook workflow (Webhook → Host Cloud Execute with
 * Download Files) called 40 times at the same moment through the webhook processor, one cloud job
 * each. All succeed, both workers take part, every execution's output is exactly its own job's
 * file, and the executions a worker runs at once share its WebSocket (one per worker process and
 * credential, never one across processes).
 */
import { describeFailure, outputItems, type ExecutionResult } from '../../support/n8n-client';
import { enqueuedBy, runsOf } from '../../support/queue-logs';
import { CLOUD_NODE, WEBHOOK_NODE, postJson, webhookCloudWorkflow } from '../../support/queue-workflows';
import { waitFor } from '../../support/wait';
import { queue } from '../context';

const EXECUTIONS = 40;
const FINAL = new Set(['success', 'error', 'canceled', 'crashed']);

describe('queue mode: 40 executions at once', () => {
	it('through the webhook processor: all succeed on both workers, each with its own job’s file, sharing a WebSocket per worker', async () => {
		const { client, importWorkflow, simulator, main, workers, webhookProcessors } = queue();
		const { workflow: json, path } = webhookCloudWorkflow('Queue: 40 at once', { downloadFiles: true });
		const workflow = await importWorkflow(json);
		await client.activateWorkflow(workflow.id);
		try {
			const url = `${webhookProcessors[0]!.url}/webhook/${path}`;
			// The production webhook goes live on the webhook processor as the activation completes.
			await waitFor('the production webhook to answer', async () => (await postJson(url, { tag: 'warm-up' })).status === 200, {
				timeoutMs: 20000,
				intervalMs: 250,
			});
			await waitFor('the warm-up execution to end', async () =>
				(await client.listExecutions(workflow.id)).every((execution) => FINAL.has(execution.status)),
			);
			const known = await client.executionIds(workflow.id);
			const handshakesBefore = simulator.cloud.wsHandshakes.length;

			const tags = Array.from({ length: EXECUTIONS }, (_, index) => `burst-${String(index).padStart(2, '0')}`);
			const answers = await Promise.all(tags.map((tag) => postJson(url, { tag })));
			expect(answers.map((answer) => answer.status)).toEqual(tags.map(() => 200));

			const listed = await waitFor(
				`${EXECUTIONS} executions to end`,
				async () => {
					const fresh = (await client.listExecutions(workflow.id, { limit: 100 })).filter((execution) => !known.has(execution.id));
					return fresh.length >= EXECUTIONS && fresh.every((execution) => FINAL.has(execution.status)) ? fresh : undefined;
				},
				{ timeoutMs: 120000, intervalMs: 500 },
			);
			expect(listed).toHaveLength(EXECUTIONS);
			const executions: ExecutionResult[] = [];
			for (const { id } of listed) executions.push(await client.getExecution(id));
			expect(executions.map(describeFailure)).toEqual(executions.map(() => 'succeeded'));

			// Where: each was put on the queue by the webhook processor and run by exactly one worker; both worked.
			const runners = new Set<string>();
			const workerOf = new Map<string, string>();
			for (const execution of executions) {
				expect(enqueuedBy(execution.id, [main, ...webhookProcessors])).toEqual(['webhook-1']);
				const runs = runsOf(execution.id, workers);
				expect(runs).toEqual([expect.objectContaining({ finished: true })]);
				runners.add(runs[0]!.worker);
				workerOf.set(execution.id, runs[0]!.worker);
			}
			// Both workers of the stack, by name: with one worker only, this fails.
			expect([...runners].sort()).toEqual(['worker-1', 'worker-2']);

			// What: each execution's output is its own job's file, named after its own tag, and nothing else.
			const seenTags = new Set<string>();
			const handshakes = simulator.cloud.wsHandshakes.slice(handshakesBefore);
			const workersBySocket = new Map<string, Set<string>>();
			for (const execution of executions) {
				const tag = String((outputItems(execution, WEBHOOK_NODE)[0]!.json.body as { tag: string }).tag);
				seenTags.add(tag);
				const items = outputItems(execution, CLOUD_NODE);
				expect(items).toHaveLength(1);
				const promptId = String(items[0]!.json.prompt_id);
				const job = simulator.cloud.jobs.get(promptId);
				expect(job?.status).toBe('completed');
				const jobFiles = Object.values(job!.outputs).flatMap((output) =>
					Object.values(output).flatMap((files) => files.map((file) => String(file.filename))),
				);
				const files = (items[0]!.json.files as Array<{ filename: string }>).map((file) => file.filename);
				expect(files).toEqual(jobFiles);
				expect(files).toEqual([expect.stringMatching(new RegExp(`^${tag}_\\d+_\\.png$`))]);
				expect(Object.values(items[0]!.binary ?? {}).map((binary) => binary.fileName)).toEqual(files);
				// Submitted with the client id of one WebSocket that opened: its worker's.
				expect(handshakes.filter((handshake) => handshake.accepted && handshake.clientId === job!.clientId)).toHaveLength(1);
				const sharing = workersBySocket.get(job!.clientId!) ?? new Set<string>();
				workersBySocket.set(job!.clientId!, sharing.add(workerOf.get(execution.id)!));
			}
			expect([...seenTags].sort()).toEqual(tags);
			// A socket serves one worker process only, and the executions it runs at once (10 by n8n's default) share it:
			// one socket per execution would make 40; a worker whose running executions all ended opens a new one.
			expect([...workersBySocket.values()].map((workersOfSocket) => workersOfSocket.size)).toEqual(
				[...workersBySocket.keys()].map(() => 1),
			);
			expect(workersBySocket.size).toBeLessThanOrEqual(EXECUTIONS / 4);
			expect(handshakes.filter((handshake) => handshake.accepted)).toHaveLength(workersBySocket.size);
		} finally {
			await client.deactivateWorkflow(workflow.id);
		}
	});
});
