import type { INodeProperties } from 'n8n-workflow';

import { hideOperationsNotForTools } from '../../../shared/tools/tool-use';

import * as publish from './publish.operation';
import * as update from './update.operation';

export const operations = { publish, update };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['nodeVersion'] } },
		options: hideOperationsNotForTools(
			[
				{
					name: 'Publish',
					value: 'publish',
					description: 'Create a new version of a node and upload its archive',
					action: 'Publish a node version',
				},
				{
					name: 'Update',
					value: 'update',
					description: 'Change the changelog or the deprecation flag of a version',
					action: 'Update a node version',
				},
			],
			operations,
		),
		default: 'publish',
	},
	...publish.description,
	...update.description,
];
