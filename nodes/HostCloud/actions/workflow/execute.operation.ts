import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { Slots } from '../../../shared/items/concurrent-items';
import { checkEachItem, errorForItem } from '../../../shared/items/items';
import { prepareWorkflow, readDefinitionsEarly, uploadInputImages, type PreparedWorkflow } from '../../helpers/submit/prepare-workflow';
import { submitWorkflow } from '../../helpers/submit/submit-workflow';
import { describeToolAnswer } from '../../../shared/tools/tool-result';
import { JobRun, readJobRunSettings, type ItemJob } from '../../helpers/jobs/run-jobs';
import type { FinishedJob } from '../../helpers/jobs/tracked-job';
import { isCancelledByNode } from '../../helpers/job-reports/errors';
import { cancelOwnJobs } from '../../helpers/jobs/recovery';
import { forgetSubmit, jobsToTakeOver, keepSubmit, type EarlierTry } from '../../helpers/ownership/item-submits';
import { lostJobsThatAppeared } from '../../helpers/ownership/lost-submit';
import { toolDescriptionProperty, toolWaitProperty } from '../../../shared/descriptions/tool-options';
import {
	submitFields,
	workflowProperties,
	downloadFilesProperties,
	rawOutputsProperty,
	waitProperties,
	WAIT_FIELDS,
	SUBMIT_FIELDS,
} from '../common.descriptions';

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
	const settings = readJobRunSettings(this, WAIT_FIELDS);
	const checked = await checkEachItem(this, items.length, async (itemIndex) => await prepareWorkflow(this, itemIndex, SUBMIT_FIELDS));
	readDefinitionsEarly(this, [...checked.passed.values()]);
	const { maxConcurrentJobs, cancelOnTimeout } = settings.options;
	// "Max Concurrent Jobs" counts jobs on the cloud; fetching a finished job's files does not hold
	// a place, so the next job starts while they download.
	const onCloud = new Slots(maxConcurrentJobs);
	// One queue read for the whole run, made only when an item has an earlier try's job to look for.
	let earlierJobs: Promise<Map<number, EarlierTry>> | undefined;
	// The items that failed, and when the last did: their lost submits get one more look at the end.
	const failed: number[] = [];
	let lastFailedAt = 0;

	const runItem: ItemJob<PreparedWorkflow> = async (watcher, itemIndex, workflow, { stop, hold }) => {
		// Not yet the item's own submit: a failure here leaves an earlier try's memory as it was.
		stillWanted(this, itemIndex, stop);
		earlierJobs ??= jobsToTakeOver(
			this,
			items.map((_, index) => index),
			{ answered: false },
		);
		const earlier = (await earlierJobs).get(itemIndex);
		try {
			if (earlier && 'error' in earlier) throw earlier.error;
			let finished: FinishedJob;
			if (earlier) {
				// Its job is on the cloud already: followed like one submitted elsewhere (its messages went to an earlier socket).
				await hold(onCloud);
				finished = await watcher.follow(earlier.promptId, itemIndex);
			} else {
				await uploadInputImages(this, workflow, itemIndex);
				await hold(onCloud);
				stillWanted(this, itemIndex, stop);
				const submit = watcher.openSubmit(itemIndex);
				try {
					// A job left running at Max Wait is meant to be collected later: its tag says so (no orphan).
					const sendWith = { ...submit.sendWith, leftRunningAtMaxWait: !cancelOnTimeout };
					const answer = await submitWorkflow(this, workflow, itemIndex, sendWith);
					finished = await watcher.waitForSubmitted(submit, answer.prompt_id);
				} finally {
					watcher.closeSubmit(submit);
				}
			}
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
	};

	const run = await JobRun.start(this, settings, checked, { ownsJobs: true, concurrency: maxConcurrentJobs * 2 });
	try {
		return run.results(await Promise.all(items.map((_, itemIndex) => run.item(itemIndex, runItem))));
	} finally {
		await run.close();
		await cancelOwnJobs(this, [...(await lostJobsThatAppeared(this, failed, lastFailedAt)).values()]);
	}
}

/** An item whose turn comes after a Stop, or after another item failed the run, is not submitted. */
function stillWanted(context: IExecuteFunctions, itemIndex: number, stop: AbortSignal): void {
	const reason = context.getExecutionCancelSignal()?.aborted
		? 'the execution was canceled'
		: stop.aborted
			? 'another item failed'
			: undefined;
	if (reason) throw new NodeOperationError(context.getNode(), `This item was not submitted: ${reason}`, { itemIndex });
}
