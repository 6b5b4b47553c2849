import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { router } from './actions/router';
import * as system from './actions/system';

export class HostCloud implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Host Cloud',
		name: 'hostCloud',
		icon: { light: 'file:../../icons/host.svg', dark: 'file:../../icons/host.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description: 'Run workflow graphs on the Host cloud and pass their output files on',
		defaults: { name: 'Host Cloud' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'hostCloudApi', required: true }],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [{ name: 'System', value: 'system' }],
				default: 'system',
			},
			...system.description,
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
