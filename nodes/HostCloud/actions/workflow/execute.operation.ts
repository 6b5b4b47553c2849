import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { createLimiter, runItemsConcurrently } from '../../helpers/concurrent-items';
import { checkEachItem, failedItem } from '../../../shared/items';
import { JobWatcher } from '../../helpers/job-watcher';
import {
	prepareWorkflow,
	readDefinitionsEarly,
	submitFields,
	submitWorkflow,
	uploadInputImages,
	workflowProperties,
	type PreparedWorkflow,
} from '../../helpers/graph-input';
import { finishedJobItem } from '../../helpers/job-results';
import { readWaitOptions, waitFields } from '../../helpers/wait-settings';

export const downloadFilesProperty: INodeProperties = {
	displayName: 'Download Files',
	name: 'downloadFiles',
	type: 'boolean',
	default: false,
	description:
		'Whether to add the output files to the item as binary data (image_0, video_0, audio_0...). Either way the item lists every file with a download URL.',
};

export const rawOutputsField: INodeProperties = {
	displayName: 'Include Raw Outputs',
	name: 'includeRawOutputs',
	type: 'boolean',
	default: false,
	description: 'Whether to add the outputs exactly as the cloud reported them, by node ID (under "outputs")',
};

const properties: INodeProperties[] = [
	...workflowProperties,
	downloadFilesProperty,
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [...submitFields, rawOutputsField, ...waitFields].sort((a, b) => a.displayName.localeCompare(b.displayName)),
	},
];

export const description = updateDisplayOptions({ show: { resource: ['workflow'], operation: ['execute'] } }, properties);

/** An item's failure under "Continue On Fail", with the job it concerns when there is one. */
export function failedJobItem(context: IExecuteFunctions, error: unknown, itemIndex: number): INodeExecutionData {
	const job = (error as { context?: IDataObject }).context ?? {};
	const extra: IDataObject = {};
	for (const key of ['prompt_id', 'exception_type', 'node_id']) if (job[key] !== undefined) extra[key] = job[key];
	return failedItem(context, error, itemIndex, extra);
}

/**
 * Submits every item's workflow and waits for all of them over one WebSocket, up to "Max
 * Concurrent Jobs" at a time; results come back in item order.
 */
export async function executeAll(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const options = readWaitOptions(this);
	const download = this.getNodeParameter('downloadFiles', 0, false) as boolean;

	// Everything that can be checked without the service is checked first, for every item.
	const { passed: prepared, failures } = checkEachItem<PreparedWorkflow>(this, items.length, (itemIndex) =>
		prepareWorkflow(this, itemIndex),
	);
	if (prepared.size === 0) return [...failures.entries()].map(([itemIndex, error]) => failedJobItem(this, error, itemIndex));

	const watcher = new JobWatcher(this, options);
	// "Max Concurrent Jobs" counts jobs on the cloud; fetching a finished job's files does not hold
	// a slot, so the next job starts while they download.
	const onCloud = createLimiter(options.maxConcurrentJobs);
	let results: INodeExecutionData[];
	try {
		readDefinitionsEarly(this, [...prepared.values()]);
		await watcher.start();
		results = await runItemsConcurrently(
			this,
			items.map((_, itemIndex) => itemIndex),
			options.maxConcurrentJobs * 2,
			async (itemIndex, stop) => {
				const workflow = prepared.get(itemIndex);
				if (!workflow) throw failures.get(itemIndex);
				const notSubmitted = () => {
					if (this.getExecutionCancelSignal()?.aborted) return 'the execution was canceled';
					return stop.aborted ? 'another item failed' : undefined;
				};
				const before = (reason = notSubmitted()) => {
					if (reason) throw new NodeOperationError(this.getNode(), `This item was not submitted: ${reason}`, { itemIndex });
				};
				before();
				await uploadInputImages(this, workflow, itemIndex);
				const finished = await onCloud(async () => {
					before();
					const ticket = watcher.beginSubmission();
					let promptId: string | undefined;
					try {
						promptId = (await submitWorkflow(this, workflow, itemIndex, watcher.clientId)).prompt_id;
					} finally {
						if (promptId === undefined) watcher.submissionFailed(ticket);
					}
					return await watcher.watch(promptId, itemIndex, ticket);
				});
				const includeRawOutputs = (this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject).includeRawOutputs === true;
				return [await finishedJobItem(this, finished, itemIndex, { download, includePreview: options.includePreview, includeRawOutputs })];
			},
			{ failed: failedJobItem, onFatal: () => watcher.abandon('failed') },
		);
	} finally {
		await watcher.close();
	}
	return results;
}
