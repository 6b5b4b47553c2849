/**
 * Host Cloud's API as the shared transport takes it: the Host Cloud API credential, the server it
 * points at (the cloud, or a self-hosted server with optional proxy headers), and what that
 * server's answers mean. A self-hosted server has no key of its own, so a 401 or 403 comes from
 * its proxy; a cloud 429 that the transport's waits do not clear is the subscription; a refused
 * workflow lists its nodes (`refused-workflow.ts`).
 */
import { NodeOperationError, type ICredentialDataDecryptedObject } from 'n8n-workflow';

import { cloudServerOf, type CloudServer, type ServerKind } from '../../../credentials/cloud-server';
import type { HostContext, ServiceApi, ServiceErrorTerms } from '../../shared/transport/service-api';
import { refusedNodeLines } from './refused-workflow';

/** The lines of a refused workflow's error body: one per refused node, in the user's terms. */
export const refusedWorkflowLines = (body: Record<string, unknown>): string[] => refusedNodeLines(body.node_errors);

const ERROR_TERMS: Record<ServerKind, ServiceErrorTerms> = {
	cloud: {
		keyName: 'API key',
		answeredBy: 'The service',
		statusAdvice: {
			429: {
				headline: 'The subscription is not active',
				hint: 'Running workflows needs an active subscription: the node asked again a few times, in case the service was only busy. Check the subscription, then run again.',
			},
		},
		detailLines: refusedWorkflowLines,
	},
	selfHosted: {
		keyName: 'API key',
		answeredBy: 'Your server',
		// The server itself has no key: a reverse proxy in front of it refused the request.
		statusAdvice: Object.fromEntries(
			[401, 403].map((status) => [
				status,
				{
					headline: 'Your server (or the reverse proxy in front of it) refused the request',
					hint: 'Check the Proxy Headers in the Host Cloud API credential: the proxy wants a header or basic credentials it did not get.',
				},
			]),
		),
		detailLines: refusedWorkflowLines,
	},
};

export const HOST_CLOUD_API: ServiceApi = {
	credentialType: 'hostCloudApi',
	secretsOf: (credentials) => cloudServerOf(credentials).secrets,
	target(context, credentials, itemIndex) {
		const server = usableServer(context, credentials, itemIndex);
		return { baseUrl: server.baseUrl, errors: ERROR_TERMS[server.kind] };
	},
};

/**
 * The server a Host Cloud API credential points at (the cloud or a self-hosted one). A credential
 * that cannot be used (a proxy header that cannot be sent, an address that is not one) is refused
 * here, before anything is sent.
 */
export async function hostCloudServer(context: HostContext, itemIndex = 0): Promise<CloudServer> {
	return usableServer(context, await context.getCredentials(HOST_CLOUD_API.credentialType, itemIndex), itemIndex);
}

function usableServer(context: HostContext, credentials: ICredentialDataDecryptedObject, itemIndex: number): CloudServer {
	const server = cloudServerOf(credentials);
	if (server.problems.length > 0) {
		throw new NodeOperationError(context.getNode(), `The Host Cloud API credential cannot be used: ${server.problems.join('; ')}`, {
			itemIndex,
			description: 'Open the credential and correct it.',
		});
	}
	return server;
}
