import type { IAuthenticateGeneric, Icon, ICredentialTestRequest, ICredentialType, INodeProperties } from 'n8n-workflow';

import { missingListRule, testRules, textAnswerRule } from './answer-rules';
import { redirectRules } from './redirect-rules';
import { timeLimitProperty } from './time-limit';

/**
 * Bearer token for the Host registry (area B) and the media proxy (area C). The two body secrets
 * some registry calls need (the publishing token and the code-hosting token) live here too, as
 * password fields, so they never sit in a node parameter, an output item or an execution log.
 */
export class HostApi implements ICredentialType {
	name = 'hostApi';

	displayName = 'Host API';

	icon: Icon = { light: 'file:../icons/host.svg', dark: 'file:../icons/host.dark.svg' };

	// A page of its own: n8n appends a query to this link, which would land after a #section and lose it.
	documentationUrl = 'https://github.com/n8n-nodes-host/n8n-nodes-host/blob/main/docs/credentials.md';

	properties: INodeProperties[] = [
		{
			displayName: 'Access Token',
			name: 'accessToken',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'Sent as "Authorization: Bearer &lt;token&gt;" to the registry and media endpoints',
		},
		{
			displayName: 'Registry URL',
			name: 'registryUrl',
			type: 'string',
			// No default: a made-up address would only fail later with a DNS error.
			default: '',
			required: true,
			placeholder: 'https://api.example.com',
			description: 'Address of the registry API, as your Host account shows it; media tasks use its /proxy endpoints',
		},
		{
			displayName: 'Publisher ID',
			name: 'publisherId',
			type: 'string',
			default: '',
			placeholder: 'my-publisher',
			description:
				'Your publisher ID (lower case). Used to check this credential and as the default publisher in Host Registry. Host Media does not need it.',
		},
		{
			displayName: 'Publishing Token',
			name: 'publishingToken',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description: 'Personal access token of your publisher, needed only to publish node versions (sent as personal_access_token)',
		},
		{
			displayName: 'Code-Hosting Token',
			name: 'repohostToken',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description:
				'Token of your code-hosting account, needed only to claim a node: it proves you own the node repository (sent as REPOHOST_TOKEN)',
		},
		timeLimitProperty,
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '=Bearer {{$credentials.accessToken}}',
			},
		},
	};

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.registryUrl.replace(/\\/+$/, "")}}',
			url: '=/publishers/{{encodeURIComponent($credentials.publisherId || "-")}}/nodes/v2',
			qs: { page: 1, limit: 1 },
			method: 'GET',
			// Never follow: the secret would go wherever the redirect points.
			disableFollowRedirect: true,
		},
		rules: testRules(
			[
				{
					type: 'responseCode',
					properties: {
						value: 401,
						message: 'The access token was rejected (401). Check that you copied the whole token.',
					},
				},
				{
					type: 'responseCode',
					properties: {
						value: 403,
						message: 'The access token is valid but has no access to this publisher (403). Check the Publisher ID.',
					},
				},
				{
					type: 'responseCode',
					properties: {
						value: 404,
						message:
							'The token was not rejected, but no publisher with this Publisher ID was found (404). Enter your publisher ID; if you only use Host Media you can save the credential anyway.',
					},
				},
				...redirectRules('Registry URL', 'access token'),
			],
			[
				// A 2xx passes only as the registry's node listing.
				textAnswerRule('Registry URL'),
				missingListRule(
					'nodes',
					"The Registry URL answered, but not with the registry's list of nodes, so this is not a working credential. Check the Registry URL: it is the registry API's address, as your Host account shows it.",
				),
			],
		),
	};
}
