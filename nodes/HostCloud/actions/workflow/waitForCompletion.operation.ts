import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { promptIdProperty, readPromptId } from '../../helpers/prompt-id';
import { downloadFilesProperty, rawOutputsProperty, runJobs } from '../../helpers/run-jobs';
import { waitProperties } from '../../helpers/wait-settings';

// Every item is followed at once (waiting costs the cloud nothing), so no concurrency limit here.
const properties: INodeProperties[] = [promptIdProperty, downloadFilesProperty, ...waitProperties([rawOutputsProperty], false)];

export const description = updateDisplayOptions({ show: { resource: ['workflow'], operation: ['waitForCompletion'] } }, properties);

/**
 * Waits for jobs submitted earlier (one prompt_id per item) over one WebSocket. Their earlier
 * messages were never seen, so their outputs are read from the job record once they complete.
 * These jobs were started elsewhere: a cancelled execution or a failed item stops the wait only.
 */
export async function executeAll(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	return await runJobs<string>(this, items, {
		check: (itemIndex) => readPromptId(this, itemIndex),
		ownsJobs: false,
		concurrency: () => items.length,
		job: async (watcher, itemIndex, promptId) => await watcher.follow(promptId, itemIndex),
	});
}
