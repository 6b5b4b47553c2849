import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { prepareWorkflow, submitFields, submitWorkflow, uploadInputImages, workflowProperties } from '../../helpers/graph-input';

const properties: INodeProperties[] = [
	...workflowProperties,
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: submitFields,
	},
];

export const description = updateDisplayOptions({ show: { resource: ['workflow'], operation: ['submit'] } }, properties);

/** POST /api/prompt and return the prompt_id at once, without waiting for the job. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const workflow = await prepareWorkflow(this, itemIndex);
	await uploadInputImages(this, workflow, itemIndex);
	const answer = await submitWorkflow(this, workflow, itemIndex);
	const json: IDataObject = { prompt_id: answer.prompt_id, status: 'submitted' };
	if (answer.number !== undefined) json.number = answer.number;
	return [{ json }];
}
