import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { checkEachItem, errorForItem } from '../../../shared/items/items';
import { prepareWorkflow, readDefinitionsEarly, uploadInputImages, type PreparedWorkflow } from '../../helpers/submit/prepare-workflow';
import { submitWorkflow } from '../../helpers/submit/submit-workflow';
import { describeToolAnswer } from '../../../shared/tools/tool-result';
import { checkedItem, itemFailure, jobOutput, readJobRunSettings, startJobRun, type JobRun } from '../../helpers/jobs/run-jobs';
import type { JobWatcher } from '../../helpers/jobs/watcher';
import type { FinishedJob } from '../../helpers/jobs/tracked-job';
import { isCancelledByNode } from '../../helpers/job-reports/errors';
import { cancelOwnJobs } from '../../helpers/jobs/recovery';
import { forgetSubmit, jobsToTakeOver, keepSubmit, type EarlierTry } from '../../helpers/ownership/item-submits';
import { lostJobsThatAppeared } from '../../helpers/ownership/lost-submit';
import { prepareV2Workflow } from '../../helpers/v2-jobs/submit-job';
import { executeV2Jobs, v2RunSettingsOf } from '../../helpers/v2-jobs/run-v2-jobs';
import { apiGenerationOf } from '../../transport/v2-service';
import { toolDescriptionsBy, toolWaitProperty } from '../../../shared/descriptions/tool-options';
import {
	submitFields,
	workflowProperties,
	downloadFilesProperties,
	rawOutputsProperty,
	waitProperties,
	WAIT_FIELDS,
	SUBMIT_FIELDS,
} from '../common.descriptions';

const WHAT_IT_DOES =
	'Generates images, video or audio by running a workflow on the Host cloud, with the inputs this tool asks for (such as a text prompt). Images usually take seconds to a minute, videos several minutes; every call starts a new paid job.';
const TOOL_DESCRIPTION = `${WHAT_IT_DOES} ${describeToolAnswer(['prompt_id'], 'the Host Cloud "Get Status" tool')}`;
// On v2 the answer is the job's item, and no tool reads a job by id (Get Status is refused there): none is named.
const V2_TOOL_DESCRIPTION = `${WHAT_IT_DOES} It answers {"job_id", "prompt_id", "status": "succeeded", "images", "videos", "audio", "others"}, each output with its "url" and "url_expires_at"; the URLs are temporary links, so fetch them or pass them on soon. If the job is not finished within the wait of one call (under a minute), it answers {"status": "running", "job_id", "prompt_id", "message"}: the job goes on, and no tool can collect it (its outputs are collected outside this conversation by its job_id). A failed job is answered as an error that says why.`;

const properties: INodeProperties[] = [
	...toolDescriptionsBy('apiGeneration', { v1: TOOL_DESCRIPTION, v2: V2_TOOL_DESCRIPTION }),
	...workflowProperties,
	toolWaitProperty(),
	...downloadFilesProperties,
	...waitProperties([...submitFields, rawOutputsProperty], true),
];

export const description = updateDisplayOptions({ show: { resource: ['workflow'], operation: ['execute'] } }, properties);

/**
 * Submits every item's workflow and waits for all of them over one WebSocket, up to "Max
 * Concurrent Jobs" at a time (the watcher's places); results come back in item order. On a Retry
 * On Fail, an item whose earlier try's job is still queued or running follows that job instead of
 * submitting again. A lost submit whose job was not found is looked for once more as the run ends,
 * and cancelled if it appeared: no job of this node runs on unwatched.
 */
export async function executeAll(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	if (apiGenerationOf(this) === 'v2') return await executeOnV2(this, items);
	const settings = readJobRunSettings(this, WAIT_FIELDS);
	const checked = await checkEachItem(this, items.length, async (itemIndex) => await prepareWorkflow(this, itemIndex, SUBMIT_FIELDS));
	readDefinitionsEarly(this, [...checked.passed.values()]);
	const run = await startJobRun(this, settings, checked, { ownsJobs: true, places: settings.options.maxConcurrentJobs });
	const tries = new ItemTries(this, items.length);
	try {
		const outputs = await Promise.all(
			items.map(async (_, itemIndex) => {
				try {
					const finished = await jobOfItem(this, run, tries, itemIndex);
					return await jobOutput(this, run, finished, itemIndex);
				} catch (error) {
					return itemFailure(this, run, error, itemIndex);
				}
			}),
		);
		return run.watcher.results(outputs);
	} finally {
		await run.watcher.close();
		await cancelOwnJobs(this, [...(await lostJobsThatAppeared(this, tries.failed, tries.lastFailedAt)).values()]);
	}
}

