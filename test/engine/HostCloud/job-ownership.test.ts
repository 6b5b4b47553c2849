/**
 * Whose a Host Cloud job is, through n8n's engine against both flavours of the simulator: every
 * submit carries its n8n identity in `extra_data.n8n` (the request log and the server's queue show
 * it), a user's Extra Data cannot set that key, and as a tool Queue → Get and Cancel Jobs act only on
 * the jobs of the tool's own workflow (run both ways n8n runs a tool), while as a node they act on
 * every job of the account, as before.
 */
import axios from 'axios';

import { cancelRequestBodies, cloudForSuite, OUTLASTING_NODE_MS, txt2img } from '../../support/cloud';
import { registerToolTypes, runAsAgentTool, toolsFor, type ToolNodeSpec } from '../../support/tools';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** n8n's instance id (a hash of its encryption key): the same for every submit of one install. */
const INSTANCE_ID = expect.stringMatching(/^[0-9a-f]{64}$/);
const HARNESS_WORKFLOW = 'wf-harness';
const OTHER_WORKFLOW = 'wf-other';

describe.each([
	{ server: 'the cloud', flavour: 'cloud' as const },
	{ server: 'a self-hosted server', flavour: 'self-hosted' as const },
])('on $server', ({ flavour }) => {
	const cloud = cloudForSuite({ flavour });

	beforeAll(() => registerToolTypes(cloud.harness));

	const submitParameters = (more: Record<string, unknown> = {}) => ({
		resource: 'workflow',
		operation: 'submit',
		workflow: JSON.stringify(txt2img()),
		...more,
	});

	/** Runs a Host Cloud node (named "Node") in a workflow with `workflowId`. */
	function runNode(parameters: Record<string, unknown>, items = [{ json: {} }], workflowId?: string) {
		return cloud.harness.runNode(
			{ type: 'hostCloud', parameters: parameters as ToolNodeSpec['parameters'], credentials: { hostCloudApi: cloud.credential } },
			items,
			workflowId ? { workflowId } : {},
		);
	}

	const submittedExtraData = (): Array<Record<string, any>> =>
		cloud.sim.requestsTo('POST', '/api/prompt').map((request) => JSON.parse(request.body).extra_data);

	/** The server's queue as any client of the account reads it. */
	async function queueOnServer(): Promise<unknown[][]> {
		const answer = await axios.get(`${cloud.sim.baseUrl}/api/queue`, { headers: cloud.headers });
		return [...answer.data.queue_running, ...answer.data.queue_pending];
	}

	/** A job submitted straight over HTTP, as another client of the account (no tag, or the one given). */
	async function submitDirectly(extraData: Record<string, unknown> = {}): Promise<string> {
		const answer = await axios.post(
			`${cloud.sim.baseUrl}/api/prompt`,
			{ prompt: txt2img(), extra_data: extraData },
			{ headers: cloud.headers },
		);
		return answer.data.prompt_id as string;
	}

	describe('the tag every submit carries', () => {
		test('Submit sends {execution_id, workflow_id, instance_id, node_name, item_index, operation, keep, request_id}, one request id per submit, and the queue shows it', async () => {
			cloud.sim.options.nodeMs = OUTLASTING_NODE_MS; // still queued when the queue is read
			const result = await runNode(submitParameters({ additionalFields: { extraData: '{"purpose":"test"}' } }), [
				{ json: {} },
				{ json: {} },
			]);
			expect(result.status).toBe('success');
			const sent = submittedExtraData();
			expect(sent).toHaveLength(2);
			const tags = sent.map((extra) => extra.n8n);
			for (const [itemIndex, tag] of tags.entries()) {
				expect(tag).toEqual({
					execution_id: result.executionId,
					workflow_id: HARNESS_WORKFLOW,
					node_name: 'Node',
					item_index: itemIndex,
					operation: 'submit',
					instance_id: INSTANCE_ID,
					keep: true,
					request_id: expect.stringMatching(UUID),
				});
			}
			expect(tags[0].request_id).not.toBe(tags[1].request_id);
			// The user's own keys go along with the tag.
			expect(sent.map((extra) => extra.purpose)).toEqual(['test', 'test']);

			const ids = result.items.map((item) => item.json.prompt_id);
			const queued = await queueOnServer();
			expect(ids.map((id) => (queued.find((entry) => entry[1] === id)![3] as Record<string, unknown>).n8n)).toEqual(tags);
		});

		test('Execute sends it too, as a node and as a tool', async () => {
			const execute = { resource: 'workflow', operation: 'execute', workflow: JSON.stringify(txt2img()) };
			const node = await runNode({ ...execute, waitOptions: { pollIntervalSeconds: 0.05 } });
			expect(node.status).toBe('success');
			const tool = await runAsAgentTool(
				cloud.harness,
				{ name: 'Generate Image', type: 'hostCloud', parameters: execute, credentials: { hostCloudApi: cloud.credential } },
				{},
			);
			expect(tool.status).toBe('success');
			expect(submittedExtraData().map((extra) => extra.n8n)).toEqual([
				{
					execution_id: node.executionId,
					workflow_id: HARNESS_WORKFLOW,
					node_name: 'Node',
					item_index: 0,
					operation: 'execute',
					instance_id: INSTANCE_ID,
					request_id: expect.stringMatching(UUID),
				},
				{
					execution_id: tool.executionId,
					workflow_id: HARNESS_WORKFLOW,
					node_name: 'Generate Image',
					item_index: 0,
					operation: 'execute',
					instance_id: INSTANCE_ID,
					keep: true,
					request_id: expect.stringMatching(UUID),
				},
			]);
		});

		test('a key "n8n" in Extra Data is refused, naming the field, and nothing is sent', async () => {
			const result = await runNode(submitParameters({ additionalFields: { extraData: '{"n8n":{"workflow_id":"someone-else"}}' } }));
			expect(result.error('Node')?.message).toBe('Extra Data (JSON) may not hold the key "n8n"');
			expect(cloud.sim.requestsTo('POST', '/api/prompt')).toEqual([]);
		});
	});

	describe('the queue, as a tool and as a node', () => {
		const CANCEL_IDS = "={{ $fromAI('prompt_ids', 'The prompt_ids of the jobs to cancel', 'string') }}";
		const toolNode = (name: string, parameters: Record<string, unknown>): ToolNodeSpec => ({
			name,
			type: 'hostCloud',
			parameters: parameters as ToolNodeSpec['parameters'],
			credentials: { hostCloudApi: cloud.credential },
		});
		const queueTool = () => toolNode('Show Jobs', { resource: 'queue', operation: 'get' });
		const cancelTool = () => toolNode('Cancel Jobs', { resource: 'queue', operation: 'cancelJobs', promptIds: CANCEL_IDS });

		/** This workflow's job (started by the Submit tool) and four others: another workflow's, an untagged one, forged tags'. */
		async function jobsOfSeveralWorkflows(): Promise<{ own: string; others: string[] }> {
			cloud.sim.options.nodeMs = OUTLASTING_NODE_MS; // nothing finishes while the tools look
			const submitted = await runAsAgentTool(cloud.harness, toolNode('Start Job', submitParameters()), {});
			const own = submitted.items[0]!.json.prompt_id as string;
			const otherWorkflow = await runNode(submitParameters(), [{ json: {} }], OTHER_WORKFLOW);
			const others = [
				otherWorkflow.items[0]!.json.prompt_id as string,
				await submitDirectly(),
				await submitDirectly({ n8n: 'wf-harness' }), // not a tag: a tag is an object
				// This workflow's id, but no n8n install's: an older tag, or one another client wrote.
				await submitDirectly({ n8n: { workflow_id: HARNESS_WORKFLOW, node_name: 'Start Job', operation: 'submit' } }),
			];
			expect([own, ...others].every((id) => typeof id === 'string')).toBe(true);
			cloud.sim.requests.length = 0;
			return { own, others };
		}

		const idsSentToCancel = () => cancelRequestBodies(cloud.sim);

		test('as the MCP Server Trigger calls them: Get lists only this workflow’s job and counts the others; Cancel Jobs cancels it and refuses the others by name', async () => {
			const { own, others } = await jobsOfSeveralWorkflows();
			const [show, cancel] = await toolsFor(cloud.harness, queueTool(), cancelTool());
			expect(show!.description).toMatch(/that this workflow started/);
			expect(cancel!.description).toMatch(/that this workflow started/);

			const listed = JSON.parse(await show!.invoke({}))[0];
			expect([...listed.running, ...listed.pending].map((entry: { prompt_id: string }) => entry.prompt_id)).toEqual([own]);
			expect(listed.running_count + listed.pending_count).toBe(1);
			expect(listed.other_jobs_not_listed).toBe(4);
			for (const id of others) expect(JSON.stringify(listed)).not.toContain(id);

			const unknown = '00000000-0000-4000-8000-000000000000';
			const answer = JSON.parse(await cancel!.invoke({ prompt_ids: [own, ...others, unknown].join(', ') }))[0];
			expect(answer).toEqual({
				requested: [own, ...others, unknown],
				cancelled: [own],
				not_cancelled: [
					...others.map((id) => ({ prompt_id: id, reason: 'not started by this workflow' })),
					{ prompt_id: unknown, reason: 'not queued or running (it may have finished already)' },
				],
			});
			expect(cloud.sim.cloud.jobs.get(own)!.status).toBe('cancelled');
			for (const id of others) expect(cloud.sim.cloud.jobs.get(id)!.status).not.toBe('cancelled');
			expect(idsSentToCancel()).toContain(own);
			for (const id of [...others, unknown]) expect(idsSentToCancel()).not.toContain(id);
		});

		test('as the AI Agent has the engine run them: the same scope, and a cancel of only others’ jobs sends no cancel at all', async () => {
			const { own, others } = await jobsOfSeveralWorkflows();
			const listed = await runAsAgentTool(cloud.harness, queueTool(), {});
			expect(listed.items[0]!.json).toMatchObject({ other_jobs_not_listed: 4 });
			const entries = [...(listed.items[0]!.json.running as object[]), ...(listed.items[0]!.json.pending as object[])];
			expect(entries.map((entry) => (entry as { prompt_id: string }).prompt_id)).toEqual([own]);

			const refused = await runAsAgentTool(cloud.harness, cancelTool(), { prompt_ids: others.join(' ') });
			expect(refused.items[0]!.json).toEqual({
				requested: others,
				cancelled: [],
				not_cancelled: others.map((id) => ({ prompt_id: id, reason: 'not started by this workflow' })),
			});
			expect(idsSentToCancel()).toBe('');
			for (const id of others) expect(cloud.sim.cloud.jobs.get(id)!.status).not.toBe('cancelled');
		});

		test('as a node, Get lists every job of the account and Cancel Jobs cancels any job named', async () => {
			const { own, others } = await jobsOfSeveralWorkflows();
			const listed = await runNode({ resource: 'queue', operation: 'get' }, [{ json: {} }], OTHER_WORKFLOW);
			const entries = [...(listed.items[0]!.json.running as object[]), ...(listed.items[0]!.json.pending as object[])];
			expect(entries.map((entry) => (entry as { prompt_id: string }).prompt_id).sort()).toEqual([own, ...others].sort());
			expect(listed.items[0]!.json).not.toHaveProperty('other_jobs_not_listed');

			const cancelled = await runNode({ resource: 'queue', operation: 'cancelJobs', promptIds: [own, ...others].join(', ') });
			expect(cancelled.status).toBe('success');
			for (const id of [own, ...others]) expect(cloud.sim.cloud.jobs.get(id)!.status).toBe('cancelled');
		});
	});
});
