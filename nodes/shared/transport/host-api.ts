/**
 * The Host API as the transport takes it: the one credential (`hostApi`) that Host Media and Host
 * Registry share, its registry URL and its tokens. It lives here, not in either node, so both use
 * it without one node importing the other.
 */
import { NodeOperationError } from 'n8n-workflow';

import { addressProblem } from '../../../credentials/cloud-server';
import type { ServiceApi } from './service-api';

export const HOST_API: ServiceApi = {
	credentialType: 'hostApi',
	secretsOf: (credentials) => ['accessToken', 'publishingToken', 'repohostToken'].map((name) => String(credentials[name] ?? '')),
	target(context, credentials, itemIndex) {
		const registryUrl = String(credentials.registryUrl ?? '')
			.trim()
			.replace(/\/+$/, '');
		const problem = addressProblem('Registry URL', registryUrl);
		if (problem)
			throw new NodeOperationError(context.getNode(), `The Host API credential cannot be used: ${problem}`, {
				itemIndex,
				description: 'Open the credential and enter the address of your Host API.',
			});
		return { baseUrl: registryUrl, errors: { keyName: 'access token', answeredBy: 'The service' } };
	},
};
