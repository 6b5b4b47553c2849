/**
 * jobs/: Execute's and Wait for Completion's watch of cloud jobs, from submit to output item: the
 * watcher and its share of the progress socket, each job's phase, recovery, the wait settings,
 * the output item. It may call job-reports/ (what the server reports of a job, shared with the
 * trigger), progress-socket/, ownership/, transport/ and nodes/shared; never graph/, submit/ or
 * ui-format/: Execute submits (submit/submit-workflow) and hands the watcher the submit's answer.
 * No other helper folder calls it.
 *
 * The run of Execute and Wait for Completion: its settings, its checked items and the watcher that
 * follows their jobs (`startJobRun`); the operation loops over its items, each item's finished job
 * becomes its output item paired with it (`jobOutput`), a failure its failure item under "Continue
 * On Fail" or the run's stop without it (`itemFailure`). Called as a tool, a job is waited for at
 * most Tool Wait and left running after it, nothing is downloaded, and the answer is compact
 * (`tool-result.ts`).
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { checkedField } from '../../../shared/items/fields';
import { checkEachItem, errorForItem, failedItem, paired, type CheckedItems } from '../../../shared/items/items';
import { PUT_FILES_IN_FIELD, readResultFiles } from '../../../shared/binary/result-files';
import { readToolWaitMs, runsAsTool } from '../../../shared/tools/tool-use';
import { invalidField } from '../../../shared/items/validation';
import { asJobFailure, isStillRunning } from '../job-reports/errors';
import { completedJobForTool, finishedJobItem, PREVIEW_FIELD, runningJobForTool } from './job-item';
import type { FileDownload } from '../job-reports/files-item';
import { JobWatcher } from './watcher';
import { readPromptId } from '../job-reports/prompt-id';
import type { FinishedJob } from './tracked-job';
import { readWaitOptions, toolWaitOptions, type WaitFields, type WaitOptions } from './wait-settings';

/**
 * Version 3 follows the files convention of Host Media (`shared/binary/result-files.ts`): files are
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

/** A run of cloud jobs over one watcher: what it read before anything was sent, and its checked items. */
export interface JobRun<T> {
	settings: JobRunSettings;
	checked: CheckedItems<T>;
	watcher: JobWatcher;
	/** The watcher could not start (under Continue On Fail): every item that passed its check fails with this. */
	startFailure?: { error: unknown };
}

/**
 * Opens the run's watcher (its socket), unless no item passed its check. `ownsJobs`: the node
 * started the jobs (stopping early cancels them); `places`: at most this many jobs at once.
 */
export async function startJobRun<T>(
	context: IExecuteFunctions,
	settings: JobRunSettings,
	checked: CheckedItems<T>,
	shape: { ownsJobs: boolean; places?: number },
): Promise<JobRun<T>> {
	const { places, ownsJobs } = shape;
	const watcher = new JobWatcher(context, { ...settings.options, cancelOnAbandon: ownsJobs, places, asTool: settings.asTool });
	const run: JobRun<T> = { settings, checked, watcher };
	if (checked.passed.size === 0) return run;
	try {
		await watcher.start();
	} catch (error) {
		// A credential that cannot be used fails every item alike (each its own, under Continue On Fail).
		if (!context.continueOnFail()) {
			await watcher.close();
			throw errorForItem(context, error, 0);
		}
		run.startFailure = { error };
	}
	return run;
}

/** What the item's check answered; throws why it cannot run (its check failed, or the watcher could not start). */
export function checkedItem<T>(run: JobRun<T>, itemIndex: number): T {
	const { passed, failures } = run.checked;
	if (!passed.has(itemIndex)) throw failures.get(itemIndex);
	if (run.startFailure) throw run.startFailure.error;
	return passed.get(itemIndex) as T;
}

/** The output item of the item's finished job (its files fetched outside its place on the cloud). */
export async function jobOutput(
	context: IExecuteFunctions,
	run: JobRun<unknown>,
	finished: FinishedJob,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const { asTool, options, waitFields, download } = run.settings;
	const additional = context.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const includeRawOutputs = checkedField(context, itemIndex, waitFields.includeRawOutputs, additional.includeRawOutputs) === true;
	try {
		if (asTool) return paired([await completedJobForTool(context, finished, itemIndex)], itemIndex, context);
		const result = { download, includePreview: options.includePreview, includeRawOutputs };
		return paired([await finishedJobItem(context, finished, itemIndex, result)], itemIndex, context);
	} catch (error) {
		// A file of a finished job could not be read: the failed item still names its job.
		throw asJobFailure(context.getNode(), { promptId: finished.promptId, itemIndex }, error, []);
	}
}

/**
 * What an item that failed outputs: a tool's job still running at Tool Wait is its answer
 * ("running"); under Continue On Fail the failure is its own item; otherwise nothing, and the
 * run's first failure stops the run (`results` throws it).
 */
export function itemFailure(context: IExecuteFunctions, run: JobRun<unknown>, error: unknown, itemIndex: number): INodeExecutionData[] {
	const { asTool, options } = run.settings;
	if (asTool && isStillRunning(error)) {
		const promptId = String((error as { context: IDataObject }).context.prompt_id);
		return paired([runningJobForTool(promptId, itemIndex, options.maxWaitMs)], itemIndex, context);
	}
	const failure = errorForItem(context, error, itemIndex);
	if (context.continueOnFail()) return [failedJobItem(context, failure, itemIndex)];
	run.watcher.itemFailed(failure, itemIndex);
	return [];
}

/**
 * Waits for jobs submitted earlier (one prompt_id per item) over one WebSocket, every item at once
 * (waiting costs the cloud nothing). Their earlier messages were never seen, so their outputs are
 * read from the job record once they complete. These jobs were started elsewhere: a cancelled
 * execution or a failed item stops the wait only, and Max Wait cancels (On Timeout) only one this
 * execution submitted, unless `cancelStartedElsewhere`.
 */
export async function followJobs(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
	waitFields: WaitFields,
	{ cancelStartedElsewhere = false }: { cancelStartedElsewhere?: boolean } = {},
): Promise<INodeExecutionData[]> {
	const read = readJobRunSettings(context, waitFields);
	const settings = { ...read, options: { ...read.options, cancelStartedElsewhere } };
	const checked = await checkEachItem(context, items.length, (itemIndex) => readPromptId(context, itemIndex));
	const run = await startJobRun(context, settings, checked, { ownsJobs: false });
	try {
		const outputs = await Promise.all(
			items.map(async (_, itemIndex) => {
				try {
					const finished = await run.watcher.follow(checkedItem(run, itemIndex), itemIndex);
					return await jobOutput(context, run, finished, itemIndex);
				} catch (error) {
					return itemFailure(context, run, error, itemIndex);
				}
			}),
		);
		return run.watcher.results(outputs);
	} finally {
		await run.watcher.close();
	}
}
