import type { INodeProperties } from 'n8n-workflow';

import * as getNodeDefinitions from './getNodeDefinitions.operation';

export const operations = { getNodeDefinitions };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['system'] } },
		options: [
			{
				name: 'Get Node Definitions',
				value: 'getNodeDefinitions',
				description: 'List the node classes the cloud can run, with their inputs and outputs',
				action: 'Get node definitions',
			},
		],
		default: 'getNodeDefinitions',
	},
	...getNodeDefinitions.description,
];
