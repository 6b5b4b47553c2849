/**
 * The output item of a task, the same whichever way the node waited for it (polling, a
 * notification, or a status check): the task in the shared status vocabulary, its result URLs,
 * and, when the user asked, the result files as binary data. A tool call gets the compact shape
 * of `tool-result.ts` instead, and never the files.
 */
import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { downloadToBinary } from '../../../shared/binary/binary';
import { binaryFieldFor, type ResultFiles } from '../../../shared/binary/result-files';
import type { NormalisedTask } from '../../../shared/tasks/task-status';
import { completedForTool, mimeTypeOfLink, runningForTool, toolOutput } from '../../../shared/tools/tool-result';

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
	if (task.refused_addresses) json.refused_addresses = task.refused_addresses;
	return json;
}

/**
 * A succeeded task whose result addresses are not all http(s) web addresses: never passed on as a
 * whole result (the left-out files are lost, and a Form or e-mail would place the others in HTML).
 */
export function refusedAddressesError(
	context: IExecuteFunctions | IWebhookFunctions,
	task: NormalisedTask,
	label: string,
	itemIndex: number,
): NodeOperationError | undefined {
	if (!task.refused_addresses) return undefined;
	return new NodeOperationError(
		context.getNode(),
		`${task.refused_addresses} of the result addresses of the ${label} ${task.task_id} ${task.refused_addresses === 1 ? 'is' : 'are'} not an http(s) web address, so its result is not passed on`,
		{
			itemIndex,
			description:
				'This is a fault of the service: only http: and https: addresses are passed on. Check the task with Get Task Status later.',
		},
	);
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
		binary[binaryFieldFor(name, index)] = await downloadToBinary(context, url, {
			itemIndex,
			// Named after the task, not the URL: result URLs often end in the same name (result-0.png), and
			// a zip, an upload or a Merge downstream would then overwrite one task's file with another's.
			fileName: `${taskType}-${task.task_id}${urls.length > 1 ? `-${index + 1}` : ''}`,
			fallbackName: `${taskType}-${task.task_id}`,
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
	const refused = task.status === 'succeeded' ? refusedAddressesError(context, task, `${taskType} task`, itemIndex) : undefined;
	if (refused) throw refused;
	const item: INodeExecutionData = { json: taskJson(task, taskType, extra), pairedItem: { item: itemIndex } };
	if (task.status === 'succeeded' && files.download && resultUrls(task).length > 0)
		item.binary = await downloadResults(context, itemIndex, task, taskType, files.binaryPropertyName);
	return item;
}

/** What a tool call answers about a task: its results once it succeeded, or that it goes on (a failed task is an error). */
export function taskForTool(task: NormalisedTask, taskType: string, itemIndex: number, waitedMs?: number): INodeExecutionData {
	// An image task's status is read by its type; a video task's by its id alone.
	const ids: IDataObject = task.kind === 'image' ? { task_id: task.task_id, task_type: taskType } : { task_id: task.task_id };
	if (task.status !== 'succeeded') {
		const what = task.kind === 'image' ? `task_id "${task.task_id}" and task type "${taskType}"` : `task_id "${task.task_id}"`;
		const next = `To get its result, call the Host Media "Get Task Status" tool (${task.kind}) with ${what} (each call waits up to its tool wait).`;
		return { json: runningForTool(ids, next, waitedMs), pairedItem: { item: itemIndex } };
	}
	const outputs =
		task.kind === 'image'
			? task.generated.map((url) => toolOutput({ url, kind: 'image', mimeType: mimeTypeOfLink(url, 'application/octet-stream') }))
			: task.creations.map((creation) =>
					toolOutput({ url: creation.url, kind: 'video', mimeType: mimeTypeOfLink(creation.url, 'application/octet-stream') }, undefined, {
						// What Extend needs to continue this video, and its still.
						...(creation.id ? { creation_id: creation.id } : {}),
						...(creation.cover_url ? { cover_url: creation.cover_url } : {}),
					}),
				);
	return { json: completedForTool(ids, outputs), pairedItem: { item: itemIndex } };
}
