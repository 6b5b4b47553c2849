import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { describeToolAnswer } from '../../../shared/tool-result';
import { toolDescriptionProperty } from '../../../shared/tool-use';
import { invalidField, oneOf, quoted, requiredText } from '../../../shared/validation';
import { IMAGE_TASK_TYPES, type ImageTaskType } from '../../transport/spec';
import { taskStatus } from '../../helpers/tasks/task';
import { statusWaitProperties } from '../../helpers/tasks/wait-parameters';

const LABELS: Record<ImageTaskType, string> = {
	'image-upscaler': 'upscale task',
	'image-upscaler-precision-v2': 'precision upscale V2 task',
	'image-style-transfer': 'style transfer task',
	'image-relight': 'relight task',
	'skin-enhancer': 'skin enhancement task',
};

const TOOL_DESCRIPTION = `Checks an image task started earlier (by the upscale, relight, style transfer or skin tool), given its task_id and task_type: waits for it to finish, then returns the image. ${describeToolAnswer(['task_id', 'task_type'], 'calling this tool again')}`;

const properties: INodeProperties[] = [
	toolDescriptionProperty(TOOL_DESCRIPTION),
	{
		displayName: 'Task Type',
		name: 'taskType',
		type: 'options',
		options: [
			{ name: 'Enhance Skin', value: 'skin-enhancer', description: 'A task started by Enhance Skin' },
			{ name: 'Precision Upscale V2', value: 'image-upscaler-precision-v2', description: 'A precision upscaler V2 task' },
			{ name: 'Relight', value: 'image-relight', description: 'A task started by Relight' },
			{ name: 'Style Transfer', value: 'image-style-transfer', description: 'A task started by Style Transfer' },
			{ name: 'Upscale', value: 'image-upscaler', description: 'A task started by Upscale' },
		],
		default: 'image-upscaler',
		description: 'Which kind of task the ID belongs to: each kind has its own status address',
	},
	{
		displayName: 'Task ID',
		name: 'taskId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 3f2b9c1e-…',
		description: 'The task_id returned when the task was started',
	},
	...statusWaitProperties('image'),
];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const description = updateDisplayOptions({ show: { resource: ['image'], operation: ['getTaskStatus'] } }, properties);

/** GET /proxy/imaging/v1/ai/{task type}/{task_id}. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const taskType = oneOf(this, itemIndex, 'Task Type', this.getNodeParameter('taskType', itemIndex), IMAGE_TASK_TYPES);
	const taskId = requiredText(this, itemIndex, 'Task ID', this.getNodeParameter('taskId', itemIndex, ''));
	// Image task ids are UUIDs (the spec says so); checking keeps a pasted URL or a video id out of the path.
	if (!UUID.test(taskId)) {
		throw invalidField(
			this,
			itemIndex,
			'Task ID',
			`must be an image task ID in UUID format, e.g. 3f2b9c1e-8a4d-4f6b-9c2e-1a2b3c4d5e6f (got ${quoted(taskId)})`,
		);
	}
	return await taskStatus(this, itemIndex, { task: { kind: 'image', taskType, taskId }, taskType, label: LABELS[taskType] });
}
