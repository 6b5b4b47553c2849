/**
 * Where the Node picker's next scroll goes on, carried in the pagination token the editor hands
 * back: the page to read and a fingerprint of every node the scrolls read so far, so that a page
 * listing any of them again is caught (the listing's order is not stated by the API, so an order
 * cannot stand in for them). A fingerprint is the first 6 bytes of the id's SHA-256: 8 characters
 * per node, and a chance of two ids sharing one too small to matter at this many nodes (below one
 * in a million). The token is bounded: past PICKER_MAX_NODES nodes read, the list ends in words.
 */
import { createHash } from 'crypto';

import type { ListedIds } from './node-listing';

/** Nodes the scrolls of one list read at most, which bounds the token (about 16,000 characters). */
export const PICKER_MAX_NODES = 2000;

const FINGERPRINT_BYTES = 6;
/** What the token holds once the list is past its bound: the next scroll ends it in words. */
const FULL = 'full';

/** The ids a list's scrolls read, kept as fingerprints. */
export class ListedFingerprints implements ListedIds {
	private readonly fingerprints: Set<string>;

	constructor(fingerprints: Iterable<string> = []) {
		this.fingerprints = new Set(fingerprints);
	}

	get size(): number {
		return this.fingerprints.size;
	}

	has(id: string): boolean {
		return this.fingerprints.has(fingerprint(id));
	}

	add(id: string): void {
		this.fingerprints.add(fingerprint(id));
	}

	/** The base64url text of every fingerprint, in the order read. */
	toText(): string {
		return Buffer.concat([...this.fingerprints].map((entry) => Buffer.from(entry, 'base64url'))).toString('base64url');
	}
}

function fingerprint(id: string): string {
	return createHash('sha256').update(id, 'utf8').digest().subarray(0, FINGERPRINT_BYTES).toString('base64url');
}

/** Where a list's scroll starts: the page to read and the nodes read before it; `full` once past the bound; undefined for a token this picker did not make. */
export type PickerPosition = { page: number; listed: ListedFingerprints; full?: false } | { full: true };

/** The position a token says (no token: page 1, nothing read). */
export function pickerPosition(token?: string): PickerPosition | undefined {
	if (!token) return { page: 1, listed: new ListedFingerprints() };
	if (token === FULL) return { full: true };
	const [, pageText, text] = /^([1-9]\d{0,8}):([A-Za-z0-9_-]*)$/.exec(token) ?? [];
	if (pageText === undefined || text === undefined) return undefined;
	const bytes = Buffer.from(text, 'base64url');
	// Tokens made here hold fewer than PICKER_MAX_NODES fingerprints (past it they are FULL).
	if (bytes.length % FINGERPRINT_BYTES !== 0 || bytes.length >= PICKER_MAX_NODES * FINGERPRINT_BYTES) return undefined;
	const fingerprints: string[] = [];
	for (let at = 0; at < bytes.length; at += FINGERPRINT_BYTES) {
		fingerprints.push(bytes.subarray(at, at + FINGERPRINT_BYTES).toString('base64url'));
	}
	return { page: Number(pageText), listed: new ListedFingerprints(fingerprints) };
}

/** The token of the scroll after `page`, given what was read until then. */
export function nextPickerToken(page: number, listed: ListedFingerprints): string {
	return listed.size >= PICKER_MAX_NODES ? FULL : `${page + 1}:${listed.toText()}`;
}
