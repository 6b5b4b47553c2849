/**
 * ownership/: whose a cloud job is. This file is the folder's entry: the tag every submit carries
 * in `extra_data.n8n`, and reading it back from a queue entry. `own-jobs.ts` uses it to keep a tool
 * to the jobs of its own workflow. The folder may call transport/ and nodes/shared, and no other
 * helper folder: submit/, the job library (job-reports/, jobs/, finished-jobs/) and the queue
 * operations all read it.
 *
 * The tag names the n8n execution, workflow, node and item that submitted the job, and a request
 * id made per submit, so that a job whose execution died can be found (and cancelled), and a
 * submit whose answer was lost can be told apart from a second one. None of it is secret.
 */
import { randomUUID } from 'crypto';

import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { isRecord, ownValue } from '../../../shared/items/validation';

/** The key of extra_data that holds the tag; a user's Extra Data may not set it. */
export const JOB_TAG_KEY = 'n8n';

/** A string the context gives, or undefined (a manual run of an unsaved workflow has no workflow id). */
function presentString(read: () => unknown): string | undefined {
	try {
		const value = read();
		return typeof value === 'string' && value !== '' ? value : undefined;
	} catch {
		// Some contexts (an older n8n, a test run) have no execution to ask: the tag says what exists.
		return undefined;
	}
}

/** The id of the workflow this node runs in, when it has one. */
export function thisWorkflowId(context: IExecuteFunctions): string | undefined {
	return presentString(() => context.getWorkflow().id);
}

/**
 * The tag of one submit: `{execution_id, workflow_id, instance_id, node_name, item_index,
 * operation, request_id}` (ids left out when n8n has none), and `keep: true` for a job meant to
 * outlive its wait: one handed on by Submit, or one Execute leaves running at Max Wait (On Timeout
 * "Leave It Running", a tool's Tool Wait). Such a job may be awaited elsewhere, so it is no orphan
 * when its execution ends. `instance_id` (n8n's, the same on every process of one install) keeps
 * two installs on one account, which both number executions from 1, apart. The request id is made
 * here unless the caller made it (the watcher, which looks for the jobs of submits a cancel cut short).
 */
export function jobTagFor(
	context: IExecuteFunctions,
	itemIndex: number,
	{ keep = false, requestId = randomUUID() }: { keep?: boolean; requestId?: string } = {},
): IDataObject {
	const executionId = thisExecutionId(context);
	const workflowId = thisWorkflowId(context);
	const instanceId = thisInstanceId(context);
	const operation = presentString(() => context.getNodeParameter('operation', itemIndex));
	return {
		...(executionId ? { execution_id: executionId } : {}),
		...(workflowId ? { workflow_id: workflowId } : {}),
		...(instanceId ? { instance_id: instanceId } : {}),
		node_name: context.getNode().name,
		item_index: itemIndex,
		...(operation ? { operation } : {}),
		...(keep || operation === 'submit' ? { keep: true } : {}),
		request_id: requestId,
	};
}

/** The id of the execution this node runs in, when it has one. */
export function thisExecutionId(context: IExecuteFunctions): string | undefined {
	return presentString(() => context.getExecutionId());
}

/** The id of this n8n install, when the context gives one (a node's or a trigger's). */
export function thisInstanceId(context: Pick<IExecuteFunctions, 'getInstanceId'>): string | undefined {
	return presentString(() => context.getInstanceId());
}

/** The workflow a tool runs in, and this n8n install: a tag must name both for the job to be the tool's. */
export interface ThisWorkflow {
	workflowId?: string;
	instanceId?: string;
}

export function thisWorkflow(context: IExecuteFunctions): ThisWorkflow {
	return { workflowId: thisWorkflowId(context), instanceId: thisInstanceId(context) };
}

/**
 * Whether a tag was made by this n8n install: it names this install's id. A tag without one (an
 * older tag, or one another client of the account wrote) is no install's, so never this one's:
 * execution ids and workflow ids alone are not unique across installs.
 */
export function madeByThisInstall(tag: Record<string, unknown>, instanceId: string | undefined): boolean {
	return instanceId !== undefined && ownValue(tag, 'instance_id') === instanceId;
}

/** A queue entry's tag (`extra_data.n8n`), when it has one. */
export function jobTagOf(extraData: unknown): Record<string, unknown> | undefined {
	const tag = isRecord(extraData) ? ownValue(extraData, JOB_TAG_KEY) : undefined;
	return isRecord(tag) ? tag : undefined;
}

/** A string value of the tag in a queue entry's extra_data, if any. */
function tagValue(extraData: unknown, key: 'workflow_id' | 'request_id'): string | undefined {
	const tag = jobTagOf(extraData);
	const value = tag ? ownValue(tag, key) : undefined;
	return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The workflow id a queue entry's extra_data carries in its tag, if any. */
export const taggedWorkflowId = (extraData: unknown): string | undefined => tagValue(extraData, 'workflow_id');

/** The request id of the submit that made a job, from its extra_data's tag, if any. */
export const taggedRequestId = (extraData: unknown): string | undefined => tagValue(extraData, 'request_id');
