import type { IExecuteFunctions, INodeExecutionData, INodeProperties, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import * as file from './actions/file';
import * as queue from './actions/queue';
import { router } from './actions/router';
import * as server from './actions/server';
import * as system from './actions/system';
import * as workflow from './actions/workflow';
import { getImageLoaderNodes, getInputValues, getModelFolders, getNodeInputs, getWorkflowNodes } from './methods/load-options';

/** Which generation of the cloud's API the node speaks, and so which credential it takes (v1 for every workflow saved before v2). */
const apiGenerationProperty: INodeProperties = {
	displayName: 'API Generation',
	name: 'apiGeneration',
	type: 'options',
	noDataExpression: true,
	options: [
		{
			name: 'V1: Workflow API',
			value: 'v1',
			description: 'X-API-Key, /api/prompt and the progress WebSocket: the cloud, or a self-hosted ComfyUI-compatible server',
		},
		{
			name: 'V2: Jobs API',
			value: 'v2',
			description: 'Authorization: Bearer and /api/v2/jobs: the cloud, a deployment, or a self-hosted v2 proxy',
		},
	],
	default: 'v1',
	description:
		'The cloud sends new integrations to v2. n8n’s editor shows this choice in the credential dialog: the credential the node uses sets it. Operations v2 does not offer say so when they run, before anything is sent.',
};

export class HostCloud implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Host Cloud',
		name: 'hostCloud',
		icon: { light: 'file:../../icons/host-cloud.svg', dark: 'file:../../icons/host-cloud.dark.svg' },
		group: ['transform'],
		// 2: the wait settings sit in "Wait Options", Max Wait in minutes (as in Host Media); 1 keeps its saved layout.
		// 3: Download Files is on by default, into "data", "data_1"... (as in Host Media); 1 and 2 keep off and image_0.
		version: [1, 2, 3],
		defaultVersion: 3,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description: 'Run workflow graphs on the Host cloud and pass their output files on',
		defaults: { name: 'Host Cloud' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		// The credential type follows the API generation: one answer shape per credential test (docs/credentials.md).
		credentials: [
			{ name: 'hostCloudApi', required: true, displayOptions: { show: { apiGeneration: ['v1'] } } },
			{ name: 'hostCloudV2Api', required: true, displayOptions: { show: { apiGeneration: ['v2'] } } },
		],
		properties: [
			apiGenerationProperty,
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'File', value: 'file', description: 'Upload input images and masks, get output files' },
					{ name: 'Queue', value: 'queue', description: 'See and cancel the jobs of the account' },
					{
						name: 'Server',
						value: 'server',
						description: 'Your own server’s stats, memory, models and history (self-hosted only)',
					},
					{ name: 'System', value: 'system', description: 'Node definitions of the cloud' },
					{ name: 'Workflow', value: 'workflow', description: 'Run workflows and wait for their outputs' },
				],
				default: 'workflow',
			},
			...workflow.description,
			...file.description,
			...queue.description,
			...server.description,
			...system.description,
		],
	};

	methods = {
		loadOptions: { getWorkflowNodes, getNodeInputs, getImageLoaderNodes, getInputValues, getModelFolders },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
