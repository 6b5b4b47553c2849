/**
 * Which generation a Host Cloud node speaks (a node saved before v2 speaks v1), and a Host Cloud V2
 * API credential that cannot be used refused by name before anything is sent.
 */
import type { INode } from 'n8n-workflow';

import { apiGenerationOf, hostCloudV2Server } from '../../../../nodes/HostCloud/transport/v2-service';
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
	expect(apiGenerationOf(contextWith({ apiGeneration: 'v3' }))).toBe('v1');
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
