/**
 * Submitting an item's workflow on v2 (`POST /api/v2/jobs`): never a second paid job. Each item try
 * has one Idempotency-Key, a fresh UUID kept with the item's submit in this process's memory
 * (`ownership/item-submits.ts`), so a Retry On Fail of that try, and the node's own resend after an
 * unknown outcome, send the SAME key; the server refuses a key it has claimed (`422
 * idempotency_key_reuse`), and releases one whose submit definitely failed. v2 lists no jobs, so a
 * job whose answer was lost cannot be found: the item then fails, naming the key.
 */
import { randomUUID } from 'crypto';

import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { fieldLabel } from '../../../shared/items/fields';
import { errorForItem } from '../../../shared/items/items';
import { invalidField } from '../../../shared/items/validation';
import { parseWorkflowGraph } from '../graph/workflow-graph';
import { earlierSubmitOf, forgetSubmit, rememberSubmit, submitAnswered } from '../ownership/item-submits';
import { prepareWorkflow, WORKFLOW_FIELD, type PreparedWorkflow, type SubmitFields } from '../submit/prepare-workflow';
import { hostCloudV2Server } from '../../transport/v2-service';
import { postJob, type V2JobBody } from '../../transport/v2-api';
import { checkedJob, type V2Job } from './job-record';

/**
 * The item's workflow for v2: API format only (v2 has no node definitions to convert a UI export
 * with), "Set Inputs" applied, and no Extra Data (v2's extra_data is closed). Nothing is sent.
 */
export async function prepareV2Workflow(context: IExecuteFunctions, itemIndex: number, fields: SubmitFields): Promise<PreparedWorkflow> {
	const parsed = parseWorkflowGraph(context.getNodeParameter('workflow', itemIndex, ''), WORKFLOW_FIELD);
	if ('uiWorkflow' in parsed) {
		throw new NodeOperationError(context.getNode(), `${WORKFLOW_FIELD} is in UI format, which the v2 API does not take`, {
			itemIndex,
			description:
				'v2 has no node definitions to convert it with. Export the workflow in API format from the editor (Workflow → Export (API)), or convert it with Convert to API Format on a v1 credential (a self-hosted ComfyUI works) and pass the result on.',
		});
	}
	const prepared = await prepareWorkflow(context, itemIndex, fields);
	if (Object.keys(prepared.extraData).length > 0) {
		throw invalidField(
			context,
			itemIndex,
			fieldLabel(fields.extraData),
			'cannot be used on the v2 API',
			`v2 takes only one field in extra_data (api_key_comfy_org, the partner key, which the node sets from the credential). Remove ${Object.keys(prepared.extraData).slice(0, 5).join(', ')}.`,
		);
	}
	return prepared;
}

/** The body of the submit: the graph verbatim, and the partner key when one is set and the option is not "Never Add". */
async function jobBody(context: IExecuteFunctions, prepared: PreparedWorkflow, itemIndex: number): Promise<V2JobBody> {
	const { partnerKey } = await hostCloudV2Server(context, itemIndex);
	const body: V2JobBody = { workflow: prepared.graph as unknown as IDataObject };
	// v2 has no node definitions to find partner nodes by: "Add When Needed" sends a key that is set.
	if (partnerKey && prepared.partnerApiKey !== 'never') body.extra_data = { api_key_comfy_org: partnerKey };
	return body;
}

/** The error code of a v2 error envelope, as the transport keeps it. */
function errorCodeOf(error: unknown): string | undefined {
	const code = (error as { context?: { error_code?: unknown } }).context?.error_code;
	return typeof code === 'string' ? code : undefined;
}

/** Whether the submit may have made a job all the same: no answer (after sending), or a 5xx. */
function outcomeUnknown(error: unknown): boolean {
	const httpCode = Number((error as { httpCode?: unknown }).httpCode);
	if (Number.isFinite(httpCode) && httpCode > 0) return httpCode >= 500;
	return (error as { context?: { mayHaveArrived?: unknown } }).context?.mayHaveArrived !== false;
}

/** The item fails naming its key: a job may exist that v2 cannot show. */
function mayExistError(context: IExecuteFunctions, itemIndex: number, key: string, cause: unknown): NodeOperationError {
	const error = new NodeOperationError(
		context.getNode(),
		`The submit with Idempotency-Key ${key} may have started a job whose answer was lost: nothing was submitted again`,
		{
			itemIndex,
			description: `${errorCodeOf(cause) === 'idempotency_key_reuse' ? 'The server has seen this key before' : 'The same key, sent once more, got no clear answer either'} (${(cause as Error).message}). A job may exist and run (and bill) all the same, and the v2 API lists no jobs, so the node cannot find it: look for it in your account's jobs before running again. Running again starts a new job with a new key.`,
		},
	);
	Object.assign(error.context, { idempotency_key: key, error_code: 'idempotency_key_reuse' });
	return error;
}

/** Sends the submit with `key`; once more with the same key after an unknown outcome. */
async function sendWithKey(context: IExecuteFunctions, body: V2JobBody, key: string, itemIndex: number, deadline?: number): Promise<IDataObject> {
	for (let send = 1; ; send++) {
		try {
			return await postJob(context, body, key, { itemIndex, deadline });
		} catch (error) {
			if (errorCodeOf(error) === 'idempotency_key_reuse') throw mayExistError(context, itemIndex, key, error);
			if (send === 2 && outcomeUnknown(error)) throw mayExistError(context, itemIndex, key, error);
			if (!outcomeUnknown(error) || context.getExecutionCancelSignal()?.aborted) {
				// A definite refusal: the server released the key, and no job was made.
				if (!outcomeUnknown(error)) forgetSubmit(context, itemIndex);
				throw errorForItem(context, error, itemIndex);
			}
		}
	}
}

/**
 * Submits the item's prepared workflow and answers its job, checked. The key is the item's earlier
 * try's when that try's outcome is not known (a Retry On Fail), else a fresh one.
 */
export async function submitV2Job(
	context: IExecuteFunctions,
	prepared: PreparedWorkflow,
	itemIndex: number,
	deadline?: number,
): Promise<V2Job> {
	const body = await jobBody(context, prepared, itemIndex);
	const earlier = earlierSubmitOf(context, itemIndex);
	const key = earlier && !earlier.promptId ? earlier.requestId : randomUUID();
	rememberSubmit(context, itemIndex, key);
	const answer = await sendWithKey(context, body, key, itemIndex, deadline);
	const id = typeof answer.id === 'string' ? answer.id : '';
	const job = checkedJob(context, answer, id, itemIndex);
	submitAnswered(context, itemIndex, job.id);
	return job;
}
