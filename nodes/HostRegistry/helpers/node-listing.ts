/**
 * Walking the paginated v2 listing of a publisher's nodes: page by page until totalPages or the
 * wanted count. Get Many uses it; the page itself is read by transport/registry-api.ts.
 */
import type { IDataObject } from 'n8n-workflow';

import type { NodePage } from '../transport/registry-api';

/** More pages than any real publisher has: ends the walk should a server keep answering full pages. */
const MAX_PAGES = 10000;

/**
 * Walks pages 1, 2, ... with `pageSize` per page until `wanted` nodes are collected (then cuts the
 * last page), the server's totalPages is reached, or a page comes back short or empty.
 */
export async function collectPages(
	fetchPage: (page: number, pageSize: number) => Promise<NodePage>,
	pageSize: number,
	wanted = Infinity,
): Promise<IDataObject[]> {
	const collected: IDataObject[] = [];
	for (let page = 1; page <= MAX_PAGES && collected.length < wanted; page++) {
		const answer = await fetchPage(page, pageSize);
		collected.push(...answer.nodes.slice(0, wanted - collected.length));
		const totalPages = typeof answer.totalPages === 'number' ? answer.totalPages : undefined;
		if (answer.nodes.length === 0) break;
		if (totalPages !== undefined ? page >= totalPages : answer.nodes.length < pageSize) break;
	}
	return collected;
}
