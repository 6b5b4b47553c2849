import type { INodeProperties } from 'n8n-workflow';

import { hideOperationsNotForTools } from '../../../shared/tools/tool-use';

import * as generate from './generate.operation';

export const operations = { generate };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['music'] } },
		options: hideOperationsNotForTools(
			[
				{
					name: 'Generate',
					value: 'generate',
					description: 'Generate music from a text prompt, returned as audio files',
					action: 'Generate music',
				},
			],
			operations,
		),
		default: 'generate',
	},
	...generate.description,
];
