import type {
	ICredentialDataDecryptedObject,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import { cloudServerOf } from './cloud-server';
import { missingListRule, testRules, textAnswerRule } from './answer-rules';
import { redirectRules } from './redirect-rules';
import { timeLimitProperty } from './time-limit';

const CLOUD = { show: { server: ['cloud'] } };
const SELF_HOSTED = { show: { server: ['selfHosted'] } };

/**
 * Where Host Cloud runs workflows: the cloud workflow API (area A) with its API key, or your own
 * ComfyUI-compatible server, optionally behind a reverse proxy that wants headers.
 */
export class HostCloudApi implements ICredentialType {
	name = 'hostCloudApi';

	displayName = 'Host Cloud API';

	icon: Icon = { light: 'file:../icons/host.svg', dark: 'file:../icons/host.dark.svg' };

	// A page of its own: n8n appends a query to this link, which would land after a #section and lose it.
	documentationUrl = 'https://github.com/n8n-nodes-host/n8n-nodes-host/blob/main/docs/credentials.md';

	properties: INodeProperties[] = [
		{
			displayName: 'Server',
			name: 'server',
			type: 'options',
			options: [
				{ name: 'Host Cloud', value: 'cloud', description: 'The hosted cloud API, with your platform API key' },
				{
					name: 'Self-Hosted (ComfyUI-Compatible)',
					value: 'selfHosted',
					description: 'Your own graph server, for example http://127.0.0.1:8188',
				},
			],
			default: 'cloud',
			description: 'The same Host Cloud node runs workflows on either',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			displayOptions: CLOUD,
			description:
				'Your platform API key. It is sent as the X-API-Key header, as the WebSocket token, and to partner nodes that call external AI services.',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			// No default: a made-up address would only fail later with a DNS error.
			default: '',
			required: true,
			placeholder: 'https://cloud.example.com',
			displayOptions: CLOUD,
			description: 'Address of the cloud API, as your Host account shows it, without /api at the end',
		},
		{
			displayName: 'Server URL',
			name: 'serverUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'http://127.0.0.1:8188',
			displayOptions: SELF_HOSTED,
			description:
				'Address of your server, without /api at the end. Put a reverse proxy’s credentials in Proxy Headers, not in the address.',
		},
		{
			displayName: 'Platform API Key (Partner Nodes)',
			name: 'platformApiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			displayOptions: SELF_HOSTED,
			description:
				'Optional. Partner nodes (nodes that call external AI services) on your server are billed through this key, sent in the workflow’s extra_data only. Leave empty if you do not use them: nothing is sent.',
		},
		{
			displayName: 'Proxy Headers',
			name: 'proxyHeaders',
			type: 'fixedCollection',
			typeOptions: { multipleValues: true },
			default: {},
			placeholder: 'Add Header',
			displayOptions: SELF_HOSTED,
			description:
				'Optional headers for a reverse proxy in front of the server (for example Authorization: Basic …, or an access token). Sent with every request and the WebSocket, to this server only.',
			options: [
				{
					displayName: 'Header',
					name: 'values',
					values: [
						{ displayName: 'Name', name: 'name', type: 'string', default: '', placeholder: 'Authorization' },
						{ displayName: 'Value', name: 'value', type: 'string', typeOptions: { password: true }, default: '' },
					],
				},
			],
		},
		{
			displayName: 'WebSocket Base URL',
			name: 'wsBaseUrl',
			type: 'string',
			default: '',
			placeholder: 'wss://cloud.example.com',
			description:
				'Address of the progress WebSocket, without /ws at the end. Leave empty to derive it from the server’s address (https becomes wss, http becomes ws).',
		},
		timeLimitProperty,
	];

	/** The cloud's X-API-Key, or a self-hosted server's proxy headers (its partner key goes in extra_data only). */
	async authenticate(credentials: ICredentialDataDecryptedObject, requestOptions: IHttpRequestOptions): Promise<IHttpRequestOptions> {
		const { headers } = cloudServerOf(credentials);
		return await Promise.resolve({ ...requestOptions, headers: { ...requestOptions.headers, ...headers } });
	}

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{($credentials.server === "selfHosted" ? $credentials.serverUrl : $credentials.baseUrl).trim().replace(/\\/+$/, "")}}',
			// Node definitions on both: the cloud's whole list (the spec's route), a server's one core node (small).
			url: '={{$credentials.server === "selfHosted" ? "/api/object_info/KSampler" : "/api/object_info"}}',
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
						message:
							'The API key was rejected (401): check that you copied the whole key and that it is still active. On a self-hosted server, your reverse proxy refused the request: check the Proxy Headers.',
					},
				},
				{
					type: 'responseCode',
					properties: {
						value: 404,
						message:
							'No API answered at this address (404). Check the Base URL or Server URL: it should not end with /api. A self-hosted server must be ComfyUI-compatible.',
					},
				},
				{
					type: 'responseCode',
					properties: {
						value: 403,
						message: 'The server refused the credential (403). Self-hosted: check the Proxy Headers your reverse proxy wants.',
					},
				},
				...redirectRules('Base URL / Server URL', 'credential'),
			],
			[
				// A 2xx passes only as node definitions: every ComfyUI-compatible server defines the core node KSampler.
				textAnswerRule('Base URL / Server URL'),
				missingListRule(
					'KSampler.output',
					"The Base URL / Server URL answered, but not with node definitions (no core node KSampler), so this is not a working credential. Check the address: it is the API's, as your Host account or your server shows it, not a website's or a login page's.",
				),
			],
		),
	};
}
