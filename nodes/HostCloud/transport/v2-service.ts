/**
 * Host Cloud's second generation, the v2 jobs API, as the shared transport takes it: the Host
 * Cloud V2 API credential, the address it points at, and what its answers mean. Every v2 error
 * is an envelope, `{error: {code, message, details}}`; the node's `apiGeneration` parameter says
 * which generation (and so which credential) an operation speaks.
 */
import { NodeOperationError, type ICredentialDataDecryptedObject } from 'n8n-workflow';

import { v2ServerOf, type V2Server } from '../../../credentials/v2-server';
import { isRecord, quoted } from '../../shared/items/validation';
import type { HostContext, ServiceApi, ServiceErrorTerms, StatusAdvice } from '../../shared/transport/service-api';
import { refusedNodeLines } from './refused-workflow';

export type ApiGeneration = 'v1' | 'v2';

/** Why an operation cannot run on a generation, and what the user can do instead: said before anything is sent. */
export interface GenerationRefusal {
	why: string;
	instead: string;
}

/**
 * How a user picks a generation in n8n's editor: it takes the node's API Generation as the node's
 * way of connecting, so it hides that field and offers the two in the credential dialog (top
 * right in 2.x, "Connect using" in 1.x); the credential the node uses sets it.
 */
export const PICK_V1 = 'in the credential dialog: V1: Workflow API';
export const PICK_V2 = 'in the credential dialog: V2: Jobs API';

/** What to do with a workflow that needs node definitions (a UI-format one, a picker), which the v2 API does not have. */
export const WITHOUT_NODE_DEFINITIONS =
	'Export the workflow in API format from the editor, or convert it with a v1 credential (Workflow → Convert to API Format; a self-hosted ComfyUI works too) and pass the result on.';

/** Why a tool cannot read, follow or cancel jobs by id on v2: the scope it keeps on v1 (its workflow's own jobs) cannot be kept. */
export const V2_TOOL_SCOPE_LOST =
	'on the v2 API a job carries no tag of the workflow that started it, so a tool could not be kept to its own workflow’s jobs (it could reach any job of the account). Execute works as a tool on v2: it follows and cancels only the jobs it starts.';

/** What a v2 tool says of a job it leaves running: no tool can collect it (none reads a job by id on v2). */
export const V2_NO_TOOL_COLLECTS =
	'No tool can collect it on the v2 API (a v2 job carries no tag to show which workflow started it): its outputs can be collected in n8n with Host Cloud Wait for Completion and this job_id.';

/**
 * The generation the node speaks (`apiGeneration`; a node saved before v2 has none: v1). Any other
 * value (a blank or a padded one, from a pasted or edited workflow) is refused by name before
 * anything is sent: n8n picks the node's credential by this exact value, so it would find none.
 */
export function apiGenerationOf(context: Pick<HostContext, 'getNodeParameter' | 'getNode'>, itemIndex = 0): ApiGeneration {
	const value = context.getNodeParameter('apiGeneration', itemIndex, 'v1');
	if (value === 'v2' || value === 'v1') return value;
	throw new NodeOperationError(context.getNode(), `API Generation must be "v1" or "v2" (got ${quoted(value)})`, {
		itemIndex,
		description: `Pick the node's credential again (${PICK_V1}, or ${PICK_V2}): it sets the generation.`,
	});
}

