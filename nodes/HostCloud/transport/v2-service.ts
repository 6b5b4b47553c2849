/**
 * Host Cloud's second generation, the v2 jobs API, as the shared transport takes it: the Host
 * Cloud V2 API credential, the address it points at, and what its answers mean. Every v2 error
 * is an envelope, `{error: {code, message, details}}`; the node's `apiGeneration` parameter says
 * which generation (and so which credential) an operation speaks.
 */
import { NodeOperationError, type ICredentialDataDecryptedObject } from 'n8n-workflow';

import { v2ServerOf, type V2Server } from '../../../credentials/v2-server';
import type { HostContext, ServiceApi, ServiceErrorTerms } from '../../shared/transport/service-api';

export type ApiGeneration = 'v1' | 'v2';

/** The generation the node speaks (`apiGeneration`; a node saved before v2 has none: v1). */
export function apiGenerationOf(context: Pick<HostContext, 'getNodeParameter'>, itemIndex = 0): ApiGeneration {
	return context.getNodeParameter('apiGeneration', itemIndex, 'v1') === 'v2' ? 'v2' : 'v1';
}

const V2_ERROR_TERMS: ServiceErrorTerms = {
	keyName: 'API key',
	answeredBy: 'The v2 API',
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
