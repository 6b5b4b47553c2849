/**
 * The output item of a task, the same whichever way the node waited for it (polling, a
 * notification, or a status check): the task in the shared status vocabulary, its result URLs,
 * and, when the user asked, the result files as binary data.
 */
import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData, IWebhookFunctions } from 'n8n-workflow';

import { downloadToBinary } from '../../shared/binary';
import type { NormalisedTask } from '../../shared/task-status';

/** Whether and where to put the result files ("Download Result Files", "Put Files in Field"). */
export interface ResultFiles {
	download: boolean;
	binaryPropertyName: string;
}

/** The JSON of an output item: the task in the shared status vocabulary plus its results. */
export function taskJson(task: NormalisedTask, taskType: string, extra: IDataObject = {}): IDataObject {
	const json: IDataObject = {
		task_id: task.task_id,
		task_type: taskType,
		status: task.status,
		raw_status: task.raw_status,
		final: task.final,
		...extra,
	};
	if (task.kind === 'image') {
		json.generated = task.generated;
		if (task.generated[0]) json.url = task.generated[0];
	} else {
		json.creations = task.creations as unknown as IDataObject[];
		if (task.creations[0]) {
			json.video_url = task.creations[0].url;
			if (task.creations[0].cover_url) json.cover_url = task.creations[0].cover_url;
		}
	}
	if (task.error) json.error = task.error;
	return json;
}

/** Result URLs of a finished task: the images, or the videos. */
const resultUrls = (task: NormalisedTask): string[] =>
	task.kind === 'image' ? task.generated : task.creations.map((creation) => creation.url);

/** Downloads every result file into binary fields `name`, `name_1`, `name_2`… */
async function downloadResults(
	context: IExecuteFunctions | IWebhookFunctions,
	itemIndex: number,
	task: NormalisedTask,
	taskType: string,
	name: string,
): Promise<Record<string, IBinaryData>> {
	const binary: Record<string, IBinaryData> = {};
	const urls = resultUrls(task);
	for (const [index, url] of urls.entries()) {
		binary[index === 0 ? name : `${name}_${index}`] = await downloadToBinary(context, url, {
			itemIndex,
			fallbackName: `${taskType}-${task.task_id}${urls.length > 1 ? `-${index + 1}` : ''}`,
			what: `result file ${index + 1} of task ${task.task_id}`,
			// The task is paid for and its result URLs stay valid for a while: a cut transfer or a 5xx is fetched again.
			retry: true,
		});
	}
	return binary;
}

/** The output item of a final task; the files of a succeeded one are downloaded when asked. */
export async function finishedItem(
	context: IExecuteFunctions | IWebhookFunctions,
	itemIndex: number,
	task: NormalisedTask,
	taskType: string,
	extra: IDataObject,
	files: ResultFiles,
): Promise<INodeExecutionData> {
	const item: INodeExecutionData = { json: taskJson(task, taskType, extra), pairedItem: { item: itemIndex } };
	if (task.status === 'succeeded' && files.download && resultUrls(task).length > 0)
		item.binary = await downloadResults(context, itemIndex, task, taskType, files.binaryPropertyName);
	return item;
}
