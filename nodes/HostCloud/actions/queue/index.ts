import type { INodeProperties } from 'n8n-workflow';

import { hideOperationsNotForTools } from '../../../shared/tools/tool-use';

import * as cancelExecutionJobs from './cancelExecutionJobs.operation';
import * as cancelJobs from './cancelJobs.operation';
import * as get from './get.operation';
import * as interrupt from './interrupt.operation';

export const operations = { get, cancelJobs, cancelExecutionJobs, interrupt };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['queue'] } },
		options: hideOperationsNotForTools(
			[
				{
					name: 'Cancel Jobs',
					value: 'cancelJobs',
					description: 'Cancel queued or running jobs by prompt ID',
					action: 'Cancel jobs',
				},
				{
					name: 'Cancel Jobs of an Execution',
					value: 'cancelExecutionJobs',
					description: 'Cancel the queued or running jobs an n8n execution left behind (for an Error Workflow)',
					action: 'Cancel the jobs of an execution',
				},
				{
					name: 'Get',
					value: 'get',
					description: 'Get the running and pending jobs of the account',
					action: 'Get the queue',
				},
				{
					name: 'Interrupt Running',
					value: 'interrupt',
					description: 'Stop every job of the account that is running now',
					action: 'Interrupt running jobs',
				},
			],
			operations,
		),
		default: 'get',
	},
	...get.description,
	...cancelJobs.description,
	...cancelExecutionJobs.description,
	...interrupt.description,
];
