import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { checkedOrDefault, fieldProperty, type FieldDefinition } from '../../../shared/items/fields';
import { oneOf } from '../../../shared/items/validation';
import { readPromptIdList } from '../../helpers/job-reports/prompt-id';
import { SERVER_CONTROLS_NOT_ON_V2, selfHostedServer } from '../../helpers/server/controls';
import { HISTORY_IDS, historyEntryJson, historyOf, MAX_HISTORY_ITEMS, recentHistory } from '../../helpers/server/history';
import { promptIdListProperty } from '../common.descriptions';

const OPERATION_NAME = 'Get History';
/** How many recent entries to read: a bound of their size, see MAX_HISTORY_ITEMS. */
const MAX_ITEMS: FieldDefinition = {
	name: 'maxItems',
	displayName: 'Max Items',
	kind: 'integer',
	min: 1,
	max: MAX_HISTORY_ITEMS,
	default: 20,
	description: `How many of the jobs that ended last to return, 1 to ${MAX_HISTORY_ITEMS} (each entry holds its whole workflow)`,
};
const SCOPES = ['recent', 'promptIds'] as const;

/** The status of an id the history does not hold: not a job word, since the job may not be over (or may never have run). */
const NOT_IN_HISTORY = 'not_in_history';
const NOT_IN_HISTORY_NOTE = 'The history has no such job: it is still queued or running, was deleted, or never ran on this server.';

const properties: INodeProperties[] = [
	{
		displayName: 'Jobs',
		name: 'scope',
		type: 'options',
		options: [
			{ name: 'Recent', value: 'recent', description: 'The jobs that ended last, whoever started them' },
			{ name: 'By Prompt ID', value: 'promptIds', description: 'The jobs with these prompt IDs' },
		],
		default: 'recent',
	},
	{ ...fieldProperty(MAX_ITEMS), displayOptions: { show: { scope: ['recent'] } } },
	promptIdListProperty(HISTORY_IDS, 'to read', { show: { scope: ['promptIds'] } }),
];

export const description = updateDisplayOptions({ show: { resource: ['server'], operation: ['getHistory'] } }, properties);

/** A self-hosted server's control, which the v2 API does not offer (`router.ts` refuses it there). */
export const notOnV2 = SERVER_CONTROLS_NOT_ON_V2;

/** Why a tool call cannot use this operation (it is hidden on the tool type, and refused). */
export const notAsTool =
	'Get History lists every job the server ran, whoever started it, with their files; a tool sees only the jobs its own workflow started (Get Status).';

/**
 * GET /api/history?max_items=N (the jobs that ended last, in the order they ended) or
 * GET /api/history/{prompt_id} for each id: one item per entry, in the package's job words with
 * its files and their links. An id the history does not hold gets an item that says so.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	await selfHostedServer(this, OPERATION_NAME, itemIndex);
	const scope = oneOf(this, itemIndex, 'Jobs', this.getNodeParameter('scope', itemIndex, 'recent'), SCOPES);
	if (scope === 'recent') {
		const maxItems = checkedOrDefault(this, itemIndex, MAX_ITEMS, this.getNodeParameter('maxItems', itemIndex, undefined)) as number;
		const { found } = await recentHistory(this, maxItems, itemIndex);
		return await Promise.all(found.map(async (entry) => ({ json: await historyEntryJson(this, entry, itemIndex) })));
	}
	const ids = readPromptIdList(this, itemIndex, HISTORY_IDS);
	const { found, missing } = await historyOf(this, ids, itemIndex);
	const items = new Map<string, INodeExecutionData>();
	for (const entry of found) items.set(entry[0], { json: await historyEntryJson(this, entry, itemIndex) });
	for (const promptId of missing) items.set(promptId, { json: { prompt_id: promptId, status: NOT_IN_HISTORY, note: NOT_IN_HISTORY_NOTE } });
	// In the order the ids were given.
	return ids.map((id) => items.get(id)!);
}
