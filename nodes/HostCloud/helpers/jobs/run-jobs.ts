/**
 * jobs/: Execute's and Wait for Completion's watch of cloud jobs, from submit to output item: the
 * watcher and its share of the progress socket, each job's phase, recovery, the wait settings,
 * the output item. It may call job-reports/ (what the server reports of a job, shared with the
 * trigger), progress-socket/, ownership/, transport/ and nodes/shared; never graph/, submit/ or
 * ui-format/: Execute submits (submit/submit-workflow) and hands the watcher the submit's answer.
 * No other helper folder calls it.
 *
 * Runs the items of Execute and Wait for Completion as cloud jobs followed by one watcher: the
 * operation checks every item before anything is sent, jobs run concurrently up to a limit, each
 * finished job becomes an output item paired with its input, and "Continue On Fail" is honoured per item.
 * Called as a tool, a job is waited for at most Tool Wait and left running after it, nothing is
 * downloaded, and the answer is compact (`tool-result.ts`).
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { checkedField } from '../../../shared/items/fields';
import { checkEachItem, errorForItem, failedItem, paired, type CheckedItems } from '../../../shared/items/items';
import { PUT_FILES_IN_FIELD, readResultFiles } from '../../../shared/binary/result-files';
import { readToolWaitMs, runsAsTool } from '../../../shared/tools/tool-use';
import { invalidField } from '../../../shared/items/validation';
import { ConcurrentItems, type Slots } from '../../../shared/items/concurrent-items';
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

export interface JobRunShape {
	/** Whether the node started the jobs (so stopping early cancels them on the cloud). */
	ownsJobs: boolean;
	/** How many items run at once. */
	concurrency: number;
}

/** What an item's job is given besides its watcher: the run's stop, and a way to hold a place on the cloud. */
export interface ItemTurn {
	/** Fires when the run has failed: an item not yet submitted gives up. */
	stop: AbortSignal;
	/**
	 * Takes a place of `slots` for the item, which the run gives back: once the job has ended
	 * (before its files are fetched), or once its failure has stopped the run, so that an item
	 * waiting for the place sees the stop and is not submitted.
	 */
	hold: (slots: Slots) => Promise<void>;
}

/** The job of one checked item, from submit (or follow) to its end, over the run's watcher. */
export type ItemJob<T> = (watcher: JobWatcher, itemIndex: number, checked: T, turn: ItemTurn) => Promise<FinishedJob>;

/**
 * A run of cloud jobs over one watcher: the operation starts it, runs every item through `item`
 * at once (`shape.concurrency` of them go on together), takes `results`, and closes it. Each
 * finished job becomes an output item paired with its input; an item that failed its check fails
 * there (on its own under Continue On Fail).
 */
export class JobRun<T> {
	private readonly items: ConcurrentItems;
	private startFailure?: { error: unknown };

	private constructor(
		private readonly context: IExecuteFunctions,
		private readonly settings: JobRunSettings,
		private readonly checked: CheckedItems<T>,
		readonly watcher: JobWatcher,
		concurrency: number,
	) {
		this.items = new ConcurrentItems(context, concurrency, { failed: failedJobItem, onFatal: () => watcher.abandon('failed') });
	}

	/** Opens the run's watcher (its socket), unless no item passed its check. */
	static async start<T>(
		context: IExecuteFunctions,
		settings: JobRunSettings,
		checked: CheckedItems<T>,
		shape: JobRunShape,
	): Promise<JobRun<T>> {
		const watcher = new JobWatcher(context, { ...settings.options, cancelOnAbandon: shape.ownsJobs });
		const run = new JobRun(context, settings, checked, watcher, shape.concurrency);
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

	/** One item: its job (`job`, when it passed its check) waited for in its turn, then its output item. */
	async item(itemIndex: number, job: ItemJob<T>): Promise<INodeExecutionData[]> {
		const leave = await this.items.enter();
		if (!leave) return [];
		const { passed, failures } = this.checked;
		const { asTool, options, waitFields, download } = this.settings;
		const held: Array<() => void> = [];
		const giveBack = () => held.splice(0).forEach((release) => release());
		const turn: ItemTurn = { stop: this.items.stop, hold: async (slots) => void held.push(await slots.take()) };
		try {
			if (!passed.has(itemIndex)) throw failures.get(itemIndex);
			if (this.startFailure) throw this.startFailure.error;
			let finished: FinishedJob;
			try {
				finished = await job(this.watcher, itemIndex, passed.get(itemIndex) as T, turn);
			} catch (error) {
				// Tool Wait is over: the tool answers "running", and the job goes on.
				if (!(asTool && isStillRunning(error))) throw errorForItem(this.context, error, itemIndex);
				return paired(
					[runningJobForTool(String((error as { context: IDataObject }).context.prompt_id), itemIndex, options.maxWaitMs)],
					itemIndex,
					this.context,
				);
			}
			// The job has ended: fetching its files holds no place on the cloud.
			giveBack();
			const additional = this.context.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
			const includeRawOutputs = checkedField(this.context, itemIndex, waitFields.includeRawOutputs, additional.includeRawOutputs) === true;
			try {
				if (asTool) return paired([await completedJobForTool(this.context, finished, itemIndex)], itemIndex, this.context);
				const result = { download, includePreview: options.includePreview, includeRawOutputs };
				return paired([await finishedJobItem(this.context, finished, itemIndex, result)], itemIndex, this.context);
			} catch (error) {
				// A file of a finished job could not be read: the failed item still names its job.
				throw asJobFailure(this.context.getNode(), { promptId: finished.promptId, itemIndex }, error, []);
			}
		} catch (error) {
			return this.items.fail(error, itemIndex);
		} finally {
			// After fail(): the run's first failure has fired the stop before another item can take the place.
			giveBack();
			leave();
		}
	}

	/** The output items in item order, or the run's first failure thrown (without Continue On Fail). */
	results(outputs: INodeExecutionData[][]): INodeExecutionData[] {
		return this.items.results(outputs);
	}

	/** Closes the watcher: its socket, and the cancelling of jobs it abandoned. */
	async close(): Promise<void> {
		await this.watcher.close();
	}
}

/**
 * Waits for jobs submitted earlier (one prompt_id per item) over one WebSocket. Their earlier
 * messages were never seen, so their outputs are read from the job record once they complete.
 * These jobs were started elsewhere: a cancelled execution or a failed item stops the wait only,
 * and Max Wait cancels (On Timeout) only one this execution submitted, unless `cancelStartedElsewhere`.
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
	const run = await JobRun.start(context, settings, checked, { ownsJobs: false, concurrency: items.length });
	try {
		const follow: ItemJob<string> = async (watcher, itemIndex, promptId) => await watcher.follow(promptId, itemIndex);
		return run.results(await Promise.all(items.map((_, itemIndex) => run.item(itemIndex, follow))));
	} finally {
		await run.close();
	}
}
