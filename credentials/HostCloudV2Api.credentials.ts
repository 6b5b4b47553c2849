import type {
	ICredentialDataDecryptedObject,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import { v2ServerOf, V2_TEST_JOB_ID } from './v2-server';
import { textAnswerRule } from './answer-rules';
import { timeLimitProperty } from './time-limit';

/** An answer rule that fails on one error code of the v2 envelope. */
const codeRule = (code: string, message: string) => ({ type: 'responseSuccessBody' as const, properties: { key: 'error.code', value: code, message } });

/**
 * Host Cloud's second generation, the v2 jobs API (`/api/v2/...`, `Authorization: Bearer`): the
 * cloud, a deployment, or a self-hosted v2 proxy. A credential type of its own, beside the v1 one:
 * n8n's credential test checks one answer shape per credential type, and a v1 server proves itself
 * with node definitions, a v2 server with its error envelope (docs/credentials.md).
 */
export class HostCloudV2Api implements ICredentialType {
	name = 'hostCloudV2Api';

	displayName = 'Host Cloud V2 API';

	icon: Icon = { light: 'file:../icons/host.svg', dark: 'file:../icons/host.dark.svg' };

	// A page of its own: n8n appends a query to this link, which would land after a #section and lose it.
	documentationUrl = 'https://github.com/n8n-nodes-host/n8n-nodes-host/blob/main/docs/credentials.md';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			// No default: a made-up address would only fail later with a DNS error.
			default: '',
			required: true,
			placeholder: 'https://cloud.example.com',
			description:
				'Address of the v2 API without /api/v2 at the end: the cloud’s, a deployment’s (for example https://my-deployment.run.example.com), or your self-hosted v2 proxy’s (for example http://127.0.0.1:8189)',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description:
				'Your platform API key, sent as Authorization: Bearer. The cloud and deployments need it. For a self-hosted v2 proxy, enter its static token, or leave empty when it has none.',
		},
		{
			displayName: 'Platform API Key (Partner Nodes)',
			name: 'platformApiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description:
				'Optional. Partner nodes (nodes that call external AI services) are billed through this key, sent in the job’s extra_data only when the workflow has such nodes. Leave empty to use the API Key.',
		},
		timeLimitProperty,
	];

	/** `Authorization: Bearer <key>`, or nothing for a self-hosted proxy without a token. */
	async authenticate(credentials: ICredentialDataDecryptedObject, requestOptions: IHttpRequestOptions): Promise<IHttpRequestOptions> {
		const { headers } = v2ServerOf(credentials);
		return await Promise.resolve({ ...requestOptions, headers: { ...requestOptions.headers, ...headers } });
	}

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.trim().replace(/\\/+$/, "")}}',
			// A job that cannot exist: a working v2 server answers its error envelope, 404 not_found; nothing is created.
			url: `/api/v2/jobs/${V2_TEST_JOB_ID}`,
			method: 'GET',
			// Never follow: the key would go wherever the redirect points. A redirect is then an answer that is no envelope.
			disableFollowRedirect: true,
			// The expected answer is a 404: the rules below read its body.
			ignoreHttpStatusErrors: true,
		},
		rules: [
			textAnswerRule('Base URL'),
			codeRule(
				'unauthorized',
				'The API key was rejected (401 unauthorized): check that you copied the whole key and that it is still active. A self-hosted v2 proxy wants its static token, or none.',
			),
			codeRule('forbidden', 'The service refused this API key (403 forbidden): the key may not use the v2 API.'),
			codeRule('upstream_error', 'The v2 API answered with an error of its own (500 upstream_error). Try again in a moment.'),
			codeRule('rate_limited', 'The v2 API asks to slow down (429 rate_limited): the key works, but test again in a minute.'),
			{
				// Another API's envelope may carry its HTTP status as a number ({"error": {"code": 404}}): a v2 code is a word.
				type: 'responseSuccessBody',
				properties: {
					key: 'error.code.constructor.name',
					value: 'Number',
					message:
						"The Base URL answered, but not as a v2 API does (its error code is a number, not a v2 code such as not_found), so this is not a working credential. Check the address: it is the API's, without /api/v2.",
				},
			},
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'error.code',
					value: undefined,
					message:
						"The Base URL answered, but not as a v2 API does (no error envelope for a job that does not exist), so this is not a working credential. Check the address: it is the API's, without /api/v2, not a website's or a login page's. A v1 server (X-API-Key, /api/prompt) needs the Host Cloud API credential instead.",
				},
			},
		] as ICredentialTestRequest['rules'],
	};
}
