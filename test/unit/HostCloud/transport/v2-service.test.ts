/**
 * Which generation a Host Cloud node speaks (a node saved before v2 speaks v1), a Host Cloud V2
 * API credential that cannot be used refused by name before anything is sent, and the v2 error
 * envelope's codes in words (a headline and a hint each, the code carried in the error's context).
 */
import type { INode } from 'n8n-workflow';

import { apiGenerationOf, hostCloudV2Server, V2_ERROR_TERMS } from '../../../../nodes/HostCloud/transport/v2-service';
import { httpError } from '../../../../nodes/shared/transport/request-errors';
import type { HostContext } from '../../../../nodes/shared/transport/service-api';

const node = { name: 'Host Cloud', type: 'n8n-nodes-host.hostCloud' } as INode;
function contextWith(parameters: Record<string, unknown>, credentials: Record<string, unknown> = {}): HostContext {
	return {
		getNode: () => node,
		getNodeParameter: (name: string, _item: number, fallback?: unknown) => (name in parameters ? parameters[name] : fallback),
		getCredentials: async () => await Promise.resolve(credentials),
	} as unknown as HostContext;
}

test('a node saved before the API Generation parameter speaks v1; v2 only when chosen', () => {
	expect(apiGenerationOf(contextWith({}))).toBe('v1');
	expect(apiGenerationOf(contextWith({ apiGeneration: 'v1' }))).toBe('v1');
	expect(apiGenerationOf(contextWith({ apiGeneration: 'v2' }))).toBe('v2');
});

test.each([['v3'], [''], [' v2 '], [['v2']], [2]])('an API Generation of %j is refused by name, not guessed', (value) => {
	expect(() => apiGenerationOf(contextWith({ apiGeneration: value }))).toThrow(/^API Generation must be "v1" or "v2" \(got /);
});

test('a credential that cannot be used is refused, naming the credential and the field', async () => {
	await expect(hostCloudV2Server(contextWith({}, { baseUrl: 'https://cloud.example/api/v2', apiKey: 'secret-key-1' }), 2)).rejects.toThrow(
		/The Host Cloud V2 API credential cannot be used: its Base URL ends with \/api or \/api\/v2/,
	);
});

test('a usable credential gives its address and bearer header', async () => {
	const server = await hostCloudV2Server(contextWith({}, { baseUrl: 'https://cloud.example', apiKey: 'secret-key-1' }));
	expect(server.baseUrl).toBe('https://cloud.example');
	expect(server.headers).toEqual({ Authorization: 'Bearer secret-key-1' });
});

describe('the v2 error envelope, in words (V2_ERROR_TERMS through the shared error mapping)', () => {
	const errorOf = (status: number, body: unknown) =>
		httpError(contextWith({}), status, body, V2_ERROR_TERMS, { method: 'GET', action: 'reading job j1', itemIndex: 0 }, ['key-1']);
	const envelope = (code: unknown, details: unknown = null) => ({ error: { code, message: 'said by the server', details } });

	test.each([
		[
			500,
			'upstream_error',
			/^The service had an internal error while reading job j1 \(HTTP 500 upstream_error\): said by the server$/,
			/carried out anyway/,
		],
		[501, 'not_implemented', /^This surface of the v2 API does not offer this .*\(HTTP 501 not_implemented\)/, /another surface/],
		[429, 'too_many_streams', /^Too many event streams are open .*\(HTTP 429 too_many_streams\)/, /Close other streams/],
		[429, 'queue_full', /^The queue of the account is full .*\(HTTP 429 queue_full\)/, /some of your jobs have finished/],
		[429, 'deployment_not_ready', /^The deployment is not ready yet .*\(HTTP 429 deployment_not_ready\)/, /few minutes/],
		[429, 'rate_limited', /^Too many requests for the account .*\(HTTP 429 rate_limited\)/, /fewer items/],
		[402, 'insufficient_credits', /^Insufficient credits .*\(HTTP 402 insufficient_credits\)/, /No job was made/],
	])('%i %s: headline, code and hint; the code in the error’s context', (status, code, message, hint) => {
		const error = errorOf(status, JSON.stringify(envelope(code)));
		expect(error.message).toMatch(message);
		expect(error.description).toMatch(hint);
		expect(error.context.error_code).toBe(code);
	});

	test('a code the package does not know keeps the status’s meaning, and is still carried', () => {
		const error = errorOf(418, envelope('teapot_busy'));
		expect(error.message).toBe('The service answered HTTP 418 while reading job j1 (HTTP 418 teapot_busy): said by the server');
		expect(error.context.error_code).toBe('teapot_busy');
	});

	test.each([
		['a number', 42],
		['an object', { nested: true }],
		['words with spaces', 'not a code'],
		['a flood', 'x'.repeat(65)],
	])('a code that is %s is no code: the status speaks, nothing is carried', (_what, code) => {
		const error = errorOf(404, envelope(code));
		expect(error.message).toMatch(/^Not found while reading job j1 \(HTTP 404\): said by the server$/);
		expect(error.context.error_code).toBeUndefined();
	});

	test('a secret echoed in the code or the message is blanked', () => {
		const error = errorOf(403, { error: { code: 'forbidden', message: 'key key-1 is not allowed' } });
		expect(error.message).not.toContain('key-1');
		expect(error.context.error_code).toBe('forbidden');
	});

	test('invalid_workflow: each node of details.node_errors in the contract’s shape, a message if given', () => {
		const error = errorOf(
			422,
			envelope('invalid_workflow', {
				node_errors: {
					'12': [
						{ field: 'model', reason: 'missing_input' },
						{ field: 'seed', reason: 'out_of_range', message: 'Seed is below 0' },
					],
				},
			}),
		);
		expect(error.message).toBe(
			'The workflow was refused while reading job j1 (HTTP 422 invalid_workflow): said by the server: Node 12: input model: missing input; input seed: Seed is below 0',
		);
	});
});
