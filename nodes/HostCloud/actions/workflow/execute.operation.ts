import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { createLimiter } from '../../../shared/concurrent-items';
import {
	prepareWorkflow,
	readDefinitionsEarly,
	submitFields,
	submitWorkflow,
	uploadInputImages,
	workflowProperties,
	type PreparedWorkflow,
} from '../../helpers/graph/graph-input';
import { describeToolAnswer } from '../../../shared/tool-result';
import { toolDescriptionProperty, toolWaitProperty } from '../../../shared/tool-use';
import { downloadFilesProperties, rawOutputsProperty, runJobs } from '../../helpers/jobs/run-jobs';
import { waitProperties } from '../../helpers/jobs/wait-settings';

const TOOL_DESCRIPTION = `Generates images, video or audio by running a workflow on the Host cloud, with the inputs this tool asks for (such as a text prompt). Images usually take seconds to a minute, videos several minutes; every call starts a new paid job. ${describeToolAnswer(['prompt_id'], 'the Host Cloud "Get Status" tool')}`;

const properties: INodeProperties[] = [
	toolDescriptionProperty(TOOL_DESCRIPTION),
	...workflowProperties,
	toolWaitProperty(),
	...downloadFilesProperties,
	...waitProperties([...submitFields, rawOutputsProperty], true),
];

export const description = updateDisplayOptions({ show: { resource: ['workflow'], operation: ['execute'] } }, properties);

/**
 * Submits every item's workflow and waits for all of them over one WebSocket, up to "Max
 * Concurrent Jobs" at a time; results come back in item order.
 */
export async function executeAll(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	// "Max Concurrent Jobs" counts jobs on the cloud; fetching a finished job's files does not hold
	// a slot, so the next job starts while they download.
	let onCloud: ReturnType<typeof createLimiter> | undefined;
	return await runJobs<PreparedWorkflow>(this, items, {
		check: async (itemIndex) => await prepareWorkflow(this, itemIndex),
		ownsJobs: true,
		concurrency: (options) => options.maxConcurrentJobs * 2,
		beforeStart: (workflows, options) => {
			readDefinitionsEarly(this, workflows);
			onCloud = createLimiter(options.maxConcurrentJobs);
		},
		job: async (watcher, itemIndex, workflow, stop) => {
			const before = () => {
				const reason = this.getExecutionCancelSignal()?.aborted
					? 'the execution was canceled'
					: stop.aborted
						? 'another item failed'
						: undefined;
				if (reason) throw new NodeOperationError(this.getNode(), `This item was not submitted: ${reason}`, { itemIndex });
			};
			before();
			await uploadInputImages(this, workflow, itemIndex);
			return await onCloud!(async () => {
				before();
				return await watcher.submitAndWait(
					itemIndex,
					async (clientId) => (await submitWorkflow(this, workflow, itemIndex, clientId)).prompt_id,
				);
			});
		},
	});
}
