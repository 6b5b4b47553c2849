import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { cloudJobStateOf } from '../../../shared/task-status';
import { filesItem } from '../../helpers/job-results';
import { lookUpJobRecord, lookUpJobStatus } from '../../helpers/job-lookup';
import { promptIdProperty, readPromptId } from '../../helpers/prompt-id';

const properties: INodeProperties[] = [
	promptIdProperty,
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			{
				displayName: 'Include Output Files',
				name: 'includeOutputs',
				type: 'boolean',
				default: false,
				description: 'Whether to list the output files with download URLs once the job has completed (read from the job record)',
			},
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['workflow'], operation: ['getStatus'] } }, properties);

/** GET /api/job/{prompt_id}/status, with the status word as the service sent it and what it means. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const promptId = readPromptId(this, itemIndex);
	const answer = await lookUpJobStatus(this, promptId, { itemIndex, retry: true });
	const state = cloudJobStateOf(answer?.status);
	const json: IDataObject = { prompt_id: promptId, status: answer?.status ?? null, state, finished: state !== 'running' };
	const includeOutputs = (this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject).includeOutputs === true;
	if (includeOutputs && state === 'completed') {
		// A self-hosted server's answer is already the record (read from its history).
		const record = 'outputs' in answer ? answer : await lookUpJobRecord(this, promptId, { itemIndex });
		const outputs = record?.outputs;
		if (typeof outputs === 'object' && outputs !== null && !Array.isArray(outputs)) {
			Object.assign(json, (await filesItem(this, outputs as Record<string, unknown>, itemIndex, promptId, false)).json);
		} else {
			json.outputs_available = false;
		}
	}
	return [{ json }];
}
