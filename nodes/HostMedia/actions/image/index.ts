import type { INodeProperties } from 'n8n-workflow';

import * as enhanceSkin from './enhanceSkin.operation';
import * as getTaskStatus from './getTaskStatus.operation';
import * as relight from './relight.operation';
import * as styleTransfer from './styleTransfer.operation';
import * as upscale from './upscale.operation';

export const operations = { relight, upscale, styleTransfer, enhanceSkin, getTaskStatus };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['image'] } },
		options: [
			{
				name: 'Enhance Skin',
				value: 'enhanceSkin',
				description: 'Retouch skin in a portrait, in the creative (more artistic) mode',
				action: 'Enhance skin in an image',
			},
			{
				name: 'Get Task Status',
				value: 'getTaskStatus',
				description: 'Get the status and results of an image task',
				action: 'Get the status of an image task',
			},
			{
				name: 'Relight',
				value: 'relight',
				description: 'Change the lighting of an image from a prompt, a lightmap or a reference image',
				action: 'Relight an image',
			},
			{
				name: 'Style Transfer',
				value: 'styleTransfer',
				description: 'Apply the style of a reference image to an image',
				action: 'Transfer a style to an image',
			},
			{
				name: 'Upscale',
				value: 'upscale',
				description: 'Make an image 2 to 16 times larger with added detail',
				action: 'Upscale an image',
			},
		],
		default: 'upscale',
	},
	...relight.description,
	...upscale.description,
	...styleTransfer.description,
	...enhanceSkin.description,
	...getTaskStatus.description,
];
