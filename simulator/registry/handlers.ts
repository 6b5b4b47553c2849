/**
 * What each registry route does once its caller is known (area.ts routes to these). A handler
 * refuses by throwing RegistryError; the route wrapper turns it into `{error, message}`.
 */
import type { ServerResponse } from 'node:http';

import type { AreaContext } from '../shared/context';
import { type Account, type SimRequest, sendJson } from '../shared/core';
import {
	type NodeVersion,
	type Publisher,
	type RegistryNode,
	DEFAULT_PAGE_LIMIT,
	NODE_FIELDS,
	NODE_ID_PATTERN,
	PUBLISHER_FIELDS,
	PUBLISHER_ID_PATTERN,
	REPOHOST_ORIGIN,
	RegistryError,
	UNCLAIMED_PUBLISHER_ID,
	VERSION_FIELDS,
	VERSION_UPDATE_FIELDS,
	booleanParam,
	isPlainObject,
	isSemver,
	pickFields,
	positiveIntParam,
	repositoryOwner,
} from './model';
import type { RegistryStore } from './store';

export type RegistryHandler = (req: SimRequest, res: ServerResponse, caller: Account) => void;

interface PublishRequest {
	node: Record<string, unknown>;
	nodeVersion: Record<string, unknown>;
	token: string;
}

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

function refuseIdMismatch(given: unknown, expected: string, what: string): void {
	if (given === undefined || given === null || given === expected) return;
	throw new RegistryError(
		400,
		'id_mismatch',
		`The ${what} id in the body ("${String(given)}") differs from the one in the path ("${expected}").`,
	);
}

function refuseBanned(node: RegistryNode): void {
	if (node.status === 'NodeStatusBanned') throw new RegistryError(403, 'node_banned', `Node "${node.id}" is banned.`);
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

/** The handlers of the registry routes, over one store; `echoSecrets` says whether refusals quote a token. */
export function registryHandlers(ctx: AreaContext, store: RegistryStore, echoSecrets: () => boolean) {
	/** Quotes a secret only when the registry is told to behave like a leaky service. */
	const secretHint = (token: string): string => (echoSecrets() ? ` (token "${token}")` : '');

	/** An existing node must belong to this publisher and be publishable. */
	const existingNodeForPublish = (publisher: Publisher, nodeId: string): RegistryNode | undefined => {
		const node = store.nodes.get(nodeId);
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
	};

	const createPublisher: RegistryHandler = (req, res, caller) => {
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
		if (store.publishers.has(id) || id === UNCLAIMED_PUBLISHER_ID) {
			throw new RegistryError(409, 'publisher_id_taken', `The publisher id "${id}" is already taken; choose another.`);
		}
		const publisher = store.createPublisher({ ...(fields as Partial<Publisher>), id, name: fields.name }, caller);
		ctx.log(`registry: publisher ${id} created by ${caller.id}`);
		sendJson(res, 201, publisher);
	};

	const updatePublisher: RegistryHandler = (req, res, caller) => {
		const publisher = store.requirePublisher(req.params.publisherId);
		store.requireMember(publisher, caller);
		const body = objectBody(req);
		refuseIdMismatch(body.id, publisher.id, 'publisher');
		const fields = pickFields(body, PUBLISHER_FIELDS, '');
		if (fields.name !== undefined && String(fields.name).trim() === '')
			throw new RegistryError(400, 'invalid_field', 'name must not be empty.');
		Object.assign(publisher, fields);
		sendJson(res, 200, publisher);
	};

	const listNodes: RegistryHandler = (req, res) => {
		const publisher = store.requirePublisher(req.params.publisherId);
		const includeBanned = booleanParam(req.query.get('include_banned'), 'include_banned');
		sendJson(res, 200, store.nodesOf(publisher.id, includeBanned));
	};

	const listNodesPaged: RegistryHandler = (req, res) => {
		const publisher = store.requirePublisher(req.params.publisherId);
		const page = positiveIntParam(req.query.get('page'), 'page', 1);
		const limit = positiveIntParam(req.query.get('limit'), 'limit', DEFAULT_PAGE_LIMIT);
		const all = store.nodesOf(publisher.id, booleanParam(req.query.get('include_banned'), 'include_banned'));
		const start = (page - 1) * limit;
		sendJson(res, 200, {
			limit,
			nodes: all.slice(start, start + limit),
			page,
			total: all.length,
			totalPages: Math.ceil(all.length / limit),
		});
	};

	const updateNode: RegistryHandler = (req, res, caller) => {
		const publisher = store.requirePublisher(req.params.publisherId);
		store.requireMember(publisher, caller);
		const node = store.requireNodeOf(publisher, req.params.nodeId);
		refuseBanned(node);
		const body = objectBody(req);
		refuseIdMismatch(body.id, node.id, 'node');
		Object.assign(node, pickFields(body, NODE_FIELDS, ''));
		sendJson(res, 200, node);
	};

	const publishVersion: RegistryHandler = (req, res) => {
		const publisher = store.requirePublisher(req.params.publisherId);
		const nodeId = req.params.nodeId;
		const input = publishRequest(objectBody(req));
		if (!store.acceptsToken(publisher.id, input.token)) {
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
		if (node && store.versionOf(nodeId, version)) {
			throw new RegistryError(
				409,
				'version_exists',
				`Version ${version} of node "${nodeId}" already exists; publish a new version number.`,
			);
		}
		if (node) Object.assign(node, nodeFields);
		else node = store.createNode(nodeId, publisher, nodeFields as Partial<RegistryNode>);
		const { created, uploadUrl } = store.addVersion(publisher, node, version, versionFields as Partial<NodeVersion>);
		sendJson(res, 201, { node_version: created, signedUrl: uploadUrl });
	};

	const updateVersion: RegistryHandler = (req, res, caller) => {
		const publisher = store.requirePublisher(req.params.publisherId);
		store.requireMember(publisher, caller);
		const node = store.requireNodeOf(publisher, req.params.nodeId);
		const version = store.versionOf(node.id, req.params.versionId);
		if (!version) {
			throw new RegistryError(
				404,
				'version_not_found',
				`Node "${node.id}" has no version "${req.params.versionId}" (give the version id or the version number).`,
			);
		}
		Object.assign(version, pickFields(objectBody(req), VERSION_UPDATE_FIELDS, ''));
		sendJson(res, 200, version);
	};

	const claimNode: RegistryHandler = (req, res, caller) => {
		const publisher = store.requirePublisher(req.params.publisherId);
		store.requireMember(publisher, caller);
		const node = store.nodes.get(req.params.nodeId);
		if (!node || node.status === 'NodeStatusDeleted')
			throw new RegistryError(404, 'node_not_found', `Node "${req.params.nodeId}" does not exist.`);
		const token = objectBody(req).REPOHOST_TOKEN;
		if (token === undefined || token === null || token === '') throw new RegistryError(400, 'missing_token', 'REPOHOST_TOKEN is required.');
		if (typeof token !== 'string') throw new RegistryError(400, 'invalid_field', 'REPOHOST_TOKEN must be a string.');
		const owner = store.repohostAccount(token);
		if (!owner) {
			throw new RegistryError(
				401,
				'invalid_repohost_token',
				`The code-hosting token was not accepted by the code host${secretHint(token)}.`,
			);
		}
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
	};

	return { createPublisher, updatePublisher, listNodes, listNodesPaged, updateNode, publishVersion, updateVersion, claimNode };
}
