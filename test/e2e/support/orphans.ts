/**
 * Orphaned cloud jobs (issue 35): an execution killed while its Host Cloud node waits on a job, and
 * the Error Workflow of examples/recipes/cancel-orphaned-jobs.json that cancels what it left and
 * mails the report. The regular-mode crash case (cases/crash-orphans.ts) and the queue-mode
 * worker-killed case both use it, the recipe as it is, its mail received by a loopback SMTP server.
 */
import type { Simulator } from '../../../simulator/server';
import type { PreparedInstance } from './instance-setup';
import type { ExecutionResult, N8nClient, StoredWorkflow, WorkflowJson } from './n8n-client';
import { outputItems } from './n8n-client';
import { webhookCloudWorkflow } from './queue-workflows';
import { smtpCredentialData, type MailServer } from './recipe-servers';
import { loadRecipe, mailParts } from './recipes';
import { waitFor } from './wait';

export const CANCEL_NODE = 'Cancel its jobs';
const RECIPE = 'cancel-orphaned-jobs.json';

/**
 * The recipe as a user imports it, its SMTP credential pointing at `mail`, published (n8n 2.x
 * starts only a published Error Workflow).
 */
export async function publishOrphanRecipe(
	instance: Pick<PreparedInstance, 'client' | 'importWorkflow'>,
	mail: MailServer,
): Promise<StoredWorkflow> {
	const smtp = await instance.client.createCredential('SMTP (orphan reports)', 'smtp', smtpCredentialData(mail));
	const recipe = await instance.importWorkflow(loadRecipe(RECIPE), undefined, { smtp });
	await instance.client.activateWorkflow(recipe.id);
	return recipe;
}

/** Webhook → Host Cloud Execute whose Error Workflow is `errorWorkflowId`. */
export function webhookJobWithErrorWorkflow(name: string, errorWorkflowId: string): { workflow: WorkflowJson; path: string } {
	const { workflow, path } = webhookCloudWorkflow(name, { downloadFiles: false });
	return { workflow: { ...workflow, settings: { ...workflow.settings, errorWorkflow: errorWorkflowId } }, path };
}

/** The cloud job submitted after `before` that is running now, and the n8n execution its tag names. */
export async function runningTaggedJob(simulator: Simulator, before: Set<string>): Promise<{ promptId: string; executionId: string }> {
	const promptId = await waitFor(
		'the job to run on the cloud',
		() => [...simulator.cloud.jobs.entries()].find(([id, job]) => !before.has(id) && job.status === 'in_progress')?.[0],
		{ timeoutMs: 30000 },
	);
	// The tag as the service keeps it (the queue shows this extra_data).
	const job = simulator.cloud.jobs.get(promptId) as unknown as { publicExtraData?: { n8n?: { execution_id?: string } } };
	const executionId = job.publicExtraData?.n8n?.execution_id;
	if (!executionId) throw new Error(`Job ${promptId} carries no execution id in its tag`);
	return { promptId, executionId };
}

/**
 * Polls until n8n has marked the execution failed or crashed; answers when the poll first saw it
 * (n8n marked it at most one poll interval and one request before).
 */
export async function whenMarkedFailed(
	client: N8nClient,
	executionId: string,
	timeoutMs: number,
): Promise<{ execution: ExecutionResult; seenAt: number }> {
	const execution = await client.waitForExecution(executionId, { statuses: ['error', 'crashed'], timeoutMs });
	return { execution, seenAt: Date.now() };
}

/** The Error Workflow's report: the output of its "Cancel its jobs" node in its new execution. */
async function cancelReport(client: N8nClient, errorWorkflowId: string, known: Set<string>): Promise<Record<string, unknown>> {
	const run = await client.waitForNewExecution(errorWorkflowId, known, { timeoutMs: 60000 });
	const [item] = outputItems(run, CANCEL_NODE);
	if (!item) throw new Error(`The Error Workflow's execution ${run.id} ended "${run.status}" with no output from ${CANCEL_NODE}`);
	return item.json as Record<string, unknown>;
}

