/**
 * The lists behind the publisher and node pickers. The spec has no "my publishers" listing, so
 * the publisher list offers the credential's Publisher ID; the node list reads the chosen
 * publisher's nodes through the v2 listing, a page per scroll, each page checked to be the one
 * asked and to list no node an earlier scroll read (helpers/picker-position.ts), and a search
 * reads at most SEARCH_MAX_PAGES pages.
 */
import type { IDataObject, ILoadOptionsFunctions, INodeListSearchItems, INodeListSearchResult } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { credentialText } from '../helpers/credential-fields';
import { locatorValue } from '../helpers/locators';
import { isLastPage, listingFailure, listingProblemMessage, pageProblem } from '../helpers/node-listing';
import { nextPickerToken, PICKER_MAX_NODES, pickerPosition } from '../helpers/picker-position';
import { listNodesPage } from '../transport/registry-api';

const LIST_AGAIN = 'Close the Node list and open it again, or choose By ID and enter the node ID.';

/** Nodes read per request while searching. */
const SEARCH_PAGE_SIZE = 100;

/** Pages one search reads at most while its filter matches nothing: it ends within this many requests. */
export const SEARCH_MAX_PAGES = 10;

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
	const start = pickerPosition(paginationToken);
	if (!start) throw new NodeOperationError(this.getNode(), 'The Node list lost its place', { description: LIST_AGAIN });
	if (start.full) throw pastBound(this, publisherId);
	const results: INodeListSearchItems[] = [];
	// While filtering, keep reading pages until something matches, so the list is not blank.
	for (let page = start.page; page < start.page + SEARCH_MAX_PAGES; page++) {
		const answer = await listNodesPage(this, publisherId, page, SEARCH_PAGE_SIZE);
		// Every node the earlier scrolls read is in `start.listed`: a page listing one of them again is a page already read.
		const problem = pageProblem(page, answer, start.listed, publisherId);
		// Results are returned at the end of the page they are on, so a wrong page has none before it.
		if (problem) throw listingFailure(this, listingProblemMessage(publisherId, page, problem));
		results.push(...answer.nodes.filter((node) => matches(filter, node.id, node.name)).map(nodeChoice));
		if (isLastPage(page, answer, SEARCH_PAGE_SIZE)) return { results };
		if (results.length > 0) return { results, paginationToken: nextPickerToken(page, start.listed) };
		if (start.listed.size >= PICKER_MAX_NODES) throw pastBound(this, publisherId);
	}
	throw new NodeOperationError(
		this.getNode(),
		`No node of publisher "${publisherId}" matching "${filter ?? ''}" among the ${SEARCH_MAX_PAGES * SEARCH_PAGE_SIZE} nodes read`,
		{ description: 'Type more of its name or ID, or choose By ID and enter the node ID.' },
	);
}

/** The list's end once its scrolls read PICKER_MAX_NODES nodes (which bounds the pagination token). */
function pastBound(context: ILoadOptionsFunctions, publisherId: string): NodeOperationError {
	return new NodeOperationError(
		context.getNode(),
		`The Node list shows the first ${PICKER_MAX_NODES} nodes of publisher "${publisherId}" only`,
		{
			description: 'Type part of the name or ID to search, or choose By ID and enter the node ID.',
		},
	);
}

/** A node as the picker shows it: its name and id, or its id alone. */
function nodeChoice(node: IDataObject): INodeListSearchItems {
	const id = String(node.id);
	return { name: node.name && node.name !== id ? `${String(node.name)} (${id})` : id, value: id };
}
