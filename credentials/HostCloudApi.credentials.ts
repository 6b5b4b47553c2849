import type { IAuthenticateGeneric, Icon, ICredentialTestRequest, ICredentialType, INodeProperties } from 'n8n-workflow';

import { redirectRules } from './redirect-rules';

/** API key for the Host cloud workflow API (area A): REST calls, the WebSocket and partner nodes. */
export class HostCloudApi implements ICredentialType {
	name = 'hostCloudApi';

	displayName = 'Host Cloud API';

	icon: Icon = { light: 'file:../icons/host.svg', dark: 'file:../icons/host.dark.svg' };

	documentationUrl = 'https://github.com/n8n-nodes-host/n8n-nodes-host#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'Your platform API key. It is sent as the X-API-Key header, as the WebSocket token, and to partner nodes that call external AI services.',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: 'https://cloud.host.example',
			required: true,
			placeholder: 'https://cloud.host.example',
			description: 'Address of the cloud API, without /api at the end',
		},
		{
			displayName: 'WebSocket Base URL',
			name: 'wsBaseUrl',
			type: 'string',
			default: '',
			placeholder: 'wss://cloud.host.example',
			description:
				'Address of the progress WebSocket, without /ws at the end. Leave empty to derive it from the Base URL (https becomes wss, http becomes ws).',
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				'X-API-Key': '={{$credentials.apiKey}}',
			},
		},
	};

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
			url: '/api/object_info',
			method: 'GET',
			// Never follow: the secret would go wherever the redirect points.
			disableFollowRedirect: true,
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message: 'The API key was rejected (401). Check that you copied the whole key and that it is still active.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message: 'No cloud API answered at this Base URL (404). Check the Base URL: it should not end with /api.',
				},
			},
			...redirectRules('Base URL', 'API key'),
		],
	};
}
