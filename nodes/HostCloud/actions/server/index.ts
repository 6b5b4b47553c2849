import type { INodeProperties } from 'n8n-workflow';

import { hideOperationsNotForTools } from '../../../shared/tools/tool-use';

import * as deleteHistory from './deleteHistory.operation';
import * as freeMemory from './freeMemory.operation';
import * as getHistory from './getHistory.operation';
import * as getSystemStats from './getSystemStats.operation';
import * as listModels from './listModels.operation';

/** A self-hosted server's own controls: each refuses a cloud credential before anything is sent. */
export const operations = { getSystemStats, freeMemory, listModels, getHistory, deleteHistory };

export const description: INodeProperties[] = [
	{
		displayName:
			'These operations control a ComfyUI-compatible server of your own: they need a Host Cloud API credential whose Server is "Self-Hosted", and refuse the cloud.',
		name: 'serverNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { resource: ['server'] } },
	},
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['server'] } },
		options: hideOperationsNotForTools(
			[
				{
					name: 'Delete History',
					value: 'deleteHistory',
					description: 'Remove jobs from the server’s history, and say which were removed',
					action: 'Delete history entries',
				},
				{
					name: 'Free Memory',
					value: 'freeMemory',
					description: 'Unload the models and free the GPU memory, for example between an image and a video job',
					action: 'Free the server memory',
				},
				{
					name: 'Get History',
					value: 'getHistory',
					description: 'Get the jobs that ended on the server, with their status and output files',
					action: 'Get the server history',
				},
				{
					name: 'List Models',
					value: 'listModels',
					description: 'List the model folders of the server, or the models in one folder',
					action: 'List models',
				},
				{
					name: 'System Stats',
					value: 'getSystemStats',
					description: 'Get the server’s versions, memory and GPUs',
					action: 'Get system stats',
				},
			],
			operations,
		),
		default: 'getSystemStats',
	},
	...getSystemStats.description,
	...freeMemory.description,
	...listModels.description,
	...getHistory.description,
	...deleteHistory.description,
];