/** What each code of the v2 error envelope means, and what the user can do (the contract's codes, and those its surfaces add). */
const V2_CODE_ADVICE: Record<string, StatusAdvice> = {
	unauthorized: {
		headline: 'The API key was rejected',
		hint: 'Check the API Key of the Host Cloud V2 API credential (a self-hosted v2 proxy without a token takes none).',
	},
	forbidden: {
		headline: 'The API key is not allowed to do this',
		hint: 'Check that the credential belongs to the right account and that its subscription is active.',
	},
	not_found: {
		headline: 'Not found',
		hint: 'The job or asset does not exist, belongs to another account, or is past its retention: check the id, and that the credential is the one of the account that made it.',
	},
	insufficient_credits: { headline: 'Insufficient credits', hint: 'Add credits to the account, then run again. No job was made.' },
	invalid_workflow: { headline: 'The workflow was refused', hint: 'Correct the nodes and inputs named, then run again. No job was made.' },
	workflow_format_ui: {
		headline: 'The workflow is in UI format, which the v2 API does not take',
		hint: 'Export it in API format from the editor, or convert it with a v1 credential (Workflow → Convert to API Format) and pass the result on.',
	},
	missing_asset: {
		headline: 'The workflow references an asset that cannot be used',
		hint: 'Each asset it names must exist and belong to this account: upload the file with this credential (File → Upload Image) and reference the asset it answers.',
	},
	idempotency_key_reuse: {
		headline: 'The service has already seen this request\u2019s Idempotency-Key',
		hint: 'The first request with this key may have made a job or an asset: check before running again.',
	},
	hash_mismatch: {
		headline: 'The file changed on the way',
		hint: 'The bytes the service received do not match their hash: upload the file again. No asset was made.',
	},
	asset_in_use: {
		headline: 'The asset is in use',
		hint: 'The service still depends on it (a job\u2019s outputs, for example): it cannot be deleted now.',
	},
	deployment_stopped: {
		headline: 'The deployment is stopped',
		hint: 'No retry can succeed until its operator starts it again: check the deployment, or point the credential at another.',
	},
	queue_full: {
		headline: 'The queue of the account is full',
		hint: 'The node asked again as the service allowed. Run again once some of your jobs have finished.',
	},
	deployment_not_ready: {
		headline: 'The deployment is not ready yet',
		hint: 'It is still starting: the node asked again as the service allowed. Run again in a few minutes.',
	},
	rate_limited: {
		headline: 'Too many requests for the account',
		hint: 'The node asked again as the service allowed. Run again in a moment, or with fewer items at once.',
	},
	too_many_streams: {
		headline: 'Too many event streams are open for the account',
		hint: 'Close other streams (or wait for their jobs to finish), then run again.',
	},
	upstream_error: {
		headline: 'The service had an internal error',
		hint: 'Try again later. After a submit or an upload, it may have been carried out anyway: check before sending it again.',
	},
	not_implemented: {
		headline: 'This surface of the v2 API does not offer this',
		hint: 'Use another surface (the cloud), or do without it.',
	},
};

/** The envelope's code: `{error: {code, message, details}}`. */
const envelopeCode = (body: Record<string, unknown>): unknown => (isRecord(body.error) ? body.error.code : undefined);

/** The lines of a v2 error's details: a refused workflow's nodes (`node_errors`), or the node and input an asset reference failed at. */
function v2DetailLines(body: Record<string, unknown>): string[] {
	const details = isRecord(body.error) && isRecord(body.error.details) ? body.error.details : {};
	const lines = refusedNodeLines(details.node_errors);
	if (lines.length || typeof details.node_id !== 'string') return lines;
	return [`Node ${details.node_id}${typeof details.input === 'string' ? `, input ${details.input}` : ''}`];
}

export const V2_ERROR_TERMS: ServiceErrorTerms = {
	keyName: 'API key',
	answeredBy: 'The v2 API',
	errorCode: envelopeCode,
	codeAdvice: V2_CODE_ADVICE,
	detailLines: v2DetailLines,
};

export const HOST_CLOUD_V2_API: ServiceApi = {
	credentialType: 'hostCloudV2Api',
	secretsOf: (credentials) => v2ServerOf(credentials).secrets,
	target(context, credentials, itemIndex) {
		return { baseUrl: usableV2Server(context, credentials, itemIndex).baseUrl, errors: V2_ERROR_TERMS };
	},
};

/** The v2 API a Host Cloud V2 API credential points at; one that cannot be used is refused before anything is sent. */
export async function hostCloudV2Server(context: HostContext, itemIndex = 0): Promise<V2Server> {
	return usableV2Server(context, await context.getCredentials(HOST_CLOUD_V2_API.credentialType, itemIndex), itemIndex);
}

function usableV2Server(context: HostContext, credentials: ICredentialDataDecryptedObject, itemIndex: number): V2Server {
	const server = v2ServerOf(credentials);
	if (server.problems.length > 0) {
		throw new NodeOperationError(context.getNode(), `The Host Cloud V2 API credential cannot be used: ${server.problems.join('; ')}`, {
			itemIndex,
			description: 'Open the credential and correct it.',
		});
	}
	return server;
}
