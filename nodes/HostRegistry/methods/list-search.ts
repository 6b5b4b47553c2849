/**
 * The lists behind the publisher and node pickers. The spec has no "my publishers" listing, so
 * the publisher list offers the credential's Publisher ID; the node list reads the chosen
 * publisher's nodes through the v2 listing, a page per scroll.
 */
import type { ILoadOptionsFunctions, INodeListSearchItems, INodeListSearchResult } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { credentialText } from '../helpers/credential-fields';
import { locatorValue } from '../helpers/locators';
import { listNodesPage } from '../transport/registry-api';

/** Nodes read per request while searching. */
const SEARCH_PAGE_SIZE = 100;

function matches(filter: string | undefined, ...texts: unknown[]): boolean {
	if (!filter) return true;
	const wanted = filter.toLowerCase();
	return texts.some((text) => typeof text === 'string' && text.toLowerCase().includes(wanted));
}

export async function searchPublishers(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const id = await credentialText(this, 'publisherId');
	const results: INodeListSearchItems[] = id && matches(filter, id) ? [{ name: `${id} (from the credential)`, value: id }] : [];
	return { results };
}

export async function searchNodes(this: ILoadOptionsFunctions, filter?: string, paginationToken?: string): Promise<INodeListSearchResult> {
	const publisherId = locatorValue(this.getCurrentNodeParameter('publisher')) || (await credentialText(this, 'publisherId'));
	if (!publisherId) {
		throw new NodeOperationError(this.getNode(), 'Choose a Publisher first, or fill in Publisher ID in the Host API credential');
	}
	let page = Math.max(1, Number(paginationToken) || 1);
	const results: INodeListSearchItems[] = [];
	// While filtering, keep reading pages until something matches, so the list is not blank.
	for (;;) {
		const answer = await listNodesPage(this, publisherId, page, SEARCH_PAGE_SIZE);
		for (const node of answer.nodes) {
			if (!matches(filter, node.id, node.name)) continue;
			const id = String(node.id);
			results.push({ name: node.name && node.name !== id ? `${String(node.name)} (${id})` : id, value: id });
		}
		const lastPage = answer.nodes.length === 0 || page >= (answer.totalPages ?? page);
		if (lastPage) return { results };
		page++;
		if (results.length > 0) return { results, paginationToken: String(page) };
	}
}
