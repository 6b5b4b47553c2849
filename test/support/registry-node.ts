/**
 * Shared set-up of the Host Registry engine tests: one simulator per test file, a harness, and a
 * Host API credential pointing at the simulator's registry.
 */
import { LoadOptionsContext } from 'n8n-core';
import type { ICredentialDataDecryptedObject, INodeListSearchResult, INodeType, IWorkflowExecuteAdditionalData } from 'n8n-workflow';

import { DEFAULT_PUBLISHING_TOKEN } from '../../simulator/registry/area';
import type { Simulator } from '../../simulator/server';
import type { EngineHarness } from './engine';
import type { HarnessItem } from './items-node';
import { hostApiCredential } from './credential-fixtures';

export const REPOHOST_TOKEN = 'sim-repohost-token';
export const OTHER_ACCESS_TOKEN = 'sim-access-token-user-2';

/** The smallest valid zip archive (an end-of-central-directory record) plus some payload. */
export const ZIP = Buffer.concat([Buffer.from('PK\x05\x06', 'latin1'), Buffer.alloc(18), Buffer.from('node archive payload')]);

/** A resource locator value, as the n8n editor stores it. */
export function locator(value: string, mode: 'list' | 'id' = 'list') {
	return { __rl: true, mode, value };
}

export function archiveItem(json: Record<string, unknown> = {}, bytes: Buffer = ZIP, property = 'data'): HarnessItem {
	return {
		json,
		binaryBase64: { [property]: { data: bytes.toString('base64'), fileName: 'my-node-1.0.0.zip', mimeType: 'application/zip' } },
	};
}

export function registryCredential(harness: EngineHarness, sim: Simulator, overrides: ICredentialDataDecryptedObject = {}): string {
	return harness.addCredential(
		'hostApi',
		hostApiCredential({
			accessToken: sim.accessToken,
			registryUrl: sim.registryUrl,
			publisherId: 'acme',
			publishingToken: DEFAULT_PUBLISHING_TOKEN,
			repohostToken: REPOHOST_TOKEN,
			...overrides,
		}),
	);
}

/** Runs the Host Registry node once over `items` with the given parameters and credential. */
export function runRegistry(
	harness: EngineHarness,
	credential: string,
	parameters: Record<string, unknown>,
	items?: HarnessItem[],
	continueOnFail = false,
) {
	return harness.runNode(
		{ type: 'hostRegistry', parameters: parameters as never, credentials: { hostApi: credential }, continueOnFail },
		items,
	);
}

/** The error of the node under test, with its description (n8n shows it under the message). */
export function nodeError(result: { error(name?: string): unknown }): {
	message: string;
	description?: string;
	context?: { itemIndex?: number };
} {
	const error = result.error('Node') as { message: string; description?: string; context?: { itemIndex?: number } } | undefined;
	if (!error) throw new Error('The node did not fail');
	return error;
}

/** A Host Registry picker's list search, called as the editor calls it: `(filter, paginationToken)`. */
export function registryListSearch(
	harness: EngineHarness,
	method: 'searchNodes' | 'searchPublishers',
	credential: string,
	parameters: Record<string, unknown>,
) {
	const workflow = harness.buildWorkflow({
		nodes: [{ name: 'Node', type: 'hostRegistry', parameters: parameters as never, credentials: { hostApi: credential } }],
	});
	const node = workflow.getNode('Node')!;
	const additionalData = harness.additionalData('list-search') as IWorkflowExecuteAdditionalData & { currentNodeParameters?: unknown };
	additionalData.currentNodeParameters = node.parameters;
	const context = new LoadOptionsContext(workflow, node, additionalData, 'parameters.node');
	const type = harness.nodeTypes.getByNameAndVersion(node.type) as INodeType;
	return (filter?: string, token?: string) =>
		type.methods!.listSearch![method]!.call(context, filter, token) as Promise<INodeListSearchResult>;
}
