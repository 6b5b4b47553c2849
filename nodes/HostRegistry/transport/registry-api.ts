/**
 * The node registry API (area B of the spec), one function per endpoint, each written once. Every
 * call goes through the package's one transport, which applies the Host API credential; each
 * function also says what its call means to a user (the action in error messages, and what a
 * status says for this call when that differs from the general meaning).
 * The archive upload to the signed storage URL is not here: see archive-upload.ts beside this file.
 */
import type { IDataObject, IExecuteFunctions, ILoadOptionsFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { pathSegment } from '../../shared/items/path-segment';
import { hostRequest } from '../../shared/transport/transport';
import { HOST_API } from '../../shared/transport/host-api';
import { checkedEntity } from './entities';

/** Publisher, Node and NodeVersion as the spec names them: passed on to the user as answered. */
export type Publisher = IDataObject;
export type RegistryNode = IDataObject;
export type NodeVersion = IDataObject;

/** The v2 listing's answer: limit, nodes, page, total, totalPages. */
export interface NodePage {
	limit?: number;
	nodes: RegistryNode[];
	page?: number;
	total?: number;
	totalPages?: number;
}

/** What publishing answers: the new version, and where to upload its archive (absent when the registry gave none). */
export interface PublishedVersion {
	nodeVersion: NodeVersion;
	signedUrl?: string;
}

type RegistryContext = IExecuteFunctions | ILoadOptionsFunctions;

/** A registry path from its segments, each encoded. */
export function registryPath(...segments: string[]): string {
	return `/${segments.map(pathSegment).join('/')}`;
}

const nodePath = (publisherId: string, nodeId: string): string => registryPath('publishers', publisherId, 'nodes', nodeId);

function notAListing(context: RegistryContext, itemIndex?: number): NodeApiError {
	const message = 'The registry answered the node listing in an unexpected shape (no list of nodes)';
	return new NodeApiError(context.getNode(), { message }, { message, itemIndex });
}

/** POST /publishers: the new Publisher, with the caller as its owner. */
export async function createPublisher(
	context: IExecuteFunctions,
	publisher: Publisher & { id: string },
	itemIndex: number,
): Promise<Publisher> {
	const action = `creating publisher "${publisher.id}"`;
	const answer = await hostRequest<unknown>(context, HOST_API, {
		method: 'POST',
		path: '/publishers',
		body: publisher,
		itemIndex,
		action,
		statusAdvice: {
			409: { headline: 'The publisher ID is already taken', hint: 'Choose another Publisher ID.' },
		},
	});
	return checkedEntity<Publisher>(context, 'Publisher', answer, { action, itemIndex, writes: true, expected: { id: publisher.id } });
}

/** PUT /publishers/{publisherId}: changes the fields given, answers the updated Publisher. */
export async function updatePublisher(
	context: IExecuteFunctions,
	publisherId: string,
	fields: Publisher,
	itemIndex: number,
): Promise<Publisher> {
	const action = `updating publisher "${publisherId}"`;
	const answer = await hostRequest<unknown>(context, HOST_API, {
		method: 'PUT',
		path: registryPath('publishers', publisherId),
		body: { ...fields, id: publisherId },
		retry: true,
		itemIndex,
		action,
	});
	return checkedEntity<Publisher>(context, 'Publisher', answer, { action, itemIndex, writes: true, expected: { id: publisherId } });
}

/** GET /publishers/{publisherId}/nodes (v1): every node in one answer. */
export async function listNodes(
	context: RegistryContext,
	publisherId: string,
	includeBanned: boolean,
	itemIndex?: number,
): Promise<RegistryNode[]> {
	const answer = await hostRequest<unknown>(context, HOST_API, {
		method: 'GET',
		path: registryPath('publishers', publisherId, 'nodes'),
		qs: { include_banned: includeBanned },
		retry: true,
		itemIndex,
		action: `listing the nodes of publisher "${publisherId}"`,
	});
	if (!Array.isArray(answer)) throw notAListing(context, itemIndex);
	const action = `listing the nodes of publisher "${publisherId}"`;
	return answer.map((node: unknown) => checkedEntity<RegistryNode>(context, 'Node', node, { action, itemIndex }));
}

/** GET /publishers/{publisherId}/nodes/v2: one page of the publisher's nodes. */
export async function listNodesPage(
	context: RegistryContext,
	publisherId: string,
	page: number,
	pageSize: number,
	itemIndex?: number,
): Promise<NodePage> {
	const answer = await hostRequest<NodePage>(context, HOST_API, {
		method: 'GET',
		path: `${registryPath('publishers', publisherId, 'nodes')}/v2`,
		qs: { page, limit: pageSize },
		retry: true,
		itemIndex,
		action: `listing the nodes of publisher "${publisherId}" (page ${page})`,
	});
	if (!answer || !Array.isArray(answer.nodes)) throw notAListing(context, itemIndex);
	const action = `listing the nodes of publisher "${publisherId}" (page ${page})`;
	return {
		...answer,
		nodes: answer.nodes.map((node: unknown) => checkedEntity<RegistryNode>(context, 'Node', node, { action, itemIndex })),
	};
}

/** PUT /publishers/{publisherId}/nodes/{nodeId}: changes the fields given, answers the updated Node. */
export async function updateNode(
	context: IExecuteFunctions,
	publisherId: string,
	nodeId: string,
	fields: RegistryNode,
	itemIndex: number,
): Promise<RegistryNode> {
	const action = `updating node "${nodeId}"`;
	const answer = await hostRequest<unknown>(context, HOST_API, {
		method: 'PUT',
		path: nodePath(publisherId, nodeId),
		body: { ...fields, id: nodeId },
		retry: true,
		itemIndex,
		action,
		statusAdvice: {
			403: {
				headline: 'The registry refused the change',
				hint: 'You must be a member of the publisher the node belongs to, and banned nodes cannot be changed.',
			},
		},
	});
	return checkedEntity<RegistryNode>(context, 'Node', answer, { action, itemIndex, writes: true, expected: { id: nodeId } });
}

/** PUT .../versions/{versionId}: the registry changes only `changelog` and `deprecated`; answers the NodeVersion. */
export async function updateVersion(
	context: IExecuteFunctions,
	publisherId: string,
	nodeId: string,
	versionId: string,
	changes: NodeVersion,
	itemIndex: number,
): Promise<NodeVersion> {
	const action = `updating version "${versionId}" of node "${nodeId}"`;
	const answer = await hostRequest<unknown>(context, HOST_API, {
		method: 'PUT',
		path: `${nodePath(publisherId, nodeId)}${registryPath('versions', versionId)}`,
		body: changes,
		retry: true,
		itemIndex,
		action,
	});
	return checkedEntity<NodeVersion>(context, 'NodeVersion', answer, {
		action,
		itemIndex,
		writes: true,
		expected: { id: versionId, node_id: nodeId },
	});
}

/**
 * POST .../versions: creates the version (and the node, or updates its details) with the
 * publisher's personal access token in the body. Not retried: a repeat would meet its own version.
 */
export async function publishVersion(
	context: IExecuteFunctions,
	publisherId: string,
	nodeId: string,
	request: { node: RegistryNode; nodeVersion: NodeVersion & { version: string }; personalAccessToken: string },
	itemIndex: number,
): Promise<PublishedVersion> {
	const { version } = request.nodeVersion;
	const answer = await hostRequest<{ node_version?: NodeVersion; signedUrl?: unknown } | undefined>(context, HOST_API, {
		method: 'POST',
		path: `${nodePath(publisherId, nodeId)}/versions`,
		body: {
			node: { ...request.node, id: nodeId },
			node_version: request.nodeVersion,
			personal_access_token: request.personalAccessToken,
		},
		secrets: [request.personalAccessToken],
		itemIndex,
		action: `publishing version ${version} of node "${nodeId}"`,
		statusAdvice: {
			403: {
				headline: 'Publishing was refused',
				hint: 'Check the Publishing Token in the Host API credential (a personal access token of this publisher) and that the node belongs to this publisher.',
			},
			409: { headline: 'This version already exists', hint: 'Each version number can be published once: raise the Version.' },
		},
	});
	const signedUrl = answer?.signedUrl;
	const action = `publishing version ${version} of node "${nodeId}"`;
	// The registry took the request, so the version may exist; the archive goes nowhere before the answer is checked.
	const writes = `Version ${version} of node "${nodeId}" may have been created all the same (the registry took the request), and no archive was uploaded. Check the node's versions in the registry: if ${version} is there, it stays pending without its archive, so publish the archive as a new version number.`;
	return {
		nodeVersion: checkedEntity<NodeVersion>(context, 'NodeVersion', answer?.node_version, {
			action,
			itemIndex,
			writes,
			expected: { node_id: nodeId, version },
		}),
		signedUrl: typeof signedUrl === 'string' && signedUrl !== '' ? signedUrl : undefined,
	};
}

/** POST .../claim-my-node with the code-hosting token; answers the registry's message as an object. */
export async function claimNode(
	context: IExecuteFunctions,
	publisherId: string,
	nodeId: string,
	repohostToken: string,
	itemIndex: number,
): Promise<IDataObject> {
	const answer = await hostRequest<IDataObject | string | undefined>(context, HOST_API, {
		method: 'POST',
		path: `${nodePath(publisherId, nodeId)}/claim-my-node`,
		body: { REPOHOST_TOKEN: repohostToken },
		secrets: [repohostToken],
		itemIndex,
		action: `claiming node "${nodeId}" for publisher "${publisherId}"`,
		statusAdvice: {
			401: {
				headline: 'The access token or the code-hosting token was rejected',
				hint: 'Check the Access Token and the Code-Hosting Token in the Host API credential.',
			},
			403: {
				headline: 'The claim was refused',
				hint: "The Code-Hosting Token must belong to the account that owns the node's repository, and you must be a member of the publisher.",
			},
			409: { headline: 'The node is already claimed', hint: 'Only unclaimed nodes can be claimed.' },
		},
	});
	return typeof answer === 'string' ? { message: answer } : (answer ?? {});
}
