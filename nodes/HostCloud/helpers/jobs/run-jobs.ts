/**
 * jobs/: following cloud jobs from submit to output item: the progress socket, the watcher, each
 * job's state, recovery and lookups, failures in words, the wait settings, the output item. It
 * may call transport/, nodes/shared, ownership/ and files/output-files (the files a job's outputs
 * name); never graph/ or ui-format/: Execute submits (graph/submit-workflow) and hands the watcher
 * the submit's answer.
 *
 * Runs the items of Execute and Wait for Completion as cloud jobs followed by one watcher: the
 * operation checks every item before anything is sent, jobs run concurrently up to a limit, each
 * finished job becomes an output item paired with its input, and "Continue On Fail" is honoured per item.
 * Called as a tool, a job is waited for at most Tool Wait and left running after it, nothing is
 * downloaded, and the answer is compact (`tool-result.ts`).
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { checkedField } from '../../../shared/fields';
import { checkEachItem, errorForItem, failedItem, type CheckedItems } from '../../../shared/items';
import { PUT_FILES_IN_FIELD, readResultFiles } from '../../../shared/result-files';
import { readToolWaitMs, runsAsTool } from '../../../shared/tool-use';
import { invalidField } from '../../../shared/validation';
import { runItemsConcurrently } from '../../../shared/concurrent-items';
import { asJobFailure, isStillRunning } from './errors';
import { completedJobForTool, finishedJobItem, PREVIEW_FIELD, runningJobForTool, type FileDownload } from './results';
import { JobWatcher } from './watcher';
import { readPromptId } from './prompt-id';
import type { FinishedJob } from './tracked-job';
import { readWaitOptions, toolWaitOptions, type WaitFields, type WaitOptions } from './wait-settings';

/**
 * Version 3 follows the files convention of Host Media (`shared/result-files.ts`): files are
 * downloaded by default, into `data`, `data_1`... Versions 1 and 2 keep what their saved
 * workflows were built on: off by default, fields named by kind (image_0, video_0, audio_0, file_0).
 */
export const FILES_CONVENTION_SINCE_VERSION = 3;

/** Whether and where the files of a run go (read once, from the first item, before anything is sent). */
function readJobFiles(context: IExecuteFunctions, includePreview: boolean): FileDownload | undefined {
	if (context.getNode().typeVersion < FILES_CONVENTION_SINCE_VERSION)
		return (context.getNodeParameter('downloadFiles', 0, false) as boolean) ? {} : undefined;
	const files = readResultFiles(context, 0);
	if (!files.download) return undefined;
	// The preview has its own field: a file put there would be lost.
	if (includePreview && files.binaryPropertyName === PREVIEW_FIELD)
		throw invalidField(
			context,
			0,
			PUT_FILES_IN_FIELD,
			`cannot be "${PREVIEW_FIELD}" while Include Preview Image is on: the preview goes there`,
		);
	return { binaryPropertyName: files.binaryPropertyName };
}

/** An item's failure under "Continue On Fail", with the job it concerns when there is one. */
export function failedJobItem(context: IExecuteFunctions, error: unknown, itemIndex: number): INodeExecutionData {
	const job = (error as { context?: IDataObject }).context ?? {};
	const extra: IDataObject = {};
	for (const key of ['prompt_id', 'exception_type', 'node_id']) if (job[key] !== undefined) extra[key] = job[key];
	return failedItem(context, error, itemIndex, extra);
}

/** What a run of Execute or Wait for Completion reads once, before anything is sent. */
export interface JobRunSettings {
	asTool: boolean;
	options: WaitOptions;
	/** The wait fields of the operation's form (Include Raw Outputs is read per item). */
	waitFields: WaitFields;
	download?: FileDownload;
}

