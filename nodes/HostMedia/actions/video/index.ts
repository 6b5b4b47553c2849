import type { INodeProperties } from 'n8n-workflow';

import * as extend from './extend.operation';
import * as generateFromFrames from './generateFromFrames.operation';
import * as generateFromStartEndFrame from './generateFromStartEndFrame.operation';
import * as getTaskStatus from './getTaskStatus.operation';

export const operations = { generateFromFrames, generateFromStartEndFrame, extend, getTaskStatus };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['video'] } },
		options: [
			{
				name: 'Extend',
				value: 'extend',
				description: 'Make an earlier video longer by 1 to 7 seconds',
				action: 'Extend a video',
			},
			{
				name: 'Generate From Frames',
				value: 'generateFromFrames',
				description: 'Make a video that moves from a start image through 2 to 9 key frames',
				action: 'Generate a video from frames',
			},
			{
				name: 'Generate From Start/End Frame',
				value: 'generateFromStartEndFrame',
				description: 'Make a video from a start frame and a prompt',
				action: 'Generate a video from a start frame',
			},
			{
				name: 'Get Task Status',
				value: 'getTaskStatus',
				description: 'Get the state and the finished videos of a video task',
				action: 'Get the status of a video task',
			},
		],
		default: 'generateFromStartEndFrame',
	},
	...generateFromFrames.description,
	...generateFromStartEndFrame.description,
	...extend.description,
	...getTaskStatus.description,
];
