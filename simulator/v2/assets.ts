/**
 * v2: assets, the user-owned records over content-addressed blobs. Uploaded bytes are kept once per
 * account and hash (a second upload of the same bytes mints a new record over the same blob); job
 * outputs are records over the files the cloud engine stored. Bytes live in the shared signed
 * storage either way, so cloud and deployment answers can send a client to a signed URL.
 */
import { createHash, randomUUID } from 'node:crypto';

import type { SignedStorage, StoredObject } from '../shared/storage';

export interface AssetRecord {
	id: string;
	accountId: string;
	/** Where the bytes are in the signed storage. */
	key: string;
	/** `blake3:<hex>`, or null while "lazily computed" (synthetic streamed outputs never get one). */
	hash: string | null;
	size: number;
	contentType: string;
	filePath: string | null;
	tags: string[];
	createdAt: number;
	/** Retention deadline (ms), null for none. */
	expiresAt: number | null;
	jobId: string | null;
}

/** What a new record needs besides its owner and bytes. */
export interface MintRequest {
	filePath: string | null;
	tags: string[];
	/** Seconds, already checked against the contract's bounds; undefined for the default (no deadline). */
	expiresIn?: number;
}

/**
 * The hash a client sees. Node has no blake3 and the simulator takes no dependency for it, so the
 * hex is SHA-256 under the contract's `blake3:` label: clients must treat it as an opaque key.
 */
export function contentHash(bytes: Buffer): string {
	return `blake3:${createHash('sha256').update(bytes).digest('hex')}`;
}

const sizeOf = (object: StoredObject) => (Buffer.isBuffer(object.body) ? object.body.length : object.body.size);

export class AssetBook {
	readonly records = new Map<string, AssetRecord>();
	/** `accountId|hash` → storage key: the blobs each account may mint from. */
	private readonly blobs = new Map<string, string>();

	constructor(private readonly storage: SignedStorage) {}

	/** Stores uploaded bytes (once per account and hash) and mints a record; createdNew is false for a dedup hit. */
	upload(accountId: string, bytes: Buffer, contentType: string, mint: MintRequest): { record: AssetRecord; createdNew: boolean } {
		const hash = contentHash(bytes);
		const known = this.blobs.get(`${accountId}|${hash}`);
		const key = known ?? `${accountId}/v2-blobs/${hash.slice('blake3:'.length)}`;
		if (!known) {
			this.storage.put(key, contentType, bytes);
			this.blobs.set(`${accountId}|${hash}`, key);
		}
		return { record: this.mint(accountId, key, hash, contentType, mint), createdNew: !known };
	}

	/** Whether the account may mint from a blob of this hash. */
	hasBlob(accountId: string, hash: string): boolean {
		return this.blobs.has(`${accountId}|${hash}`);
	}

	/**
	 * A new record over a blob the account has; undefined when it has none of that hash. A live record
	 * of that hash (and file_path, when one is given) is returned as it is, as the proxy does
	 * (tests/test_endpoints.py, test_from_hash_and_by_hash).
	 */
	fromHash(accountId: string, hash: string, mint: MintRequest): { record: AssetRecord; existed: boolean } | undefined {
		const key = this.blobs.get(`${accountId}|${hash}`);
		const object = key ? this.storage.get(key) : undefined;
		if (!key || !object) return undefined;
		const same = [...this.records.values()].find(
			(r) => r.accountId === accountId && r.hash === hash && (mint.filePath === null || r.filePath === mint.filePath) && this.live(r),
		);
		if (same) return { record: same, existed: true };
		return { record: this.mint(accountId, key, hash, object.contentType, mint), existed: false };
	}

	/** A record over an output file the engine stored; undefined when the file is not there. */
	mintOutput(accountId: string, key: string, name: string, jobId: string): AssetRecord | undefined {
		const object = this.storage.get(key);
		if (!object) return undefined;
		const hash = Buffer.isBuffer(object.body) ? contentHash(object.body) : null;
		if (hash) this.blobs.set(`${accountId}|${hash}`, key);
		const record = this.mint(accountId, key, hash, object.contentType, { filePath: name, tags: ['output'] });
		record.jobId = jobId;
		record.size = sizeOf(object);
		return record;
	}

	/** The account's record, unless deleted or past its retention. */
	get(accountId: string, id: string): AssetRecord | undefined {
		const record = this.records.get(id);
		return record && record.accountId === accountId && this.live(record) ? record : undefined;
	}

	/** Deletes a record (the blob stays: other records may stand on it). */
	delete(id: string): void {
		this.records.delete(id);
	}

	bytes(record: AssetRecord): StoredObject | undefined {
		return this.storage.get(record.key);
	}

	reset(): void {
		this.records.clear();
		this.blobs.clear();
	}

	private live(record: AssetRecord): boolean {
		return record.expiresAt === null || record.expiresAt > Date.now();
	}

	private mint(accountId: string, key: string, hash: string | null, contentType: string, mint: MintRequest): AssetRecord {
		const object = this.storage.get(key);
		const now = Date.now();
		const record: AssetRecord = {
			id: randomUUID(),
			accountId,
			key,
			hash,
			size: object ? sizeOf(object) : 0,
			contentType,
			filePath: mint.filePath,
			tags: mint.tags,
			createdAt: now,
			expiresAt: mint.expiresIn === undefined ? null : now + mint.expiresIn * 1000,
			jobId: null,
		};
		this.records.set(record.id, record);
		return record;
	}
}
