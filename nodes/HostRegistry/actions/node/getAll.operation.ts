import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { additionalFields, checkedField, checkedParameter, fieldProperty, type FieldDefinition } from '../../../shared/items/fields';
import { chosenPublisher } from '../../helpers/locators';
import { collectPages, listedNodesProblem, listingFailure } from '../../helpers/node-listing';
import { listNodes, listNodesPage } from '../../transport/registry-api';
import { toolDescriptionProperty } from '../../../shared/descriptions/tool-options';
import { publisherLocator } from '../common.descriptions';

/** The default of Limit and of Page Size. */
const DEFAULT_COUNT = 50;

/** A count of nodes: a whole number, 1 or more (the spec sets no upper bound). */
const nodeCount = (name: string, displayName: string, description: string): FieldDefinition => ({
	name,
	displayName,
	kind: 'integer',
	min: 1,
	max: Number.MAX_SAFE_INTEGER,
	default: DEFAULT_COUNT,
	description,
});

/** A blank from an expression is refused by name, like any other value the check does not allow. */
const BLANK_REFUSED = { keepBlank: true };

const LISTING: FieldDefinition = {
	name: 'listing',
	displayName: 'Listing',
	kind: 'options',
	options: [
		{
			name: 'Page by Page',
			value: 'paged',
			description: 'Reads the nodes a page at a time (the v2 listing); best for publishers with many nodes',
		},
		{
			name: 'Single List',
			value: 'single',
			description: 'Reads every node in one answer (the v1 listing); can include banned nodes',
		},
	],
	default: 'paged',
	description: 'How the registry is asked for the nodes',
};

const RETURN_ALL: FieldDefinition = {
	name: 'returnAll',
	displayName: 'Return All',
	kind: 'boolean',
	description: 'Whether to return all results or only up to a given limit',
};

const LIMIT = nodeCount('limit', 'Limit', 'Max number of results to return');

const INCLUDE_BANNED: FieldDefinition = {
	name: 'includeBanned',
	displayName: 'Include Banned Nodes',
	kind: 'boolean',
	description: 'Whether to list banned nodes too',
};

const PAGE_SIZE = nodeCount('pageSize', 'Page Size', 'How many nodes to ask for per request');

const TOOL_DESCRIPTION =
	"Lists the nodes a publisher has in the Host node registry, with each node's id, name, description, latest version, status and download count.";

const properties: INodeProperties[] = [
	toolDescriptionProperty(TOOL_DESCRIPTION),
	publisherLocator,
	{ ...fieldProperty(LISTING), noDataExpression: true },
	fieldProperty(RETURN_ALL),
	{ ...fieldProperty(LIMIT), displayOptions: { show: { returnAll: [false] } } },
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{ ...fieldProperty(INCLUDE_BANNED), displayOptions: { show: { '/listing': ['single'] } } },
			{ ...fieldProperty(PAGE_SIZE), displayOptions: { show: { '/listing': ['paged'] } } },
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['node'], operation: ['getAll'] } }, properties);

/** The publisher's nodes, one item each: v2 walked page by page, or v1 in one answer. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const publisherId = await chosenPublisher(this, itemIndex);
	const listing = checkedParameter(this, itemIndex, LISTING) as string;
	const returnAll = checkedParameter(this, itemIndex, RETURN_ALL, BLANK_REFUSED) as boolean;
	const wanted = returnAll ? Infinity : (checkedParameter(this, itemIndex, LIMIT, BLANK_REFUSED) as number);
	const options = additionalFields(this, itemIndex, 'options');

	let nodes: IDataObject[];
	if (listing === 'single') {
		const includeBanned =
			(checkedField(this, itemIndex, INCLUDE_BANNED, options.includeBanned, BLANK_REFUSED) as boolean | undefined) ?? false;
		nodes = await singleListing(this, publisherId, includeBanned, itemIndex);
	} else {
		const pageSize = (checkedField(this, itemIndex, PAGE_SIZE, options.pageSize, BLANK_REFUSED) as number | undefined) ?? DEFAULT_COUNT;
		// No point asking for more per page than the limit wants.
		const size = Math.min(pageSize, wanted);
		const fetchPage = (page: number, limit: number) => listNodesPage(this, publisherId, page, limit, itemIndex);
		const walk = await collectPages(fetchPage, publisherId, size, wanted);
		if (walk.problem) throw listingFailure(this, walk.problem, itemIndex);
		nodes = walk.nodes;
	}
	return nodes.slice(0, wanted).map((node) => ({ json: node, pairedItem: { item: itemIndex } }));
}

/** The v1 listing, checked to list each node once, of this publisher, and banned ones only when asked. */
async function singleListing(
	context: IExecuteFunctions,
	publisherId: string,
	includeBanned: boolean,
	itemIndex: number,
): Promise<IDataObject[]> {
	const nodes = await listNodes(context, publisherId, includeBanned, itemIndex);
	const problem = listedNodesProblem(nodes, new Set(), publisherId);
	if (problem) {
		throw listingFailure(
			context,
			`The registry's list of the nodes of publisher "${publisherId}" is not the one asked: it listed ${problem}`,
			itemIndex,
		);
	}
	// A registry (or a proxy) that drops include_banned=false still lists no banned node here.
	return includeBanned ? nodes : nodes.filter((node) => node.status !== 'NodeStatusBanned');
}
