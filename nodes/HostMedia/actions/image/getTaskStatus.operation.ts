import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { describeToolAnswer } from '../../../shared/tools/tool-result';
import { invalidField, oneOf, quoted, requiredText } from '../../../shared/items/validation';
import { IMAGE_TASK_TYPES, imageTask } from '../../transport/media-tasks';
import { taskStatus } from '../../helpers/tasks/task';
import { toolDescriptionProperty } from '../../../shared/descriptions/tool-options';
import { statusWaitProperties, WAIT_FIELDS } from '../common.descriptions';

/** One option per image task of the catalogue, sorted by name as n8n lists options. */
const TASK_TYPE_OPTIONS = IMAGE_TASK_TYPES.map((value) => {
	const { name, description } = imageTask(value);
	return { name, value, description: description ?? `A task started by ${name}` };
}).sort((a, b) => a.name.localeCompare(b.name));

const TOOL_DESCRIPTION = `Checks an image task started earlier (by the upscale, relight, style transfer or skin tool), given its task_id and task_type: waits for it to finish, then returns the image. ${describeToolAnswer(['task_id', 'task_type'], 'calling this tool again')}`;

const properties: INodeProperties[] = [
	toolDescriptionProperty(TOOL_DESCRIPTION),
	{
		displayName: 'Task Type',
		name: 'taskType',
		type: 'options',
		options: TASK_TYPE_OPTIONS,
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
	return await taskStatus(
		this,
		itemIndex,
		{ task: { kind: 'image', taskType, taskId }, taskType, label: imageTask(taskType).label },
		WAIT_FIELDS.image,
	);
}
