import type { INodeProperties } from 'n8n-workflow';

import * as claim from './claim.operation';
import * as getAll from './getAll.operation';
import * as update from './update.operation';

export const operations = { claim, getAll, update };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['node'] } },
		options: [
			{
				name: 'Claim',
				value: 'claim',
				description: 'Move an unclaimed node whose repository you own to your publisher',
				action: 'Claim a node',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'List the nodes of a publisher',
				action: 'Get many nodes',
			},
			{
				name: 'Update',
				value: 'update',
				description: 'Change the details of a node',
				action: 'Update a node',
			},
		],
		default: 'getAll',
	},
	...claim.description,
	...getAll.description,
	...update.description,
];
