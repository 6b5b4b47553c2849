/**
 * POST /api/prompt: sending a workflow `prepare-workflow.ts` prepared, with its tag
 * (`ownership/job-tag.ts`) and, for partner nodes, the platform key in extra_data. Never re-sent
 * automatically: a second POST could run the workflow twice. When its answer is lost after it may
 * have reached the server, its job is looked for by the request id of its tag
 * (`ownership/lost-submit.ts`) and answered as if the submit had; the submit is remembered for the
 * item, so that a Retry On Fail takes its job over while it runs (`ownership/item-submits.ts`).
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { errorForItem } from '../../../shared/items/items';
import { hostCloudServer } from '../../transport/cloud-service';
import { pathSegmentProblem } from '../../../shared/items/path-segment';
import { clipTextsDeep } from '../../../shared/transport/service-values';
import { submitPrompt, type SubmitBody } from '../../transport/cloud-api';
import { JOB_TAG_KEY, jobTagFor } from '../ownership/job-tag';
import { forgetSubmit, rememberSubmit, submitAnswered } from '../ownership/item-submits';
import { answerMayBeLost, findLostSubmit } from '../ownership/lost-submit';
import { hasKnownPartnerNodes, hasPartnerNodes } from '../graph/class-definitions';
import { nodeDefinitionsIfReadable } from '../graph/node-definitions';
import { operationError, type PreparedWorkflow } from './prepare-workflow';

/** Where extra_data carries the partner key: the cloud's name, and the name the upstream server reads. */
const PARTNER_KEY_NAMES = { cloud: 'api_key_host_org', selfHosted: 'api_key_comfy_org' } as const;

/** Whether extra_data must carry the platform key (the workflow has partner nodes). */
async function needsPartnerKey(context: IExecuteFunctions, prepared: PreparedWorkflow, itemIndex: number): Promise<boolean> {
	if (prepared.partnerApiKey !== 'auto') return prepared.partnerApiKey === 'always';
	if (hasKnownPartnerNodes(prepared.graph)) return true;
	return hasPartnerNodes(prepared.graph, await nodeDefinitionsIfReadable(context, itemIndex));
}

/** Sends the item's prepared workflow; answers its prompt_id (the job's, found by request id, when the answer was lost). */
export async function submitWorkflow(
	context: IExecuteFunctions,
	prepared: PreparedWorkflow,
	itemIndex: number,
	options: { clientId?: string; requestId?: string; leftRunningAtMaxWait?: boolean } = {},
): Promise<{ prompt_id: string } & IDataObject> {
	const { clientId } = options;
	const extraData: IDataObject = { ...prepared.extraData };
	for (const name of Object.values(PARTNER_KEY_NAMES)) delete extraData[name];
	const tag = jobTagFor(context, itemIndex, { keep: options.leftRunningAtMaxWait === true, requestId: options.requestId });
	extraData[JOB_TAG_KEY] = tag;
	// A self-hosted server gets a key only when the credential has one: nothing is injected otherwise.
	const { partnerKey, kind } = await hostCloudServer(context, itemIndex);
	if (partnerKey && (await needsPartnerKey(context, prepared, itemIndex))) extraData[PARTNER_KEY_NAMES[kind]] = partnerKey;
	const body: SubmitBody = { prompt: prepared.graph as unknown as IDataObject, extra_data: extraData };
	if (clientId) body.client_id = clientId;
	const requestId = String(tag.request_id);
	rememberSubmit(context, itemIndex, requestId, clientId);
	let answer: IDataObject;
	try {
		answer = await submitPrompt(context, body, itemIndex);
	} catch (error) {
		if (!answerMayBeLost(error)) {
			// Refused or never sent: no job was made. (A submit cut short by Stop is found by the watcher's clean-up, by request id.)
			forgetSubmit(context, itemIndex);
			throw errorForItem(context, error, itemIndex);
		}
		// Only Execute sends a client id: it owns its jobs, so it looks once more as its run ends.
		return { prompt_id: (await findLostSubmit(context, error, { requestId, itemIndex, clientId }, clientId !== undefined)).promptId };
	}
	const promptId = answer?.prompt_id;
	const unusableId = typeof promptId === 'string' ? pathSegmentProblem(promptId) : undefined;
	if (unusableId) {
		throw operationError(
			context,
			itemIndex,
			`The service accepted the workflow but its prompt_id ${unusableId}, so the job cannot be followed`,
			'Check the queue (Queue → Get): the job may be there. This answer is a fault of the service.',
		);
	}
	if (typeof promptId !== 'string' || promptId === '') {
		throw operationError(
			context,
			itemIndex,
			'The service accepted the workflow but did not return a prompt_id',
			'Check the queue (Queue → Get): the job may be there.',
		);
	}
	submitAnswered(context, itemIndex, promptId);
	// The rest of the answer (number, node_errors) is the service's: passed on with its texts clipped.
	return { ...clipTextsDeep(answer), prompt_id: promptId };
}
