import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { createLimiter } from '../../../shared/concurrent-items';
import { errorForItem } from '../../../shared/items';
import {
	prepareWorkflow,
	readDefinitionsEarly,
	submitFields,
	submitWorkflow,
	uploadInputImages,
	workflowProperties,
	type PreparedWorkflow,
} from '../../helpers/graph/prepare-workflow';
import { describeToolAnswer } from '../../../shared/tool-result';
import { toolDescriptionProperty, toolWaitProperty } from '../../../shared/tool-use';
import { downloadFilesProperties, rawOutputsProperty, runJobs } from '../../helpers/jobs/run-jobs';
import { waitProperties } from '../../helpers/jobs/wait-settings';
import type { FinishedJob } from '../../helpers/jobs/tracked-job';
import { isCancelledByNode } from '../../helpers/jobs/errors';
import { cancelOwnJobs } from '../../helpers/jobs/recovery';
import { forgetSubmit, jobsToTakeOver, keepSubmit, type EarlierTry } from '../../helpers/ownership/item-submits';
import { lostJobsThatAppeared } from '../../helpers/ownership/lost-submit';

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
 * Concurrent Jobs" at a time; results come back in item order. On a Retry On Fail, an item whose
 * earlier try's job is still queued or running follows that job instead of submitting again.
 * A lost submit whose job was not found is looked for once more as the run ends, and cancelled if
 * it appeared: no job of this node runs on unwatched.
 */
export async function executeAll(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	// "Max Concurrent Jobs" counts jobs on the cloud; fetching a finished job's files does not hold
	// a slot, so the next job starts while they download.
	let onCloud: ReturnType<typeof createLimiter> | undefined;
	// One queue read for the whole run, made only when an item has an earlier try's job to look for.
	let earlierJobs: Promise<Map<number, EarlierTry>> | undefined;
	// A job left running at Max Wait is meant to be collected later: its tag says so (no orphan).
	let leftRunningAtMaxWait = false;
	// The items that failed, and when the last did: their lost submits get one more look at the end.
	const failed: number[] = [];
	let lastFailedAt = 0;
	try {
		return await runJobs<PreparedWorkflow>(this, items, {
			check: async (itemIndex) => await prepareWorkflow(this, itemIndex),
			ownsJobs: true,
			concurrency: (options) => options.maxConcurrentJobs * 2,
			beforeStart: (workflows, options) => {
				readDefinitionsEarly(this, workflows);
				onCloud = createLimiter(options.maxConcurrentJobs);
				leftRunningAtMaxWait = !options.cancelOnTimeout;
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
				earlierJobs ??= jobsToTakeOver(
					this,
					items.map((_, index) => index),
					{ answered: false },
				);
				const earlier = (await earlierJobs).get(itemIndex);
				const wait = async (): Promise<FinishedJob> => {
					if (earlier && 'error' in earlier) throw earlier.error;
					// Its job is on the cloud already: followed like one submitted elsewhere (its messages went to an earlier socket).
					if (earlier) return await onCloud!(async () => await watcher.follow(earlier.promptId, itemIndex));
					await uploadInputImages(this, workflow, itemIndex);
					return await onCloud!(async () => {
						before();
						return await watcher.submitAndWait(
							itemIndex,
							async (ids) => (await submitWorkflow(this, workflow, itemIndex, { ...ids, leftRunningAtMaxWait })).prompt_id,
						);
					});
				};
				try {
					const finished = await wait();
					forgetSubmit(this, itemIndex);
					return finished;
				} catch (error) {
					// A job the node cancelled may be listed a moment longer: a retry must submit anew, not follow it.
					if (isCancelledByNode(error)) forgetSubmit(this, itemIndex);
					else keepSubmit(this, itemIndex);
					failed.push(itemIndex);
					lastFailedAt = Date.now();
					throw errorForItem(this, error, itemIndex);
				}
			},
		});
	} finally {
		await cancelOwnJobs(this, [...(await lostJobsThatAppeared(this, failed, lastFailedAt)).values()]);
	}
}
