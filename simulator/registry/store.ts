/**
 * Registry state: publishers, nodes, versions, publishing tokens and the archives still awaited.
 * Holds the lookups handlers refuse through (they throw RegistryError) and the seed hooks tests
 * call (they throw a plain Error: a wrong seed is a bug in the test, not a refusal).
 */
import { randomUUID } from 'node:crypto';

import type { AreaContext } from '../shared/context';
import type { Account } from '../shared/core';
import {
	type ArchiveUpload,
	type NodeStatus,
	type NodeVersion,
	type Publisher,
	type PublisherMember,
	type RegistryNode,
	DEFAULT_PUBLISHING_TOKEN,
	REPOHOST_ORIGIN,
	RegistryError,
	UNCLAIMED_PUBLISHER_ID,
} from './model';
import type { Upload } from '../shared/storage';

function archiveKey(publisherId: string, nodeId: string, version: string): string {
	return `registry/${publisherId}/${nodeId}/${version}.zip`;
}

function isZipType(contentType: string): boolean {
	return contentType.split(';')[0].trim().toLowerCase() === 'application/zip';
}

function memberFor(account: Account, role = 'owner'): PublisherMember {
	return { id: randomUUID(), role, user: { id: account.id, name: account.name, email: account.email } };
}

export class RegistryStore {
	readonly publishers = new Map<string, Publisher>();
	readonly nodes = new Map<string, RegistryNode>();
	readonly versions = new Map<string, NodeVersion>();
	private readonly tokens = new Map<string, Set<string>>();
	/** Archive key of every version still waiting for its upload. */
	private readonly pendingArchives = new Map<string, string>();
	private lastStamp = 0;
	private seedCounter = 0;

	constructor(private readonly ctx: AreaContext) {}

	reset(): void {
		this.publishers.clear();
		this.nodes.clear();
		this.versions.clear();
		this.tokens.clear();
		this.pendingArchives.clear();
		this.lastStamp = 0;
		this.seedCounter = 0;
	}

	// ---- time, lookups ------------------------------------------------------------------------

	/** ISO time that strictly increases, so "created_at then id" ordering follows creation order. */
	private stamp(): string {
		this.lastStamp = Math.max(Date.now(), this.lastStamp + 1);
		return new Date(this.lastStamp).toISOString();
	}

	requirePublisher(id: string): Publisher {
		const publisher = this.publishers.get(id);
		if (!publisher) throw new RegistryError(404, 'publisher_not_found', `Publisher "${id}" does not exist.`);
		return publisher;
	}

	requireMember(publisher: Publisher, caller: Account): void {
		if (!publisher.members.some((m) => m.user.id === caller.id)) {
			throw new RegistryError(403, 'forbidden', `You are not a member of publisher "${publisher.id}".`);
		}
	}

	/** The node, when it exists, is not deleted and belongs to the publisher. */
	requireNodeOf(publisher: Publisher, nodeId: string): RegistryNode {
		const node = this.nodes.get(nodeId);
		if (!node || node.status === 'NodeStatusDeleted' || node.publisher.id !== publisher.id) {
			throw new RegistryError(404, 'node_not_found', `Node "${nodeId}" does not exist under publisher "${publisher.id}".`);
		}
		return node;
	}

	/** Nodes of a publisher in a stable order: created_at, then id. Deleted nodes never show. */
	nodesOf(publisherId: string, includeBanned: boolean): RegistryNode[] {
		return [...this.nodes.values()]
			.filter((n) => n.publisher.id === publisherId && n.status !== 'NodeStatusDeleted')
			.filter((n) => includeBanned || n.status !== 'NodeStatusBanned')
			.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
	}

	/** A version of the node by its id or its version number. */
	versionOf(nodeId: string, idOrVersion: string): NodeVersion | undefined {
		for (const v of this.versions.values()) {
			if (v.node_id === nodeId && (v.id === idOrVersion || v.version === idOrVersion)) return v;
		}
		return undefined;
	}

	acceptsToken(publisherId: string, token: string): boolean {
		return this.tokens.get(publisherId)?.has(token) === true;
	}

	/** The account holding this code-hosting token, if any. */
	repohostAccount(token: string): Account | undefined {
		return this.ctx.accounts.find((a) => a.repohostToken === token);
	}

	// ---- records ------------------------------------------------------------------------------

	createPublisher(fields: Partial<Publisher> & { id: string; name: string }, owner?: Account): Publisher {
		const publisher: Publisher = {
			...fields,
			createdAt: fields.createdAt ?? this.stamp(),
			members: fields.members ?? (owner ? [memberFor(owner)] : []),
			status: fields.status ?? 'PublisherStatusActive',
		};
		this.publishers.set(publisher.id, publisher);
		this.tokens.set(publisher.id, new Set([DEFAULT_PUBLISHING_TOKEN]));
		return publisher;
	}