/** Reads the run's wait options and where files go (a tool: Tool Wait, no files). */
export function readJobRunSettings(context: IExecuteFunctions, waitFields: WaitFields): JobRunSettings {
	const asTool = runsAsTool(context);
	const wait = readWaitOptions(context, waitFields);
	const options = asTool ? toolWaitOptions(wait, readToolWaitMs(context, 0)) : wait;
	return { asTool, options, waitFields, download: asTool ? undefined : readJobFiles(context, options.includePreview) };
}

export interface JobRunShape {
	/** Whether the node started the jobs (so stopping early cancels them on the cloud). */
	ownsJobs: boolean;
	/** How many items run at once. */
	concurrency: number;
}

/** The job of one checked item, from submit (or follow) to its end, over the run's watcher. */
export type ItemJob<T> = (watcher: JobWatcher, itemIndex: number, checked: T, stop: AbortSignal) => Promise<FinishedJob>;

/**
 * Waits for the items' jobs over one watcher, `shape.concurrency` items at a time, and makes each
 * finished job an output item paired with its input. An item that failed its check fails here
 * (on its own under Continue On Fail).
 */
export async function runJobs<T>(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
	settings: JobRunSettings,
	{ passed, failures }: CheckedItems<T>,
	shape: JobRunShape,
	job: ItemJob<T>,
): Promise<INodeExecutionData[]> {
	if (passed.size === 0) return [...failures.entries()].map(([itemIndex, error]) => failedJobItem(context, error, itemIndex));
	const { asTool, options, waitFields, download } = settings;
	const watcher = new JobWatcher(context, { ...options, cancelOnAbandon: shape.ownsJobs });
	try {
		try {
			await watcher.start();
		} catch (error) {
			// A credential that cannot be used fails every item alike (each its own, under Continue On Fail).
			if (!context.continueOnFail()) throw errorForItem(context, error, 0);
			return items.map((_, itemIndex) => failedJobItem(context, failures.get(itemIndex) ?? error, itemIndex));
		}
		return await runItemsConcurrently(
			context,
			items.map((_, itemIndex) => itemIndex),
			shape.concurrency,
			async (itemIndex, stop) => {
				if (!passed.has(itemIndex)) throw failures.get(itemIndex);
				let finished: FinishedJob;
				try {
					finished = await job(watcher, itemIndex, passed.get(itemIndex) as T, stop);
				} catch (error) {
					// Tool Wait is over: the tool answers "running", and the job goes on.
					if (!(asTool && isStillRunning(error))) throw errorForItem(context, error, itemIndex);
					return [runningJobForTool(String((error as { context: IDataObject }).context.prompt_id), itemIndex, options.maxWaitMs)];
				}
				const additional = context.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
				const includeRawOutputs = checkedField(context, itemIndex, waitFields.includeRawOutputs, additional.includeRawOutputs) === true;
				try {
					if (asTool) return [await completedJobForTool(context, finished, itemIndex)];
					const result = { download, includePreview: options.includePreview, includeRawOutputs };
					return [await finishedJobItem(context, finished, itemIndex, result)];
				} catch (error) {
					// A file of a finished job could not be read: the failed item still names its job.
					throw asJobFailure(context.getNode(), { promptId: finished.promptId, itemIndex }, error, []);
				}
			},
			{ failed: failedJobItem, onFatal: () => watcher.abandon('failed') },
		);
	} finally {
		await watcher.close();
	}
}

/**
 * Waits for jobs submitted earlier (one prompt_id per item) over one WebSocket. Their earlier
 * messages were never seen, so their outputs are read from the job record once they complete.
 * These jobs were started elsewhere: a cancelled execution or a failed item stops the wait only.
 */
export async function followJobs(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
	waitFields: WaitFields,
): Promise<INodeExecutionData[]> {
	const settings = readJobRunSettings(context, waitFields);
	const checked = await checkEachItem(context, items.length, (itemIndex) => readPromptId(context, itemIndex));
	const shape = { ownsJobs: false, concurrency: items.length };
	return await runJobs(
		context,
		items,
		settings,
		checked,
		shape,
		async (watcher, itemIndex, promptId) => await watcher.follow(promptId, itemIndex),
	);
}
