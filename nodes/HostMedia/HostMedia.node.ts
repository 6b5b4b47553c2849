import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { resumeOnNotification } from './helpers/tasks/webhook-wait';
import * as image from './actions/image';
import * as music from './actions/music';
import { router } from './actions/router';
import * as video from './actions/video';
import { NOT_AS_TOOL } from '../shared/descriptions/tool-options';

/**
 * The resume webhook of "Wait for Notification": while an execution waits, n8n routes requests
 * to its resume URL here. It is a restart webhook, which n8n never registers or deregisters (it
 * exists only while an execution waits), so the checkExists/create/delete lifecycle the scanner
 * asks of trigger webhooks has nothing to do for it and is not implemented.
 */
const RESUME_WEBHOOKS: INodeTypeDescription['webhooks'] = [
	{
		name: 'default',
		httpMethod: 'POST',
		responseMode: 'onReceived',
		path: '',
		restartWebhook: true,
		isFullPath: true,
	},
];

export class HostMedia implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Host Media',
		name: 'hostMedia',
		icon: { light: 'file:../../icons/host-media.svg', dark: 'file:../../icons/host-media.dark.svg' },
		group: ['transform'],
		// Version 2 groups how long and how often to wait in "Wait Options", as Host Cloud does.
		version: [1, 2],
		defaultVersion: 2,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description: 'Relight, upscale, restyle and retouch images, make and extend videos and generate music with Host',
		defaults: { name: 'Host Media' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'hostApi', required: true }],
		webhooks: RESUME_WEBHOOKS,
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Image', value: 'image' },
					// Music comes as binary data only, which no model can receive (see generate.operation.ts).
					{ name: 'Music', value: 'music', displayOptions: NOT_AS_TOOL },
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

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await resumeOnNotification.call(this);
	}
}
