import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';
import * as update from './update.operation';

export const operations = { create, update };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['publisher'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				description: 'Create a publisher, with you as its owner',
				action: 'Create a publisher',
			},
			{
				name: 'Update',
				value: 'update',
				description: 'Change the details of a publisher',
				action: 'Update a publisher',
			},
		],
		default: 'create',
	},
	...create.description,
	...update.description,
];
