import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runItemsConcurrently } from '../../helpers/concurrent-items';
import { checkEachItem } from '../../../shared/items';
import { JobWatcher } from '../../helpers/job-watcher';
import { finishedJobItem } from '../../helpers/job-results';
import { promptIdProperty, readPromptId } from '../../helpers/prompt-id';
import { readWaitOptions, waitFields } from '../../helpers/wait-settings';
import { downloadFilesProperty, failedJobItem, rawOutputsField } from './execute.operation';

const properties: INodeProperties[] = [
	promptIdProperty,
	downloadFilesProperty,
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		// Every item is followed at once (waiting costs the cloud nothing), so no concurrency limit here.
		options: [rawOutputsField, ...waitFields.filter((field) => field.name !== 'maxConcurrentJobs')].sort((a, b) =>
			a.displayName.localeCompare(b.displayName),
		),
	},
];

export const description = updateDisplayOptions({ show: { resource: ['workflow'], operation: ['waitForCompletion'] } }, properties);

/**
 * Waits for jobs submitted earlier (one prompt_id per item) over one WebSocket. Their earlier
 * messages were never seen, so their outputs are read from the job record once they complete.
 */
export async function executeAll(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const options = readWaitOptions(this);
	const download = this.getNodeParameter('downloadFiles', 0, false) as boolean;
	const { passed: promptIds, failures } = checkEachItem(this, items.length, (itemIndex) => readPromptId(this, itemIndex));
	if (promptIds.size === 0) return [...failures.entries()].map(([itemIndex, error]) => failedJobItem(this, error, itemIndex));

	// These jobs were started elsewhere: a cancelled execution or a failed item stops the wait only.
	const watcher = new JobWatcher(this, { ...options, cancelOnAbandon: false });
	try {
		await watcher.start();
		return await runItemsConcurrently(
			this,
			items.map((_, itemIndex) => itemIndex),
			items.length,
			async (itemIndex) => {
				const promptId = promptIds.get(itemIndex);
				if (promptId === undefined) throw failures.get(itemIndex);
				const finished = await watcher.follow(promptId, itemIndex);
				const includeRawOutputs = (this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject).includeRawOutputs === true;
				return [await finishedJobItem(this, finished, itemIndex, { download, includePreview: options.includePreview, includeRawOutputs })];
			},
			{ failed: failedJobItem, onFatal: () => watcher.abandon('failed') },
		);
	} finally {
		await watcher.close();
	}
}