/** What earlier tries left (one queue read for the run, made only when an item has an earlier try's job to look for), and the items that failed. */
class ItemTries {
	private earlierJobs?: Promise<Map<number, EarlierTry>>;
	/** The items that failed, and when the last did: their lost submits get one more look at the end. */
	readonly failed: number[] = [];
	lastFailedAt = 0;

	constructor(
		private readonly context: IExecuteFunctions,
		private readonly count: number,
	) {}

	async earlier(itemIndex: number): Promise<EarlierTry | undefined> {
		const every = Array.from({ length: this.count }, (_, index) => index);
		this.earlierJobs ??= jobsToTakeOver(this.context, every, { answered: false });
		return (await this.earlierJobs).get(itemIndex);
	}

	/** The item's try failed: its submit is kept for a retry, unless the node cancelled its job (a retry must submit anew, not follow it). */
	fail(itemIndex: number, error: unknown): void {
		if (isCancelledByNode(error)) forgetSubmit(this.context, itemIndex);
		else keepSubmit(this.context, itemIndex);
		this.failed.push(itemIndex);
		this.lastFailedAt = Date.now();
	}
}

/** The item's job to its end: an earlier try's followed, or the item's workflow submitted, each in a place of the watcher. */
async function jobOfItem(
	context: IExecuteFunctions,
	run: JobRun<PreparedWorkflow>,
	tries: ItemTries,
	itemIndex: number,
): Promise<FinishedJob> {
	const workflow = checkedItem(run, itemIndex);
	// Not yet the item's own submit: a refusal here leaves an earlier try's memory as it was.
	run.watcher.refuseIfStopped(itemIndex);
	const earlier = await tries.earlier(itemIndex);
	try {
		if (earlier && 'error' in earlier) throw earlier.error;
		// Its job is on the cloud already: followed like one submitted elsewhere (its messages went to an earlier socket).
		const finished = earlier
			? await run.watcher.follow(earlier.promptId, itemIndex)
			: await submitAndWait(context, run.watcher, workflow, itemIndex, !run.settings.options.cancelOnTimeout);
		forgetSubmit(context, itemIndex);
		return finished;
	} catch (error) {
		tries.fail(itemIndex, error);
		throw errorForItem(context, error, itemIndex);
	}
}

/** Uploads the item's inputs and submits its workflow in a place of the watcher, then waits for its job. */
async function submitAndWait(
	context: IExecuteFunctions,
	watcher: JobWatcher,
	workflow: PreparedWorkflow,
	itemIndex: number,
	leftRunningAtMaxWait: boolean,
): Promise<FinishedJob> {
	const submit = await watcher.openSubmit(itemIndex);
	try {
		// In the place: a run uploads for as many items at once as it runs jobs.
		await uploadInputImages(context, workflow, itemIndex);
		// A job left running at Max Wait is meant to be collected later: its tag says so (no orphan).
		const sendWith = { ...watcher.sendWith(submit), leftRunningAtMaxWait };
		const answer = await submitWorkflow(context, workflow, itemIndex, sendWith);
		return await watcher.waitForSubmitted(submit, answer.prompt_id);
	} catch (error) {
		// The run learns of the failure before the place comes back.
		watcher.closeSubmit(submit, error);
		throw errorForItem(context, error, itemIndex);
	}
}

/**
 * On v2: every item's workflow (API format) checked before anything is sent, then submitted with its
 * Idempotency-Key (`POST /api/v2/jobs`) and followed to its outputs, Max Concurrent Jobs at a time.
 */
async function executeOnV2(context: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const settings = readJobRunSettings(context, WAIT_FIELDS);
	const checked = await checkEachItem(
		context,
		items.length,
		async (itemIndex) => await prepareV2Workflow(context, itemIndex, SUBMIT_FIELDS),
	);
	return await executeV2Jobs(context, checked, items.length, { ...v2RunSettingsOf(settings), places: settings.options.maxConcurrentJobs });
}
