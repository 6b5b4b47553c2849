import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { interruptRunning } from '../../transport/cloud-api';
import type { GenerationRefusal } from '../../transport/v2-service';

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

/** The v2 API cancels one job by its id; it has no "stop whatever runs" (`router.ts` refuses it there). */
export const notOnV2: GenerationRefusal = {
	why: 'the v2 API has no control that stops whatever runs; it cancels one job at a time, by its id',
	instead: 'Pass the job_id to Queue → Cancel Jobs. Execute cancels its own jobs when the execution is stopped or reaches Max Wait.',
};

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
