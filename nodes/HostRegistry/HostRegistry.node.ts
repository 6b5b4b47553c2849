import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { router } from './actions/router';
import * as node from './actions/node';
import * as nodeVersion from './actions/nodeVersion';
import * as publisher from './actions/publisher';
import { searchNodes, searchPublishers } from './methods/list-search';

export class HostRegistry implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Host Registry',
		name: 'hostRegistry',
		icon: { light: 'file:../../icons/host-registry.svg', dark: 'file:../../icons/host-registry.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description: 'Manage publishers and nodes in the Host node registry, publish versions and claim nodes',
		defaults: { name: 'Host Registry' },
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
					{ name: 'Node', value: 'node' },
					{ name: 'Node Version', value: 'nodeVersion' },
					{ name: 'Publisher', value: 'publisher' },
				],
				default: 'nodeVersion',
			},
			...node.description,
			...nodeVersion.description,
			...publisher.description,
		],
	};

	methods = {
		listSearch: { searchNodes, searchPublishers },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
