import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { isPlainObject, pathSegmentText } from '../../../shared/items/validation';
import { readJobWorkflow } from '../../transport/v2-api';
import { PICK_V2, V2_TOOL_SCOPE_LOST, type GenerationRefusal } from '../../transport/v2-service';

const JOB_ID_FIELD = 'Job ID';

const properties: INodeProperties[] = [
	{
		displayName: JOB_ID_FIELD,
		name: 'jobId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 7f3d2c1b-9a8e-4d6f-b012-3c4d5e6f7a8b',
		description: 'The job_id that Submit or Execute answered on v2 (drag it in from their output)',
	},
];

export const description = updateDisplayOptions({ show: { resource: ['workflow'], operation: ['getJobWorkflow'] } }, properties);

/** A v2 endpoint only (`router.ts` refuses it on v1). */
export const notOnV1: GenerationRefusal = {
	why: 'it reads the workflow of a v2 job (GET /api/v2/jobs/{id}/workflow), which the v1 API does not have',
	instead: `Pick a Host Cloud V2 API credential in the node's Credential field (${PICK_V2}).`,
};

/** Why a tool call cannot use this operation (it is hidden on the tool type, and refused). */
export const notAsTool = `Get Job Workflow reads any job of the account by its id: ${V2_TOOL_SCOPE_LOST}`;

/** What each shape of the answer is, and what the user can do with it. */
const FORMAT_HINTS = {
	api: 'The API-format graph the job ran: pass workflow to Execute or Submit to run it again.',
	save: 'The workflow as saved in the editor (UI format), which the v2 API does not run: convert it first, with Workflow → Convert to API Format on a v1 credential (or run it with Execute on v1), then pass the result on.',
} as const;

/**
 * GET /api/v2/jobs/{id}/workflow: the workflow behind a job, in the shape its `format` says
 * (`api`: the graph it ran; `save`: the editor's workflow, when the job was pinned to one). The
 * answer is checked: a format outside the two, or a workflow that is not an object, is an error
 * that says what came, never an item.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const jobId = pathSegmentText(this, itemIndex, JOB_ID_FIELD, this.getNodeParameter('jobId', itemIndex, ''));
	const answer = await readJobWorkflow(this, jobId, { itemIndex });
	const { format, workflow } = answer;
	if ((format !== 'api' && format !== 'save') || !isPlainObject(workflow)) {
		const what =
			format !== 'api' && format !== 'save' ? `format ${JSON.stringify(format ?? null).slice(0, 40)}` : 'a workflow that is not an object';
		throw new NodeOperationError(this.getNode(), `The v2 API answered ${what} for the workflow of job ${jobId}; nothing was read from it`, {
			itemIndex,
			description:
				'The v2 API answers {workflow: {...}, format: "api" or "save"} here. Check the Base URL of the credential: it may point at another service.',
		});
	}
	const long = textOverBound(workflow, 'workflow');
	if (long) {
		throw new NodeOperationError(this.getNode(), `The workflow of job ${jobId} holds a text of over ${WORKFLOW_TEXT_MAX_CHARS} characters (at ${long}); it was not passed on`, {
			itemIndex,
			description: 'A workflow is passed on whole or not at all: a text that long is no graph a job runs. Check the Base URL of the credential.',
		});
	}
	return [{ json: { job_id: jobId, prompt_id: jobId, format, workflow, hint: FORMAT_HINTS[format] } }];
}

/** The longest text a workflow passed on may hold: a long prompt fits; a server's flood does not. */
const WORKFLOW_TEXT_MAX_CHARS = 64 * 1024;

/** Where the first text (or key) longer than WORKFLOW_TEXT_MAX_CHARS is in `value`, or undefined. */
function textOverBound(value: unknown, at: string): string | undefined {
	if (typeof value === 'string') return value.length > WORKFLOW_TEXT_MAX_CHARS ? at : undefined;
	if (value === null || typeof value !== 'object') return undefined;
	for (const [key, entry] of Object.entries(value)) {
		const where = `${at}.${key.slice(0, 40)}`;
		if (key.length > WORKFLOW_TEXT_MAX_CHARS) return where;
		const found = textOverBound(entry, where);
		if (found) return found;
	}
	return undefined;
}
