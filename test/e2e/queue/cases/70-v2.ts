/**
 * Host Cloud on the v2 jobs API in queue mode: a second simulator in the v2 flavour (cloud surface)
 * and its Host Cloud V2 API credential (support/v2-server.ts, as in the single-process suite), then
 * the v2 example on a worker with its file in the database, a Stop sent to the main process while a
 * v2 Execute waits on a worker (beside another that must finish), and the v2 image-API recipe
 * answered through the webhook processor. The last case checks every exchange the v2 server had
 * against the published contract. Jobs are short (20 ms a node) except where one must still run.
 */
import { contractBreaches } from '../../../support/v2-contract';
import { startWithRunningV2Job, v2CancelPaths, withSimulatorTiming } from '../../support/in-flight';
import { describeFailure, outputItems } from '../../support/n8n-client';
import { enqueuedBy, runsOf } from '../../support/queue-logs';
import { askV2ImageApi, loadRecipe, sha, webhookServed } from '../../support/recipes';
import { imageFromV2Server, useV2Server, V2_EXAMPLE } from '../../support/v2-server';
import { waitFor } from '../../support/wait';
import { loadExample } from '../../support/workflows';
import { queue } from '../context';

const EXAMPLE_NODE = 'Text to Image';
/** Per graph node while the Stop case needs jobs still running: 7 nodes, about 7 s a job. */
const SLOW_NODE_MS = 1000;

describe('queue mode: Host Cloud on the v2 jobs API', () => {
	const started = useV2Server(() => queue());

	/** The v2 example imported with this server's credential, as a user picks it on import. */
	const importExample = async (name: string) =>
		await queue().importWorkflow(loadExample(V2_EXAMPLE).workflow, name, { hostCloudV2Api: started().credential });

	/** The jobs of the v2 server not in `before`, by id. */
	const newJobs = (before: Set<string>) => [...started().simulator.v2.jobs.keys()].filter((id) => !before.has(id));

	it('v2-text-to-image.json runs on a worker; its image is the job’s output asset, binary data in the database', async () => {
		const { client, main, webhookProcessors, workers } = queue();
		const { simulator } = started();
		const workflow = await importExample('Queue: v2 text to image');
		const before = new Set(simulator.v2.jobs.keys());

		const execution = await client.runWorkflow(workflow.id, { timeoutMs: 60000 });

		expect(describeFailure(execution)).toBe('succeeded');
		expect(enqueuedBy(execution.id, [main, ...webhookProcessors])).toEqual(['main']);
		expect(runsOf(execution.id, workers)).toEqual([expect.objectContaining({ finished: true, errored: false })]);
		// The bytes read back through the main process (GET /rest/binary-data) are the asset's on the server.
		const { item, jobId } = await imageFromV2Server(execution, EXAMPLE_NODE, queue(), started());
		expect(newJobs(before)).toEqual([jobId]);
		expect(item.binary!.data!.id).toMatch(/^database:/);
	});

	it('a Stop sent to the main process while a v2 Execute waits on a worker cancels exactly its job; the other run finishes', async () => {
		const { client, workers } = queue();
		const workflow = await importExample('Queue: v2, to be stopped');
		const cancelsBefore = v2CancelPaths(started().simulator).length;
		await withSimulatorTiming(started().simulator, 'nodeMs', SLOW_NODE_MS, async () => {
			const stopped = await startWithRunningV2Job(client, started().simulator, workflow.id);
			const other = await startWithRunningV2Job(client, started().simulator, workflow.id);

			await client.stopExecution(stopped.executionId);

			const ended = await client.waitForExecution(stopped.executionId, { timeoutMs: 30000 });
			expect(ended.status).toBe('canceled');
			const { jobs } = started().simulator.v2;
			await waitFor('the job to be canceled on the v2 server', () => jobs.get(stopped.jobId)?.status === 'canceled', { timeoutMs: 15000 });
			// The worker that ran it let it go, as a run that threw.
			await waitFor('the worker to let the stopped run go', () => runsOf(stopped.executionId, workers)[0]?.errored);
			expect(runsOf(stopped.executionId, workers)).toHaveLength(1);

			const finished = await client.waitForExecution(other.executionId, { timeoutMs: 60000 });
			expect(describeFailure(finished)).toBe('succeeded');
			expect(outputItems(finished, EXAMPLE_NODE)[0]?.json).toMatchObject({ job_id: other.jobId, status: 'succeeded' });
			expect(jobs.get(other.jobId)?.status).toBe('succeeded');
			expect(v2CancelPaths(started().simulator).slice(cancelsBefore)).toEqual([`/api/v2/jobs/${stopped.jobId}/cancel`]);
		});
	}, 120000);

	it('v2-webhook-image-api.json: the webhook processor answers with the exact bytes of its job’s output asset', async () => {
		const { client, importWorkflow, webhookProcessors, workers } = queue();
		const workflow = await importWorkflow(loadRecipe('v2-webhook-image-api.json'), 'Recipe: v2 image API (queue mode)', {
			hostCloudV2Api: started().credential,
		});
		await client.activateWorkflow(workflow.id);
		try {
			const url = `${webhookProcessors[0]!.url}/webhook/v2-image-api`;
			await webhookServed(url, 'POST');
			const known = await client.executionIds(workflow.id);
			const { body, served, jobId } = await askV2ImageApi(started().simulator, url, `queue v2 image api ${Date.now()}`, 11);
			expect({ bytes: body.length, sha: sha(body) }).toEqual({ bytes: served.length, sha: sha(served) });

			const execution = await client.waitForNewExecution(workflow.id, known, { timeoutMs: 30000 });
			expect(describeFailure(execution)).toBe('succeeded');
			expect(enqueuedBy(execution.id, [queue().main, ...webhookProcessors])).toEqual([webhookProcessors[0]!.name]);
			expect(runsOf(execution.id, workers)).toEqual([expect.objectContaining({ finished: true, errored: false })]);
			const [item] = outputItems(execution, 'Generate image');
			expect(item?.json.job_id).toBe(jobId);
			expect(item?.binary?.data?.id).toMatch(/^database:/);
		} finally {
			await client.deactivateWorkflow(workflow.id);
		}
	}, 90000);

	it('every exchange the v2 server had in these cases is valid under the published contract', () => {
		const { simulator } = started();
		expect(simulator.v2.exchanges.length).toBeGreaterThan(0);
		expect(contractBreaches(simulator)).toEqual([]);
	});
});
