/**
 * Queue → Cancel Jobs of an Execution, through n8n's engine against both flavours of the simulator:
 * the jobs an ended execution left queued or running are found by their tag and cancelled, every
 * one reported by prompt_id; a job of another execution, of another workflow, without a tag, or
 * whose tag names no n8n install is never touched, and one meant to outlive its wait (Submit, or
 * left running at Max Wait) only when asked for.
 */
import axios from 'axios';
import type { INodeParameters } from 'n8n-workflow';

import { harnessInstanceId } from '../../support/engine';
import { cancelRequestBodies, cloudForSuite, executeTxt2img, OUTLASTING_NODE_MS, txt2img } from '../../support/cloud';

const WORKFLOW = 'wf-orders';
const OTHER_WORKFLOW = 'wf-invoices';

describe.each([
	{ server: 'the cloud', flavour: 'cloud' as const },
	{ server: 'a self-hosted server', flavour: 'self-hosted' as const },
])('on $server', ({ flavour }) => {
	const cloud = cloudForSuite({ flavour, parallelLimit: 1 }); // one job runs, the next are queued

	function runNode(parameters: Record<string, unknown>, items = [{ json: {} }], workflowId = WORKFLOW) {
		return cloud.harness.runNode(
			{ type: 'hostCloud', parameters: parameters as INodeParameters, credentials: { hostCloudApi: cloud.credential } },
			items,
			{ workflowId },
		);
	}

	const cancelParameters = (more: Record<string, unknown> = {}) => ({
		resource: 'queue',
		operation: 'cancelExecutionJobs',
		executionId: '41',
		workflowId: WORKFLOW,
		...more,
	});

	/** A job submitted straight over HTTP with this extra_data, as another process of the account would. */
	async function submitTagged(extraData: Record<string, unknown>): Promise<string> {
		const answer = await axios.post(
			`${cloud.sim.baseUrl}/api/prompt`,
			{ prompt: txt2img(), extra_data: extraData },
			{ headers: cloud.headers },
		);
		return answer.data.prompt_id as string;
	}

	const tag = (more: Record<string, unknown>) => ({
		n8n: {
			execution_id: '41',
			workflow_id: WORKFLOW,
			node_name: 'Generate',
			item_index: 0,
			operation: 'execute',
			instance_id: harnessInstanceId(),
			request_id: 'r',
			...more,
		},
	});

	const idsSentToCancel = () => cancelRequestBodies(cloud.sim);

	const status = (promptId: string) => cloud.sim.cloud.jobs.get(promptId)?.status;

	/** Execution 41's two waited-for jobs (one running, one queued behind it), and jobs it must not touch. */
	async function jobsOfSeveralExecutions() {
		cloud.sim.options.nodeMs = OUTLASTING_NODE_MS; // nothing finishes while the node looks
		const running = await submitTagged(tag({ item_index: 0 }));
		const queued = await submitTagged(tag({ item_index: 1, node_name: 'Upscale' }));
		const submitted = await submitTagged(tag({ item_index: 2, operation: 'submit', keep: true }));
		const others = [
			await submitTagged(tag({ execution_id: '42' })),
			await submitTagged(tag({ workflow_id: OTHER_WORKFLOW })),
			await submitTagged({}),
			await submitTagged({ n8n: '41' }), // not a tag: a tag is an object
			// Every field of execution 41's but no install id: an older tag, or one another client wrote.
			await submitTagged(tag({ instance_id: undefined })),
		];
		cloud.sim.requests.length = 0;
		return { running, queued, submitted, others };
	}

	test('cancels the running and the queued job of the execution, reports each by prompt_id, and leaves every other job alone', async () => {
		const { running, queued, submitted, others } = await jobsOfSeveralExecutions();
		const result = await runNode(cancelParameters());
		expect(result.status).toBe('success');
		expect(result.items.map((item) => item.json)).toEqual([
			{
				execution_id: '41',
				workflow_id: WORKFLOW,
				cancelled: [
					{ prompt_id: running, state: 'running', node_name: 'Generate', item_index: 0, operation: 'execute', request_id: 'r' },
					{ prompt_id: queued, state: 'queued', node_name: 'Upscale', item_index: 1, operation: 'execute', request_id: 'r' },
				],
				cancelled_count: 2,
				left_running: [
					{ prompt_id: submitted, state: 'queued', node_name: 'Generate', item_index: 2, operation: 'submit', keep: true, request_id: 'r' },
				],
				message: `Cancelled 2 job(s) of execution 41: ${running}, ${queued}.`,
			},
		]);
		expect([status(running), status(queued)]).toEqual(['cancelled', 'cancelled']);
		for (const id of [submitted, ...others]) expect({ id, status: status(id) }).not.toEqual({ id, status: 'cancelled' });
		for (const id of [submitted, ...others]) expect(idsSentToCancel()).not.toContain(id);
	});

	test('"Also Cancel Jobs Left Running on Purpose" cancels the Submit (Don’t Wait) job too; an empty Workflow ID matches the execution ID alone', async () => {
		const { running, queued, submitted, others } = await jobsOfSeveralExecutions();
		const otherWorkflows = others[1]!;
		const result = await runNode(cancelParameters({ workflowId: '', includeKept: true }));
		expect(result.items[0]!.json).toMatchObject({ execution_id: '41', cancelled_count: 4 });
		expect(result.items[0]!.json).not.toHaveProperty('workflow_id');
		expect(result.items[0]!.json).not.toHaveProperty('left_running');
		for (const id of [running, queued, submitted, otherWorkflows]) expect(status(id)).toBe('cancelled');
		for (const id of [others[0]!, others[2]!, others[3]!, others[4]!]) expect(status(id)).not.toBe('cancelled');
	});

	test('a job a real execution left running at Max Wait ("Leave It Running") is tagged to be kept: reported, left running, cancelled only when asked', async () => {
		cloud.sim.options.nodeMs = OUTLASTING_NODE_MS;
		const failed = await runNode(executeTxt2img({ waitOptions: { pollIntervalSeconds: 0.05, maxWaitMinutes: 0.01, onTimeout: 'keep' } }));
		expect(failed.status).toBe('error');
		const [left] = cloud.sim.requestsTo('POST', '/api/prompt');
		const promptId = [...cloud.sim.cloud.jobs.keys()].pop()!;
		expect(JSON.parse(left!.body).extra_data.n8n).toMatchObject({ execution_id: failed.executionId, operation: 'execute', keep: true });

		// The Error Trigger's payload, as n8n gives it to the Error Workflow (the recipe maps these).
		const payload = { execution: { id: failed.executionId, mode: 'webhook' }, workflow: { id: WORKFLOW, name: 'Orders' } };
		const fromErrorTrigger = (more: Record<string, unknown> = {}) => ({
			resource: 'queue',
			operation: 'cancelExecutionJobs',
			executionId: '={{ $json.execution.id }}',
			workflowId: '={{ $json.workflow.id }}',
			...more,
		});
		const kept = await runNode(fromErrorTrigger(), [{ json: payload }], 'wf-error-workflow');
		expect(kept.items[0]!.json).toMatchObject({
			execution_id: failed.executionId,
			cancelled_count: 0,
			left_running: [{ prompt_id: promptId, state: 'running', node_name: 'Node', item_index: 0, operation: 'execute', keep: true }],
		});
		expect(status(promptId)).not.toBe('cancelled');

		const asked = await runNode(fromErrorTrigger({ includeKept: true }), [{ json: payload }], 'wf-error-workflow');
		expect(asked.items[0]!.json).toMatchObject({ cancelled: [{ prompt_id: promptId, state: 'running' }], cancelled_count: 1 });
		expect(status(promptId)).toBe('cancelled');
	});

	test('nothing of the execution in the queue: says so, and sends no cancel', async () => {
		await jobsOfSeveralExecutions();
		const result = await runNode(cancelParameters({ executionId: '7' }));
		expect(result.items[0]!.json).toEqual({
			execution_id: '7',
			workflow_id: WORKFLOW,
			cancelled: [],
			cancelled_count: 0,
			message: 'No queued or running job was started by execution 7.',
		});
		expect(idsSentToCancel()).toBe('');
	});

	test('an empty Execution ID (no Error Trigger before it) is refused by name before the queue is read', async () => {
		const result = await runNode(cancelParameters({ executionId: '={{ $json.execution?.id }}' }));
		expect(result.error('Node')?.message).toBe('Execution ID is required');
		expect(cloud.sim.requests.filter((request) => /queue/.test(request.path))).toEqual([]);
	});
});
