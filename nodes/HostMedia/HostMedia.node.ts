import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import * as image from './actions/image';
import * as music from './actions/music';
import { router } from './actions/router';
import * as video from './actions/video';

export class HostMedia implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Host Media',
		name: 'hostMedia',
		icon: { light: 'file:../../icons/host.svg', dark: 'file:../../icons/host.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description: 'Relight, upscale, restyle and retouch images, make and extend videos and generate music with Host',
		defaults: { name: 'Host Media' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'hostApi', required: true }],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Image', value: 'image' },
					{ name: 'Music', value: 'music' },
					{ name: 'Video', value: 'video' },
				],
				default: 'image',
			},
			...image.description,
			...video.description,
			...music.description,
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
