import type { INodeProperties } from 'n8n-workflow';

import * as generate from './generate.operation';

export const operations = { generate };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['music'] } },
		options: [
			{
				name: 'Generate',
				value: 'generate',
				description: 'Generate music from a text prompt, returned as audio files',
				action: 'Generate music',
			},
		],
		default: 'generate',
	},
	...generate.description,
];
