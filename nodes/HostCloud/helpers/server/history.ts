/**
 * A self-hosted server's history, as Get History and Delete History read it: entries of chosen
 * jobs (one GET /history/{prompt_id} each) or of the jobs that ended last (GET /history?max_items),
 * and each entry in the package's job words (`recordFromHistory`: completed, failed, cancelled)
 * with its output files and their links, as Execute lists them.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { placeOf } from '../../../../credentials/cloud-server';
import { clipTextsDeep } from '../../../shared/transport/service-values';
import { isRecord } from '../../../shared/items/validation';
import { readHistory, readRecentHistory } from '../../transport/cloud-api';
import { describeExecutionError, errorInfoFrom } from '../job-reports/execution-errors';
import { historyEntryOf, recordFromHistory } from '../job-reports/lookup';
import type { PromptIdList } from '../job-reports/prompt-id';
import { filesItem } from '../job-reports/files-item';
import { usablePromptId } from '../ownership/own-jobs';

/**
 * The most entries one read asks for. Each entry holds its whole workflow (tens of KiB for an
 * ordinary one), so 500 stay well within the 64 MiB an answer may be; each becomes an item.
 */
export const MAX_HISTORY_ITEMS = 500;

/** The most prompt_ids one item may name: each is one read of the history. */
export const MAX_HISTORY_IDS = 100;

/** The Prompt IDs field of Get History and Delete History (shown when they act on chosen jobs). */
export const HISTORY_IDS: PromptIdList = {
	name: 'promptIds',
	field: 'Prompt IDs',
	whereToFind: 'Get History with "Recent" lists the jobs that ended last.',
	max: MAX_HISTORY_IDS,
};

export type HistoryEntry = [promptId: string, entry: IDataObject];

/**
 * The entries of the chosen jobs that the history holds, and the ids it does not hold (queued,
 * running, deleted or unknown: an empty answer). An answer about other jobs only fails the item.
 */
export async function historyOf(
	context: IExecuteFunctions,
	promptIds: string[],
	itemIndex: number,
): Promise<{ found: HistoryEntry[]; missing: string[] }> {
	const found: HistoryEntry[] = [];
	const missing: string[] = [];
	for (const promptId of promptIds) {
		const entry = historyEntryOf(context, await readHistory(context, promptId, { itemIndex }), promptId, itemIndex);
		if (entry) found.push([promptId, entry]);
		else missing.push(promptId);
	}
	return { found, missing };
}

/**
 * The entries of the `maxItems` jobs that ended last, in the order they ended, and how many
 * entries were keyed by no usable prompt_id (skipped: no operation could name them).
 */
export async function recentHistory(
	context: IExecuteFunctions,
	maxItems: number,
	itemIndex: number,
): Promise<{ found: HistoryEntry[]; skipped: number }> {
	const answer = await readRecentHistory(context, maxItems, { itemIndex });
	const found: HistoryEntry[] = [];
	let skipped = 0;
	for (const [promptId, entry] of Object.entries(answer)) {
		if (usablePromptId(promptId) && isRecord(entry)) found.push([promptId, entry as IDataObject]);
		else skipped++;
	}
	return { found, skipped };
}

/** One entry as an item: prompt_id, status, the output files with their links, and a failure's words. */
export async function historyEntryJson(
	context: IExecuteFunctions,
	[promptId, entry]: HistoryEntry,
	itemIndex: number,
): Promise<IDataObject> {
	const record = recordFromHistory(entry);
	const outputs = isRecord(record.outputs) ? record.outputs : {};
	const files = await filesItem(context, outputs, itemIndex, promptId, undefined);
	const json: IDataObject = { prompt_id: promptId, status: record.status, ...files.json };
	if (isRecord(record.execution_error)) {
		const error = errorInfoFrom(record.execution_error);
		// The server's words are clipped (errorInfoFrom keeps 1000 characters of the exception) and the class name too.
		json.error = clipTextsDeep({ message: describeExecutionError(promptId, error, placeOf('selfHosted')).message, ...error });
	}
	return json;
}
