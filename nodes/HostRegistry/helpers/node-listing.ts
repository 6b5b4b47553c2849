/**
 * Walking the listings of a publisher's nodes, and checking that each answer is the one asked: the
 * v2 page by its number (when it gives one), no node listed twice, no node of another publisher.
 * Get Many and the node picker use it; the pages themselves are read by transport/registry-api.ts.
 */
import type { IDataObject, IExecuteFunctions, ILoadOptionsFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { isRecord } from '../../shared/items/validation';
import type { NodePage } from '../transport/registry-api';

/** More pages than any real publisher has: ends the walk should a server keep answering full pages. */
export const MAX_PAGES = 10000;

/** The nodes of a walk, or why it stopped before the end (the nodes read until then are not to be used). */
export interface Listing {
	nodes: IDataObject[];
	problem?: string;
}

/** The ids a walk has read: a Set of them, or the picker's fingerprints of them (picker-position.ts). */
export interface ListedIds {
	has(id: string): boolean;
	add(id: string): void;
}

/**
 * What is wrong with `nodes` as part of publisher `publisherId`'s listing, or undefined: a node
 * already in `listed` (the ids seen so far, to which these are added) or one of another publisher.
 */
export function listedNodesProblem(nodes: IDataObject[], listed: ListedIds, publisherId: string): string | undefined {
	for (const node of nodes) {
		const id = String(node.id);
		if (listed.has(id)) return `node "${id}" again, which it had already listed`;
		listed.add(id);
		const owner = isRecord(node.publisher) ? node.publisher.id : undefined;
		if (typeof owner === 'string' && owner !== publisherId) return `node "${id}" of another publisher ("${owner}")`;
	}
	return undefined;
}

/** What is wrong with `answer` as page `asked` of the v2 listing (its nodes are added to `listed`), or undefined. */
export function pageProblem(asked: number, answer: NodePage, listed: ListedIds, publisherId: string): string | undefined {
	// A registry, proxy or cache that ignores the page asked answers another one: its number says so.
	if (typeof answer.page === 'number' && answer.page !== asked) return `page ${answer.page} instead`;
	return listedNodesProblem(answer.nodes, listed, publisherId);
}

/** Whether `answer` (page `page`, asked `pageSize` at a time) is the listing's last page. */
export function isLastPage(page: number, answer: NodePage, pageSize: number): boolean {
	if (answer.nodes.length === 0) return true;
	return typeof answer.totalPages === 'number' ? page >= answer.totalPages : answer.nodes.length < pageSize;
}

/** The words of a walk that stopped on a wrong answer: the page asked and what came instead. */
export function listingProblemMessage(publisherId: string, page: number, problem: string): string {
	return `The registry did not answer the page of nodes asked: asked for page ${page} of the nodes of publisher "${publisherId}", it answered ${problem}`;
}

/**
 * Walks pages 1, 2, ... with `pageSize` per page until `wanted` nodes are collected (then cuts the
 * last page), the server's totalPages is reached, or a page comes back short or empty. Stops with
 * a problem on a page that is not the one asked, and when pages keep coming past MAX_PAGES.
 */
export async function collectPages(
	fetchPage: (page: number, pageSize: number) => Promise<NodePage>,
	publisherId: string,
	pageSize: number,
	wanted = Infinity,
): Promise<Listing> {
	const collected: IDataObject[] = [];
	const listed = new Set<string>();
	for (let page = 1; page <= MAX_PAGES; page++) {
		const answer = await fetchPage(page, pageSize);
		const problem = pageProblem(page, answer, listed, publisherId);
		if (problem) return { nodes: [], problem: listingProblemMessage(publisherId, page, problem) };
		collected.push(...answer.nodes.slice(0, wanted - collected.length));
		if (collected.length >= wanted || isLastPage(page, answer, pageSize)) return { nodes: collected };
	}
	return {
		nodes: [],
		problem: `The registry still announced more nodes of publisher "${publisherId}" after ${MAX_PAGES} pages, more than this node reads`,
	};
}

/** The error of a listing that is not the one asked: nothing of it is used. */
export function listingFailure(context: IExecuteFunctions | ILoadOptionsFunctions, message: string, itemIndex?: number): NodeApiError {
	const description =
		'Nothing was taken from this listing, rather than nodes listed twice or from another page. The registry, or a proxy or cache in front of it, may not serve the listing asked: try again later.';
	return new NodeApiError(context.getNode(), { message }, { message, description, itemIndex });
}
