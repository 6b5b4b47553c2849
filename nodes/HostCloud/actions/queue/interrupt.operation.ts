import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { interruptRunning } from '../../transport/cloud-api';

const properties: INodeProperties[] = [
	{
		displayName:
			'This stops EVERY job of your account that is running right now, including jobs started by other workflows or in the editor. To stop only some jobs, use Cancel Jobs with their prompt IDs.',
		name: 'interruptNotice',
		type: 'notice',
		default: '',
	},
];

export const description = updateDisplayOptions({ show: { resource: ['queue'], operation: ['interrupt'] } }, properties);

/** Why a tool call cannot use this operation (it is hidden on the tool type, and refused). */
export const notAsTool =
	'Interrupt Running stops every running job of the account, not only the ones the agent started; Cancel Jobs stops jobs by their prompt_id.';

/** POST /api/interrupt: interrupts the running execution(s) of the account. Never called automatically. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const answer = await interruptRunning(this, itemIndex);
	const json: IDataObject = { interrupted: true };
	if (Array.isArray(answer?.interrupted)) json.interrupted_prompt_ids = answer.interrupted;
	return [{ json }];
}
