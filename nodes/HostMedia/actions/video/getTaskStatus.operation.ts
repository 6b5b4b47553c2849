import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { describeToolAnswer } from '../../../shared/tools/tool-result';
import { pathSegmentText } from '../../../shared/items/validation';
import { taskStatus } from '../../helpers/tasks/task';
import { toolDescriptionProperty } from '../../../shared/descriptions/tool-options';
import { statusWaitProperties, WAIT_FIELDS } from '../common.descriptions';

const TOOL_DESCRIPTION = `Checks a video task started earlier, given its task_id: waits for it to finish (videos usually take several minutes), then returns the video. ${describeToolAnswer(['task_id'], 'calling this tool again')} Each video output also has "creation_id" (to extend the video) and "cover_url" (a still of it).`;

const properties: INodeProperties[] = [
	toolDescriptionProperty(TOOL_DESCRIPTION),
	{
		displayName: 'Task ID',
		name: 'taskId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 1718000000000000001',
		description: 'The task_id returned when the video task was started',
	},
	...statusWaitProperties('video'),
];

export const description = updateDisplayOptions({ show: { resource: ['video'], operation: ['getTaskStatus'] } }, properties);

/** GET /proxy/video/tasks/{task_id}/creations: state, failure code and the finished videos. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const taskId = pathSegmentText(this, itemIndex, 'Task ID', this.getNodeParameter('taskId', itemIndex, ''));
	return await taskStatus(this, itemIndex, { task: { kind: 'video', taskId }, taskType: 'video', label: 'video task' }, WAIT_FIELDS.video);
}
