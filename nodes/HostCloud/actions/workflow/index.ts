import type { INodeProperties } from 'n8n-workflow';

import { hideOperationsNotForTools } from '../../../shared/tools/tool-use';

import * as convert from './convert.operation';
import * as execute from './execute.operation';
import * as getJobWorkflow from './getJobWorkflow.operation';
import * as getStatus from './getStatus.operation';
import * as submit from './submit.operation';
import * as waitForCompletion from './waitForCompletion.operation';

export const operations = { execute, submit, getStatus, waitForCompletion, convert, getJobWorkflow };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['workflow'] } },
		options: hideOperationsNotForTools(
			[
				{
					name: 'Convert to API Format',
					value: 'convert',
					description: 'Return the workflow in API format without running it (a workflow saved from the editor is converted)',
					action: 'Convert a workflow to API format',
				},
				{
					name: 'Execute',
					value: 'execute',
					description: 'Run a workflow, wait for it to finish and return its output files',
					action: 'Execute a workflow',
				},
				{
					name: 'Get Job Workflow',
					value: 'getJobWorkflow',
					description: 'Get the workflow a v2 job ran (API format), or the one it was saved as in the editor (v2 only)',
					action: 'Get the workflow of a job',
				},
				{
					name: 'Get Status',
					value: 'getStatus',
					description: 'Get the status of a submitted job',
					action: 'Get the status of a job',
				},
				{
					name: 'Submit',
					value: 'submit',
					description: 'Queue a workflow and return its prompt_id at once, without waiting',
					action: 'Submit a workflow',
				},
				{
					name: 'Wait for Completion',
					value: 'waitForCompletion',
					description: 'Wait for a submitted job to finish and return its output files',
					action: 'Wait for a job to complete',
				},
			],
			operations,
		),
		default: 'execute',
	},
	...execute.description,
	...submit.description,
	...getStatus.description,
	...waitForCompletion.description,
	...convert.description,
	...getJobWorkflow.description,
];
