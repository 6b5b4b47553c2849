import type { INodeProperties } from 'n8n-workflow';

import { hideOperationsNotForTools } from '../../../shared/tools/tool-use';

import * as downloadOutput from './downloadOutput.operation';
import * as getOutputUrl from './getOutputUrl.operation';
import * as uploadImage from './uploadImage.operation';
import * as uploadMask from './uploadMask.operation';

export const operations = { uploadImage, uploadMask, getOutputUrl, downloadOutput };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['file'] } },
		options: hideOperationsNotForTools(
			[
				{
					name: 'Download Output',
					value: 'downloadOutput',
					description: 'Download an output file into binary data',
					action: 'Download an output file',
				},
				{
					name: 'Get Output URL',
					value: 'getOutputUrl',
					description: 'Get a temporary download URL of an output file',
					action: 'Get the URL of an output file',
				},
				{
					name: 'Upload Image',
					value: 'uploadImage',
					description: 'Upload an image from binary data, for a Load Image node',
					action: 'Upload an image',
				},
				{
					name: 'Upload Mask',
					value: 'uploadMask',
					description: 'Upload a mask for an image uploaded before',
					action: 'Upload a mask',
				},
			],
			operations,
		),
		default: 'uploadImage',
	},
	...uploadImage.description,
	...uploadMask.description,
	...getOutputUrl.description,
	...downloadOutput.description,
];
