/**
 * Area B: the node registry at {registry_url}. Publishers, nodes and node versions live in memory;
 * publishing hands out a signed PUT URL on the storage host, and a version turns active once its
 * archive has arrived there as application/zip. Every route needs `Authorization: Bearer <token>`;
 * every refusal is `{error, message}`.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';

import { type Account, type SimRequest, bearerToken, sendError, sendJson } from './core';
import {
	type NodeStatus,
	type NodeVersion,
	type Publisher,
	type PublisherMember,
	type RegistryNode,
	NODE_FIELDS,
	NODE_ID_PATTERN,
	PUBLISHER_FIELDS,
	PUBLISHER_ID_PATTERN,
	RegistryError,
	VERSION_FIELDS,
	VERSION_UPDATE_FIELDS,
	booleanParam,
	isPlainObject,
	isSemver,
	pickFields,
	positiveIntParam,
	repositoryOwner,
} from './registry-model';
import type { AreaContext } from './context';
import type { Upload } from './storage';

export type { NodeStatus, NodeVersion, NodeVersionStatus, Publisher, PublisherMember, RegistryNode } from './registry-model';

/** Token every new publisher can publish with (hook addPersonalAccessToken adds more). */
export const DEFAULT_PUBLISHING_TOKEN = 'sim-publishing-token';
/** Unclaimed nodes sit under this admin publisher (the real registry does the same); it has no members. */
export const UNCLAIMED_PUBLISHER_ID = 'admin-unclaimed';
export const DEFAULT_PAGE_LIMIT = 10;
/** Host of the simulated code-hosting service in repository URLs. */
export const REPOHOST_ORIGIN = 'https://repohost.example';

export interface ArchiveUpload extends Upload {
	/** Whether the archive was PUT with Content-Type application/zip (what makes the version active). */
	isZip: boolean;
}

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

type AuthedHandler = (req: SimRequest, res: ServerResponse, caller: Account) => void;

