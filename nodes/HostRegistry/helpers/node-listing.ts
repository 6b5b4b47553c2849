/**
 * Reading a publisher's nodes: the paginated v2 listing (page by page until totalPages or the
 * wanted count) and the single-answer v1 listing. Get Many and the node picker both use it.
 */
import type { IDataObject, IExecuteFunctions, ILoadOptionsFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { hostRequest } from '../../shared/transport';
import { registryPath } from './identifiers';

/** The v2 answer: limit, nodes, page, total, totalPages. */
export interface NodePage {
	limit?: number;
	nodes: IDataObject[];
	page?: number;
	total?: number;
	totalPages?: number;
}

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

type RegistryContext = IExecuteFunctions | ILoadOptionsFunctions;

function notAListing(context: RegistryContext, what: string, itemIndex?: number): NodeApiError {
	const message = `The registry answered the ${what} in an unexpected shape (no list of nodes)`;
	return new NodeApiError(context.getNode(), { message }, { message, itemIndex });
}

/** One page of GET /publishers/{publisherId}/nodes/v2. */
export async function fetchNodePage(
	context: RegistryContext,
	publisherId: string,
	page: number,
	pageSize: number,
	itemIndex?: number,
): Promise<NodePage> {
	const answer = await hostRequest<NodePage>(context, 'hostApi', {
		method: 'GET',
		path: `${registryPath('publishers', publisherId, 'nodes')}/v2`,
		qs: { page, limit: pageSize },
		retry: true,
		itemIndex,
		action: `listing the nodes of publisher "${publisherId}" (page ${page})`,
	});
	if (!answer || !Array.isArray(answer.nodes)) throw notAListing(context, 'node listing', itemIndex);
	return answer;
}

/** GET /publishers/{publisherId}/nodes: every node in one answer. */
export async function fetchAllNodesV1(
	context: RegistryContext,
	publisherId: string,
	includeBanned: boolean,
	itemIndex?: number,
): Promise<IDataObject[]> {
	const answer = await hostRequest<unknown>(context, 'hostApi', {
		method: 'GET',
		path: registryPath('publishers', publisherId, 'nodes'),
		qs: { include_banned: includeBanned },
		retry: true,
		itemIndex,
		action: `listing the nodes of publisher "${publisherId}"`,
	});
	if (!Array.isArray(answer)) throw notAListing(context, 'node listing', itemIndex);
	return answer as IDataObject[];
}
