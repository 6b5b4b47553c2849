/**
 * The node registry at {registry_url}. Publishers, nodes and node versions live in memory
 * (store.ts); publishing hands out a signed PUT URL on the storage host, and a version
 * turns active once its archive has arrived there as application/zip. Every route needs
 * `Authorization: Bearer <token>`; every refusal is `{error, message}`. The route table is below;
 * what each route does is in handlers.ts.
 *
 * Folder rule: registry/ owns the registry and imports only shared/. server.ts wires it up.
 * test/simulator/shared/import-rules.test.ts checks the rule.
 */
import type { AreaContext } from '../shared/context';
import { type Account, type Handler, type SimRequest, bearerToken, sendError } from '../shared/core';
import { type ArchiveUpload, type NodeStatus, type NodeVersion, type Publisher, type RegistryNode, RegistryError } from './model';
import { type RegistryHandler, registryHandlers } from './handlers';
import { RegistryStore } from './store';

export type { ArchiveUpload, NodeStatus, NodeVersion, NodeVersionStatus, Publisher, PublisherMember, RegistryNode } from './model';
export { DEFAULT_PAGE_LIMIT, DEFAULT_PUBLISHING_TOKEN, REPOHOST_ORIGIN, UNCLAIMED_PUBLISHER_ID } from './model';

export interface RegistryArea {
	/** Live state, keyed by id (versions by version id). */
	readonly publishers: Map<string, Publisher>;
	readonly nodes: Map<string, RegistryNode>;
	readonly versions: Map<string, NodeVersion>;
	/** When true, refusals of a publishing or repohost token quote the token, as some real services do. */
	echoSecretsInErrors: boolean;
	seedPublisher(partial?: Partial<Publisher>): Publisher;
	seedNodes(publisherId: string, count: number, partial?: Partial<RegistryNode>): RegistryNode[];
	seedUnclaimedNode(partial?: Partial<RegistryNode>): RegistryNode;
	setNodeStatus(nodeId: string, status: NodeStatus): RegistryNode;
	addPersonalAccessToken(publisherId: string, token: string): void;
	/** The newest archive uploaded for that version through its signed URL, if any. */
	archiveFor(publisherId: string, nodeId: string, version: string): ArchiveUpload | undefined;
	reset(): void;
}

function callerOf(ctx: AreaContext, req: SimRequest): Account {
	const token = bearerToken(req);
	if (!token) throw new RegistryError(401, 'unauthorized', 'Missing access token: send the header Authorization: Bearer <token>.');
	const caller = ctx.accountByToken(token);
	if (!caller) throw new RegistryError(401, 'unauthorized', 'The access token is invalid or expired.');
	return caller;
}

export function createRegistryArea(ctx: AreaContext): RegistryArea {
	const store = new RegistryStore(ctx);
	let echoSecretsInErrors = false;
	const handlers = registryHandlers(ctx, store, () => echoSecretsInErrors);

	/** Authenticates the caller, brings versions up to date with their archives, then runs the handler. */
	const authed =
		(handler: RegistryHandler): Handler =>
		(req, res) => {
			try {
				const caller = callerOf(ctx, req);
				store.syncArchives();
				handler(req, res, caller);
			} catch (error) {
				if (!(error instanceof RegistryError)) throw error;
				sendError(res, error.status, 'registry', error.code, error.message);
			}
		};

	const router = ctx.registryRouter;
	router.add('POST', '/publishers', authed(handlers.createPublisher));
	router.add('PUT', '/publishers/:publisherId', authed(handlers.updatePublisher));
	router.add('GET', '/publishers/:publisherId/nodes', authed(handlers.listNodes));
	router.add('GET', '/publishers/:publisherId/nodes/v2', authed(handlers.listNodesPaged));
	router.add('PUT', '/publishers/:publisherId/nodes/:nodeId', authed(handlers.updateNode));
	router.add('POST', '/publishers/:publisherId/nodes/:nodeId/versions', authed(handlers.publishVersion));
	router.add('PUT', '/publishers/:publisherId/nodes/:nodeId/versions/:versionId', authed(handlers.updateVersion));
	router.add('POST', '/publishers/:publisherId/nodes/:nodeId/claim-my-node', authed(handlers.claimNode));

	return {
		publishers: store.publishers,
		nodes: store.nodes,
		get versions() {
			store.syncArchives();
			return store.versions;
		},
		get echoSecretsInErrors() {
			return echoSecretsInErrors;
		},
		set echoSecretsInErrors(value: boolean) {
			echoSecretsInErrors = value;
		},
		seedPublisher: (partial) => store.seedPublisher(partial),
		seedNodes: (publisherId, count, partial) => store.seedNodes(publisherId, count, partial),
		seedUnclaimedNode: (partial) => store.seedUnclaimedNode(partial),
		setNodeStatus: (nodeId, status) => store.setNodeStatus(nodeId, status),
		addPersonalAccessToken: (publisherId, token) => store.addPersonalAccessToken(publisherId, token),
		archiveFor: (publisherId, nodeId, version) => store.archiveFor(publisherId, nodeId, version),
		reset() {
			store.reset();
			echoSecretsInErrors = false;
		},
	};
}
