import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { booleanValue, integerInRange } from '../../../shared/validation';
import { chosenPublisher } from '../../helpers/identifiers';
import { publisherLocator } from '../../helpers/locators';
import { collectPages } from '../../helpers/node-listing';
import { listNodes, listNodesPage } from '../../transport/registry-api';

const properties: INodeProperties[] = [
	publisherLocator,
	{
		displayName: 'Listing',
		name: 'listing',
		type: 'options',
		noDataExpression: true,
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
	},
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 50,
		description: 'Max number of results to return',
		displayOptions: { show: { returnAll: [false] } },
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Include Banned Nodes',
				name: 'includeBanned',
				type: 'boolean',
				default: false,
				description: 'Whether to list banned nodes too',
				displayOptions: { show: { '/listing': ['single'] } },
			},
			{
				displayName: 'Page Size',
				name: 'pageSize',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 50,
				description: 'How many nodes to ask for per request',
				displayOptions: { show: { '/listing': ['paged'] } },
			},
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['node'], operation: ['getAll'] } }, properties);

/** The publisher's nodes, one item each: v2 walked page by page, or v1 in one answer. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const publisherId = await chosenPublisher(this, itemIndex);
	const listing = this.getNodeParameter('listing', itemIndex, 'paged') as string;
	const returnAll = booleanValue(this, itemIndex, 'Return All', this.getNodeParameter('returnAll', itemIndex, false));
	const wanted = returnAll
		? Infinity
		: integerInRange(this, itemIndex, 'Limit', this.getNodeParameter('limit', itemIndex, 50), 1, Number.MAX_SAFE_INTEGER);
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;

	let nodes: IDataObject[];
	if (listing === 'single') {
		const includeBanned = booleanValue(this, itemIndex, 'Include Banned Nodes', options.includeBanned ?? false);
		nodes = (await listNodes(this, publisherId, includeBanned, itemIndex)).slice(0, wanted);
	} else {
		const pageSize = integerInRange(this, itemIndex, 'Page Size', options.pageSize ?? 50, 1, Number.MAX_SAFE_INTEGER);
		// No point asking for more per page than the limit wants.
		const size = Math.min(pageSize, wanted);
		nodes = await collectPages((page, limit) => listNodesPage(this, publisherId, page, limit, itemIndex), size, wanted);
	}
	return nodes.map((node) => ({ json: node, pairedItem: { item: itemIndex } }));
}