export function createRegistryArea(ctx: AreaContext): RegistryArea {
	const publishers = new Map<string, Publisher>();
	const nodes = new Map<string, RegistryNode>();
	const versions = new Map<string, NodeVersion>();
	const tokens = new Map<string, Set<string>>();
	/** Archive key of every version still waiting for its upload. */
	const pendingArchives = new Map<string, string>();
	let lastStamp = 0;
	let seedCounter = 0;

	const area: RegistryArea = {
		publishers,
		nodes,
		get versions() {
			syncArchives();
			return versions;
		},
		echoSecretsInErrors: false,
		seedPublisher,
		seedNodes,
		seedUnclaimedNode,
		setNodeStatus,
		addPersonalAccessToken(publisherId, token) {
			requireKnownPublisher(publisherId);
			tokens.get(publisherId)?.add(token);
		},
		archiveFor(publisherId, nodeId, version) {
			syncArchives();
			const upload = latestUpload(archiveKey(publisherId, nodeId, version));
			return upload && { ...upload, isZip: isZipType(upload.contentType) };
		},
		reset() {
			publishers.clear();
			nodes.clear();
			versions.clear();
			tokens.clear();
			pendingArchives.clear();
			lastStamp = 0;
			seedCounter = 0;
			area.echoSecretsInErrors = false;
		},
	};

	// ---- time, ids, lookups -------------------------------------------------------------------

	/** ISO time that strictly increases, so "created_at then id" ordering follows creation order. */
	function stamp(): string {
		lastStamp = Math.max(Date.now(), lastStamp + 1);
		return new Date(lastStamp).toISOString();
	}

	function memberFor(account: Account, role = 'owner'): PublisherMember {
		return { id: randomUUID(), role, user: { id: account.id, name: account.name, email: account.email } };
	}

	function isMember(publisher: Publisher, account: Account): boolean {
		return publisher.members.some((m) => m.user.id === account.id);
	}

	function requirePublisher(id: string): Publisher {
		const publisher = publishers.get(id);
		if (!publisher) throw new RegistryError(404, 'publisher_not_found', `Publisher "${id}" does not exist.`);
		return publisher;
	}

	function requireMember(publisher: Publisher, caller: Account): void {
		if (!isMember(publisher, caller)) {
			throw new RegistryError(403, 'forbidden', `You are not a member of publisher "${publisher.id}".`);
		}
	}

	/** The node, when it exists, is not deleted and belongs to the publisher. */
	function requireNodeOf(publisher: Publisher, nodeId: string): RegistryNode {
		const node = nodes.get(nodeId);
		if (!node || node.status === 'NodeStatusDeleted' || node.publisher.id !== publisher.id) {
			throw new RegistryError(404, 'node_not_found', `Node "${nodeId}" does not exist under publisher "${publisher.id}".`);
		}
		return node;
	}

	function refuseBanned(node: RegistryNode): void {
		if (node.status === 'NodeStatusBanned') throw new RegistryError(403, 'node_banned', `Node "${node.id}" is banned.`);
	}

	/** Nodes of a publisher in a stable order: created_at, then id. Deleted nodes never show. */
	function nodesOf(publisherId: string, includeBanned: boolean): RegistryNode[] {
		return [...nodes.values()]
			.filter((n) => n.publisher.id === publisherId && n.status !== 'NodeStatusDeleted')
			.filter((n) => includeBanned || n.status !== 'NodeStatusBanned')
			.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
	}

	// ---- archives -----------------------------------------------------------------------------

	function archiveKey(publisherId: string, nodeId: string, version: string): string {
		return `registry/${publisherId}/${nodeId}/${version}.zip`;
	}

	function latestUpload(key: string): Upload | undefined {
		const { uploads } = ctx.storage;
		for (let i = uploads.length - 1; i >= 0; i--) if (uploads[i].key === key) return uploads[i];
		return undefined;
	}

	function isZipType(contentType: string): boolean {
		return contentType.split(';')[0].trim().toLowerCase() === 'application/zip';
	}

	/**
	 * The storage host has no upload callback, so versions look for their archive whenever registry
	 * state is read (each request and the inspection hooks).
	 */
	function syncArchives(): void {
		for (const [versionId, key] of pendingArchives) {
			const version = versions.get(versionId);
			const upload = latestUpload(key);
			if (!version || !upload) continue;
			if (isZipType(upload.contentType)) {
				version.status = 'NodeVersionStatusActive';
				delete version.status_reason;
				pendingArchives.delete(versionId);
				ctx.log(`registry: archive of ${version.node_id}@${version.version} arrived; version active`);
			} else {
				version.status_reason = `Archive sent as "${upload.contentType}"; upload it again with Content-Type application/zip.`;
			}
		}
	}

	// ---- seed hooks ---------------------------------------------------------------------------

	function createPublisherRecord(fields: Partial<Publisher> & { id: string; name: string }, owner?: Account): Publisher {
		const publisher: Publisher = {
			...fields,
			createdAt: fields.createdAt ?? stamp(),
			members: fields.members ?? (owner ? [memberFor(owner)] : []),
			status: fields.status ?? 'PublisherStatusActive',
		};
		publishers.set(publisher.id, publisher);
		tokens.set(publisher.id, new Set([DEFAULT_PUBLISHING_TOKEN]));
		return publisher;
	}

	function seedPublisher(partial: Partial<Publisher> = {}): Publisher {
		const id = partial.id ?? `publisher-${++seedCounter}`;
		if (publishers.has(id)) throw new Error(`seedPublisher: publisher "${id}" already exists`);
		return createPublisherRecord({ ...partial, id, name: partial.name ?? `Publisher ${id}` }, ctx.accounts[0]);
	}

	function requireKnownPublisher(id: string): Publisher {
		const publisher = publishers.get(id);
		if (!publisher) throw new Error(`registry: unknown publisher "${id}"`);
		return publisher;
	}

	function createNodeRecord(id: string, publisher: Publisher, fields: Partial<RegistryNode>): RegistryNode {
		const node: RegistryNode = {
			name: id,
			tags: [],
			downloads: 0,
			rating: 0,
			repohost_stars: 0,
			search_ranking: 0,
			...fields,
			id,
			publisher,
			created_at: fields.created_at ?? stamp(),
			status: fields.status ?? 'NodeStatusActive',
		};
		nodes.set(id, node);
		return node;
	}

	function freshNodeId(prefix: string): string {
		let id: string;
		do id = `${prefix}-${++seedCounter}`;
		while (nodes.has(id));
		return id;
	}

	function seedNodes(publisherId: string, count: number, partial: Partial<RegistryNode> = {}): RegistryNode[] {
		const publisher = requireKnownPublisher(publisherId);
		const seeded: RegistryNode[] = [];
		for (let i = 0; i < count; i++) {
			const id = freshNodeId(`${publisherId}-node`);
			// created_at and id come from the seed so each node is distinct and ordered.
			const { id: _id, created_at: _created, ...rest } = partial;
			seeded.push(createNodeRecord(id, publisher, { repository: `${REPOHOST_ORIGIN}/${ctx.accounts[0].repohostUser}/${id}`, ...rest }));
		}
		return seeded;
	}

	function unclaimedPublisher(): Publisher {
		return (
			publishers.get(UNCLAIMED_PUBLISHER_ID) ?? createPublisherRecord({ id: UNCLAIMED_PUBLISHER_ID, name: 'Unclaimed nodes', members: [] })
		);
	}

	/** By default the repository belongs to the main account's repohost user, so it can claim the node. */
	function seedUnclaimedNode(partial: Partial<RegistryNode> = {}): RegistryNode {
		const id = partial.id ?? freshNodeId('unclaimed-node');
		if (nodes.has(id)) throw new Error(`seedUnclaimedNode: node "${id}" already exists`);
		const repository = partial.repository ?? `${REPOHOST_ORIGIN}/${ctx.accounts[0].repohostUser}/${id}`;
		return createNodeRecord(id, unclaimedPublisher(), { ...partial, repository });
	}

	function setNodeStatus(nodeId: string, status: NodeStatus): RegistryNode {
		const node = nodes.get(nodeId);
		if (!node) throw new Error(`setNodeStatus: unknown node "${nodeId}"`);
		node.status = status;
		return node;
	}

	// ---- routing ------------------------------------------------------------------------------

	function objectBody(req: SimRequest, what = 'The request body'): Record<string, unknown> {
		let body: unknown;
		try {
			const text = req.rawBody.toString('utf8');
			body = text === '' ? undefined : JSON.parse(text);
		} catch {
			throw new RegistryError(400, 'invalid_json', 'The request body is not valid JSON.');
		}
		if (!isPlainObject(body)) throw new RegistryError(400, 'invalid_body', `${what} must be a JSON object.`);
		return body;
	}

	function callerOf(req: SimRequest): Account {
		const token = bearerToken(req);
		if (!token) throw new RegistryError(401, 'unauthorized', 'Missing access token: send the header Authorization: Bearer <token>.');
		const caller = ctx.accountByToken(token);
		if (!caller) throw new RegistryError(401, 'unauthorized', 'The access token is invalid or expired.');
		return caller;
	}

	function route(method: string, path: string, handler: AuthedHandler): void {
		ctx.registryRouter.add(method, path, (req, res) => {
			try {
				const caller = callerOf(req);
				syncArchives();
				handler(req, res, caller);
			} catch (error) {
				if (!(error instanceof RegistryError)) throw error;
				sendError(res, error.status, 'registry', error.code, error.message);
			}
		});
	}

	/** Quotes a secret only when the area is told to behave like a leaky service. */
	function secretHint(token: string): string {
		return area.echoSecretsInErrors ? ` (token "${token}")` : '';
	}

	// ---- publishers ---------------------------------------------------------------------------

	route('POST', '/publishers', (req, res, caller) => {
		const body = objectBody(req);
		const id = body.id;
		if (id === undefined || id === null || id === '') throw new RegistryError(400, 'missing_field', 'id is required.');
		if (typeof id !== 'string' || !PUBLISHER_ID_PATTERN.test(id)) {
			throw new RegistryError(
				400,
				'invalid_field',
				'id must be lower case letters, digits and hyphens (at most 64), starting with a letter or digit.',
			);
		}
		const fields = pickFields(body, PUBLISHER_FIELDS, '');
		if (typeof fields.name !== 'string' || fields.name.trim() === '') throw new RegistryError(400, 'missing_field', 'name is required.');
		if (publishers.has(id) || id === UNCLAIMED_PUBLISHER_ID) {
			throw new RegistryError(409, 'publisher_id_taken', `The publisher id "${id}" is already taken; choose another.`);
		}
		const publisher = createPublisherRecord({ ...(fields as Partial<Publisher>), id, name: fields.name }, caller);
		ctx.log(`registry: publisher ${id} created by ${caller.id}`);
		sendJson(res, 201, publisher);
	});

	route('PUT', '/publishers/:publisherId', (req, res, caller) => {
		const publisher = requirePublisher(req.params.publisherId);
		requireMember(publisher, caller);
		const body = objectBody(req);
		refuseIdMismatch(body.id, publisher.id, 'publisher');
		const fields = pickFields(body, PUBLISHER_FIELDS, '');
		if (fields.name !== undefined && String(fields.name).trim() === '')
			throw new RegistryError(400, 'invalid_field', 'name must not be empty.');
		Object.assign(publisher, fields);
		sendJson(res, 200, publisher);
	});

	function refuseIdMismatch(given: unknown, expected: string, what: string): void {
		if (given === undefined || given === null || given === expected) return;
		throw new RegistryError(
			400,
			'id_mismatch',
			`The ${what} id in the body ("${String(given)}") differs from the one in the path ("${expected}").`,
		);
	}

	// ---- listings -----------------------------------------------------------------------------

	route('GET', '/publishers/:publisherId/nodes', (req, res) => {
		const publisher = requirePublisher(req.params.publisherId);
		const includeBanned = booleanParam(req.query.get('include_banned'), 'include_banned');
		sendJson(res, 200, nodesOf(publisher.id, includeBanned));
	});

	route('GET', '/publishers/:publisherId/nodes/v2', (req, res) => {
		const publisher = requirePublisher(req.params.publisherId);
		const page = positiveIntParam(req.query.get('page'), 'page', 1);
		const limit = positiveIntParam(req.query.get('limit'), 'limit', DEFAULT_PAGE_LIMIT);
		const all = nodesOf(publisher.id, booleanParam(req.query.get('include_banned'), 'include_banned'));
		const start = (page - 1) * limit;
		sendJson(res, 200, {
			limit,
			nodes: all.slice(start, start + limit),
			page,
			total: all.length,
			totalPages: Math.ceil(all.length / limit),
		});
	});

	// ---- nodes --------------------------------------------------------------------------------

	route('PUT', '/publishers/:publisherId/nodes/:nodeId', (req, res, caller) => {
		const publisher = requirePublisher(req.params.publisherId);
		requireMember(publisher, caller);
		const node = requireNodeOf(publisher, req.params.nodeId);
		refuseBanned(node);
		const body = objectBody(req);
		refuseIdMismatch(body.id, node.id, 'node');
		Object.assign(node, pickFields(body, NODE_FIELDS, ''));
		sendJson(res, 200, node);
	});

	// ---- versions -----------------------------------------------------------------------------

	interface PublishRequest {
		node: Record<string, unknown>;
		nodeVersion: Record<string, unknown>;
		token: string;
	}

	/** The three required parts, each refused by name when missing or of the wrong type. */
	function publishRequest(body: Record<string, unknown>): PublishRequest {
		for (const field of ['node', 'node_version', 'personal_access_token']) {
			if (body[field] === undefined || body[field] === null || body[field] === '') {
				throw new RegistryError(400, 'missing_field', `${field} is required.`);
			}
		}
		if (!isPlainObject(body.node)) throw new RegistryError(400, 'invalid_field', 'node must be an object.');
		if (!isPlainObject(body.node_version)) throw new RegistryError(400, 'invalid_field', 'node_version must be an object.');
		if (typeof body.personal_access_token !== 'string')
			throw new RegistryError(400, 'invalid_field', 'personal_access_token must be a string.');
		return { node: body.node, nodeVersion: body.node_version, token: body.personal_access_token };
	}

	/** An existing node must belong to this publisher and be publishable. */
	function existingNodeForPublish(publisher: Publisher, nodeId: string): RegistryNode | undefined {
		const node = nodes.get(nodeId);
		if (!node) return undefined;
		if (node.publisher.id !== publisher.id) {
			throw new RegistryError(403, 'forbidden', `Node "${nodeId}" belongs to another publisher.`);
		}
		if (node.status !== 'NodeStatusActive') {
			throw new RegistryError(
				403,
				'node_not_active',
				`Node "${nodeId}" is ${node.status === 'NodeStatusBanned' ? 'banned' : 'deleted'}; new versions are refused.`,
			);
		}
		return node;
	}

	function versionOf(nodeId: string, idOrVersion: string): NodeVersion | undefined {
		for (const v of versions.values()) {
			if (v.node_id === nodeId && (v.id === idOrVersion || v.version === idOrVersion)) return v;
		}
		return undefined;
	}

	route('POST', '/publishers/:publisherId/nodes/:nodeId/versions', (req, res) => {
		const publisher = requirePublisher(req.params.publisherId);
		const nodeId = req.params.nodeId;
		const input = publishRequest(objectBody(req));
		if (!tokens.get(publisher.id)?.has(input.token)) {
			throw new RegistryError(
				403,
				'invalid_personal_access_token',
				`The personal access token is not valid for publisher "${publisher.id}"${secretHint(input.token)}.`,
			);
		}
		refuseIdMismatch(input.node.id, nodeId, 'node');
		const version = input.nodeVersion.version;
		if (!isSemver(version)) {
			throw new RegistryError(400, 'invalid_version', 'node_version.version must be a semantic version such as 1.2.3 (no leading "v").');
		}
		const nodeFields = pickFields(input.node, NODE_FIELDS, 'node.');
		const versionFields = pickFields(input.nodeVersion, VERSION_FIELDS, 'node_version.');
		let node = existingNodeForPublish(publisher, nodeId);
		if (!node && !NODE_ID_PATTERN.test(nodeId)) {
			throw new RegistryError(
				400,
				'invalid_field',
				'The node id must be lower case letters, digits, ".", "_" and "-" (at most 100), starting with a letter or digit.',
			);
		}
		if (node && versionOf(nodeId, version)) {
			throw new RegistryError(
				409,
				'version_exists',
				`Version ${version} of node "${nodeId}" already exists; publish a new version number.`,
			);
		}
		if (node) Object.assign(node, nodeFields);
		else node = createNodeRecord(nodeId, publisher, nodeFields as Partial<RegistryNode>);
		const key = archiveKey(publisher.id, nodeId, version);
		const created: NodeVersion = {
			changelog: '',
			deprecated: false,
			...(versionFields as Partial<NodeVersion>),
			id: randomUUID(),
			node_id: nodeId,
			version,
			createdAt: stamp(),
			status: 'NodeVersionStatusPending',
			downloadUrl: ctx.storage.signedUrl(key, 'GET'),
		};
		versions.set(created.id, created);
		pendingArchives.set(created.id, key);
		node.latest_version = created;
		ctx.log(`registry: ${nodeId}@${version} published; waiting for its archive`);
		sendJson(res, 201, { node_version: created, signedUrl: ctx.storage.signedUrl(key, 'PUT') });
	});

	route('PUT', '/publishers/:publisherId/nodes/:nodeId/versions/:versionId', (req, res, caller) => {
		const publisher = requirePublisher(req.params.publisherId);
		requireMember(publisher, caller);
		const node = requireNodeOf(publisher, req.params.nodeId);
		const version = versionOf(node.id, req.params.versionId);
		if (!version) {
			throw new RegistryError(
				404,
				'version_not_found',
				`Node "${node.id}" has no version "${req.params.versionId}" (give the version id or the version number).`,
			);
		}
		Object.assign(version, pickFields(objectBody(req), VERSION_UPDATE_FIELDS, ''));
		sendJson(res, 200, version);
	});

	// ---- claiming -----------------------------------------------------------------------------

	function repohostAccount(token: string): Account | undefined {
		return ctx.accounts.find((a) => a.repohostToken === token);
	}

	route('POST', '/publishers/:publisherId/nodes/:nodeId/claim-my-node', (req, res, caller) => {
		const publisher = requirePublisher(req.params.publisherId);
		requireMember(publisher, caller);
		const node = nodes.get(req.params.nodeId);
		if (!node || node.status === 'NodeStatusDeleted')
			throw new RegistryError(404, 'node_not_found', `Node "${req.params.nodeId}" does not exist.`);
		const token = objectBody(req).REPOHOST_TOKEN;
		if (token === undefined || token === null || token === '') throw new RegistryError(400, 'missing_token', 'REPOHOST_TOKEN is required.');
		if (typeof token !== 'string') throw new RegistryError(400, 'invalid_field', 'REPOHOST_TOKEN must be a string.');
		const owner = repohostAccount(token);
		if (!owner)
			throw new RegistryError(
				401,
				'invalid_repohost_token',
				`The code-hosting token was not accepted by the code host${secretHint(token)}.`,
			);
		if (node.publisher.id !== UNCLAIMED_PUBLISHER_ID) {
			throw new RegistryError(
				409,
				'node_already_claimed',
				`Node "${node.id}" has already been claimed by publisher "${node.publisher.id}".`,
			);
		}
		if (repositoryOwner(node.repository, REPOHOST_ORIGIN) !== owner.repohostUser.toLowerCase()) {
			throw new RegistryError(
				403,
				'repository_not_owned',
				`The repository of node "${node.id}" (${node.repository ?? 'none'}) is not owned by the code-hosting user "${owner.repohostUser}".`,
			);
		}
		node.publisher = publisher;
		ctx.log(`registry: ${node.id} claimed by publisher ${publisher.id}`);
		sendJson(res, 200, { message: `Node "${node.id}" is now claimed by publisher "${publisher.id}".` });
	});

	return area;
}