	createNode(id: string, publisher: Publisher, fields: Partial<RegistryNode>): RegistryNode {
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
			created_at: fields.created_at ?? this.stamp(),
			status: fields.status ?? 'NodeStatusActive',
		};
		this.nodes.set(id, node);
		return node;
	}

	/**
	 * A pending version, made the node's latest; it turns active once its archive arrives through
	 * the signed PUT URL returned with it.
	 */
	addVersion(
		publisher: Publisher,
		node: RegistryNode,
		version: string,
		fields: Partial<NodeVersion>,
	): { created: NodeVersion; uploadUrl: string } {
		const key = archiveKey(publisher.id, node.id, version);
		const created: NodeVersion = {
			changelog: '',
			deprecated: false,
			...fields,
			id: randomUUID(),
			node_id: node.id,
			version,
			createdAt: this.stamp(),
			status: 'NodeVersionStatusPending',
			downloadUrl: this.ctx.storage.signedUrl(key, 'GET'),
		};
		this.versions.set(created.id, created);
		this.pendingArchives.set(created.id, key);
		node.latest_version = created;
		this.ctx.log(`registry: ${node.id}@${version} published; waiting for its archive`);
		return { created, uploadUrl: this.ctx.storage.signedUrl(key, 'PUT') };
	}

	// ---- archives -----------------------------------------------------------------------------

	private latestUpload(key: string): Upload | undefined {
		const { uploads } = this.ctx.storage;
		for (let i = uploads.length - 1; i >= 0; i--) if (uploads[i].key === key) return uploads[i];
		return undefined;
	}

	/** The newest archive uploaded for that version through its signed URL, if any. */
	archiveFor(publisherId: string, nodeId: string, version: string): ArchiveUpload | undefined {
		this.syncArchives();
		const upload = this.latestUpload(archiveKey(publisherId, nodeId, version));
		return upload && { ...upload, isZip: isZipType(upload.contentType) };
	}

	/**
	 * The storage host has no upload callback, so versions look for their archive whenever registry
	 * state is read (each request and the inspection hooks).
	 */
	syncArchives(): void {
		for (const [versionId, key] of this.pendingArchives) {
			const version = this.versions.get(versionId);
			const upload = this.latestUpload(key);
			if (!version || !upload) continue;
			if (isZipType(upload.contentType)) {
				version.status = 'NodeVersionStatusActive';
				delete version.status_reason;
				this.pendingArchives.delete(versionId);
				this.ctx.log(`registry: archive of ${version.node_id}@${version.version} arrived; version active`);
			} else {
				version.status_reason = `Archive sent as "${upload.contentType}"; upload it again with Content-Type application/zip.`;
			}
		}
	}

	// ---- seed hooks ---------------------------------------------------------------------------

	seedPublisher(partial: Partial<Publisher> = {}): Publisher {
		const id = partial.id ?? `publisher-${++this.seedCounter}`;
		if (this.publishers.has(id)) throw new Error(`seedPublisher: publisher "${id}" already exists`);
		return this.createPublisher({ ...partial, id, name: partial.name ?? `Publisher ${id}` }, this.ctx.accounts[0]);
	}

	seedNodes(publisherId: string, count: number, partial: Partial<RegistryNode> = {}): RegistryNode[] {
		const publisher = this.requireKnownPublisher(publisherId);
		const seeded: RegistryNode[] = [];
		for (let i = 0; i < count; i++) {
			const id = this.freshNodeId(`${publisherId}-node`);
			// created_at and id come from the seed so each node is distinct and ordered.
			const { id: _id, created_at: _created, ...rest } = partial;
			seeded.push(this.createNode(id, publisher, { repository: this.repositoryOf(id), ...rest }));
		}
		return seeded;
	}

	/** By default the repository belongs to the main account's repohost user, so it can claim the node. */
	seedUnclaimedNode(partial: Partial<RegistryNode> = {}): RegistryNode {
		const id = partial.id ?? this.freshNodeId('unclaimed-node');
		if (this.nodes.has(id)) throw new Error(`seedUnclaimedNode: node "${id}" already exists`);
		const repository = partial.repository ?? this.repositoryOf(id);
		return this.createNode(id, this.unclaimedPublisher(), { ...partial, repository });
	}

	setNodeStatus(nodeId: string, status: NodeStatus): RegistryNode {
		const node = this.nodes.get(nodeId);
		if (!node) throw new Error(`setNodeStatus: unknown node "${nodeId}"`);
		node.status = status;
		return node;
	}

	addPersonalAccessToken(publisherId: string, token: string): void {
		this.requireKnownPublisher(publisherId);
		this.tokens.get(publisherId)?.add(token);
	}

	private requireKnownPublisher(id: string): Publisher {
		const publisher = this.publishers.get(id);
		if (!publisher) throw new Error(`registry: unknown publisher "${id}"`);
		return publisher;
	}

	private freshNodeId(prefix: string): string {
		let id: string;
		do id = `${prefix}-${++this.seedCounter}`;
		while (this.nodes.has(id));
		return id;
	}

	/** A repository of the main account's repohost user. */
	private repositoryOf(nodeId: string): string {
		return `${REPOHOST_ORIGIN}/${this.ctx.accounts[0].repohostUser}/${nodeId}`;
	}

	private unclaimedPublisher(): Publisher {
		return (
			this.publishers.get(UNCLAIMED_PUBLISHER_ID) ??
			this.createPublisher({ id: UNCLAIMED_PUBLISHER_ID, name: 'Unclaimed nodes', members: [] })
		);
	}
}