/** n8n marks the execution at most one status poll (250 ms) and one request before the test sees it. */
const MARK_SEEN_SLACK_MS = 500;

/** The orphan as the Error Workflow left it: what the case checks. */
export interface Orphan {
	promptId: string;
	executionId: string;
	workflowId: string;
	/** The name of the workflow that ran it, as the mail names it. */
	workflowName: string;
	/** The error n8n gave the execution (its marking), as the mail quotes it. */
	error: RegExp;
	/** When the test first saw n8n's marking (whenMarkedFailed). */
	seenAt: number;
	/** How long the job would have run uncancelled (its nodes × their time). */
	jobMs: number;
}

/**
 * The recipe's mail about the orphan, as the SMTP server received it: every line filled (the
 * workflow, the execution and its link, n8n's error, the job by prompt_id, node and item).
 */
async function expectReportMail(mail: MailServer, orphan: Orphan): Promise<void> {
	const received = await waitFor('the cancel report mail', () =>
		mail
			.mails()
			.map(mailParts)
			.find((candidate) => candidate.body.includes(orphan.promptId)),
	);
	const executionUrl = `/workflow/${orphan.workflowId}/executions/${orphan.executionId}`;
	// One comparison of the whole mail: a blank line shows beside the others.
	expect({ to: received.to, subject: received.subject, lines: received.body.split(/\r?\n/) }).toEqual({
		to: 'ops@example.com',
		subject: `Cancelled 1 orphaned Host Cloud job(s) of ${orphan.workflowName}`,
		lines: [
			`Workflow: ${orphan.workflowName}`,
			expect.stringMatching(new RegExp(`^Execution: ${orphan.executionId} \\(https?://\\S+${executionUrl}\\)$`)),
			expect.stringMatching(new RegExp(`^Error: .*${orphan.error.source}`)),
			'Cancelled jobs:',
			`prompt_id: ${orphan.promptId} (running, node Run graph, item 0)`,
		],
	});
}

/**
 * Waits for the Error Workflow's report, the job's cancel and the mail, and checks them: the report
 * and the mail name the job by prompt_id, node and item, the mail names the workflow, execution
 * and error too; the job was cancelled once, within 10 s of the marking. Answers the figures both
 * crash cases record.
 */
export async function expectOrphanCancelled(
	client: N8nClient,
	simulator: Simulator,
	errorWorkflow: { id: string; known: Set<string> },
	orphan: Orphan,
	mail: MailServer,
): Promise<{ cancelled_seconds_after_marked_seen: number; job_seconds_saved: number }> {
	const report = await cancelReport(client, errorWorkflow.id, errorWorkflow.known);
	const job = await waitFor('the orphaned job to be cancelled', () => {
		const current = simulator.cloud.jobs.get(orphan.promptId);
		return current?.status === 'cancelled' ? current : undefined;
	});
	expect(report).toMatchObject({
		execution_id: orphan.executionId,
		workflow_id: orphan.workflowId,
		cancelled: [{ prompt_id: orphan.promptId, state: 'running', node_name: 'Run graph', item_index: 0, operation: 'execute' }],
		cancelled_count: 1,
	});
	await expectReportMail(mail, orphan);
	const cancelledAfterMarkMs = job.finishedAt! - orphan.seenAt;
	expect(cancelledAfterMarkMs).toBeLessThanOrEqual(10_000 - MARK_SEEN_SLACK_MS);
	// Cancelled once, by the Error Workflow: nothing else touched it.
	expect(simulator.requestsTo('POST', '/api/queue').filter((request) => request.body.includes(orphan.promptId))).toHaveLength(1);
	return {
		cancelled_seconds_after_marked_seen: Number((cancelledAfterMarkMs / 1000).toFixed(1)),
		job_seconds_saved: Number(((job.startedAt! + orphan.jobMs - job.finishedAt!) / 1000).toFixed(1)),
	};
}
