import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { operationRouter, type NodeResources, type Operation } from '../../shared/items/items';
import { notForTools, runsAsTool } from '../../shared/tools/tool-use';
import { HOST_CLOUD_API } from '../transport/cloud-service';
import { apiGenerationOf, HOST_CLOUD_V2_API, PICK_V1, PICK_V2, type ApiGeneration, type GenerationRefusal } from '../transport/v2-service';
import * as file from './file';
import * as queue from './queue';
import * as server from './server';
import * as system from './system';
import * as workflow from './workflow';

/** Every resource and operation of the dropdowns, and the module that runs it. */
export const resources = { workflow, file, queue, server, system } satisfies NodeResources;

/**
 * What an operation module says of the API generations: why it cannot run on one (and what to do
 * instead), and why a tool call cannot use it on v2. None said: it runs on both.
 */
export interface GenerationAvailability {
	notOnV1?: GenerationRefusal;
	notOnV2?: GenerationRefusal;
	notAsToolOnV2?: string;
}

/**
 * An operation the node's API generation cannot serve, refused by name before anything is sent
 * (the node cannot hide operations by credential, so each says so when it runs).
 */
function refuseOnGeneration(context: IExecuteFunctions, resource: string, operation: string, selected: Operation | undefined): void {
	const module = selected as GenerationAvailability | undefined;
	// API Generation takes no expression: every item speaks the same one.
	const generation = apiGenerationOf(context, 0);
	const refusal = generation === 'v2' ? module?.notOnV2 : module?.notOnV1;
	// A tool on v2 is told why only: what to do instead names node operations, some of which v2 refuses as tools.
	if (refusal && generation === 'v2' && runsAsTool(context))
		throw notForTools(context, 0, `${operationName(resource, operation)} is not available on the v2 API: ${refusal.why}`);
	if (refusal) throw notOnGeneration(context, generation, operationName(resource, operation), refusal);
	if (generation === 'v2' && module?.notAsToolOnV2 && runsAsTool(context)) throw notForTools(context, 0, module.notAsToolOnV2);
	refuseWithoutCredential(context, generation);
}

/** The credential each generation speaks with: its n8n type and the name the editor shows. */
const CREDENTIAL_OF: Record<ApiGeneration, { type: string; name: string; pick: string }> = {
	v1: { type: HOST_CLOUD_API.credentialType, name: 'Host Cloud API', pick: PICK_V1 },
	v2: { type: HOST_CLOUD_V2_API.credentialType, name: 'Host Cloud V2 API', pick: PICK_V2 },
};

/**
 * A node whose generation and credential disagree (an imported or hand-edited workflow: API
 * Generation "v2" beside a Host Cloud API credential) is refused in the editor's words: n8n's own
 * message names only the credential type's internal name. Nothing is sent with the other credential.
 */
function refuseWithoutCredential(context: IExecuteFunctions, generation: ApiGeneration): void {
	const wanted = CREDENTIAL_OF[generation];
	if (context.getNode().credentials?.[wanted.type]) return;
	const other = CREDENTIAL_OF[generation === 'v2' ? 'v1' : 'v2'];
	throw new NodeOperationError(context.getNode(), `The node speaks the ${generation} API but has no ${wanted.name} credential`, {
		itemIndex: 0,
		description: `Its API Generation is "${generation}", which the credential it is given sets. Pick a ${wanted.name} credential in its Credential field (to create one: ${wanted.pick}), or a ${other.name} credential to run it on ${generation === 'v2' ? 'v1' : 'v2'}. Nothing was sent.`,
	});
}

/** Picks the operation module from the resource and operation dropdowns, and runs it, unless its API generation cannot serve it. */
export const router = operationRouter(resources, refuseOnGeneration);

/** "Queue → Get": the operation as the node's dropdowns name it. */
function operationName(resource: string, operation: string): string {
	const described = (resources as Record<string, { description: INodeProperties[] }>)[resource]?.description ?? [];
	const dropdown = described.find((property) => property.name === 'operation');
	const option = (dropdown?.options as Array<{ name: string; value: string }> | undefined)?.find((entry) => entry.value === operation);
	return `${resource.charAt(0).toUpperCase()}${resource.slice(1)} → ${option?.name ?? operation}`;
}

function notOnGeneration(
	context: IExecuteFunctions,
	generation: ApiGeneration,
	name: string,
	refusal: GenerationRefusal,
): NodeOperationError {
	const credential = CREDENTIAL_OF[generation].name;
	return new NodeOperationError(
		context.getNode(),
		`${name} is not available on the ${generation} API, which the node's ${credential} credential speaks: ${refusal.why}`,
		{
			itemIndex: 0,
			description: `${refusal.instead} Nothing was sent with the ${credential} credential.`,
		},
	);
}
