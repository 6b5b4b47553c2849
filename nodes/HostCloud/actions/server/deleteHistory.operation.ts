import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { oneOf } from '../../../shared/items/validation';
import { readPromptIdList } from '../../helpers/job-reports/prompt-id';
import { SERVER_CONTROLS_NOT_ON_V2, selfHostedServer } from '../../helpers/server/controls';
import { HISTORY_IDS, historyOf, recentHistory } from '../../helpers/server/history';
import { deleteHistory } from '../../transport/cloud-api';
import { promptIdListProperty } from '../common.descriptions';

const OPERATION_NAME = 'Delete History';
const SCOPES = ['all', 'promptIds'] as const;

/**
 * How many entries "All" reads first, to say what it removed: the upstream server keeps at most
 * 10,000 entries, so this is all of them.
 */
const WHOLE_HISTORY = 10_000;

const properties: INodeProperties[] = [
	{
		displayName: 'Jobs',
		name: 'scope',
		type: 'options',
		options: [
			{ name: 'All', value: 'all', description: 'Clear the whole history, whoever started the jobs' },
			{ name: 'By Prompt ID', value: 'promptIds', description: 'Remove the entries of the jobs with these prompt IDs' },
		],
		default: 'promptIds',
	},
	promptIdListProperty(HISTORY_IDS, 'to remove from the history', { show: { scope: ['promptIds'] } }),
	{
		displayName:
			'This removes history entries without asking again. The output files stay on the server; jobs still queued or running are not touched.',
		name: 'deleteHistoryNotice',
		type: 'notice',
		default: '',
	},
];

export const description = updateDisplayOptions({ show: { resource: ['server'], operation: ['deleteHistory'] } }, properties);

/** A self-hosted server's control, which the v2 API does not offer (`router.ts` refuses it there). */
export const notOnV2 = SERVER_CONTROLS_NOT_ON_V2;

/** Why a tool call cannot use this operation (it is hidden on the tool type, and refused). */
export const notAsTool =
	'Delete History removes entries of jobs anyone started on the server, and it cannot be undone; an AI agent only reads the server (System Stats, List Models).';

/**
 * POST /api/history {delete: [...]} or {clear: true}. The history is read first, so the item says
 * which entries were removed (`deleted`) and which ids it did not hold (`not_in_history`); only
 * the ids it holds are sent. "All" clears even when the read found nothing: a job may end between.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	await selfHostedServer(this, OPERATION_NAME, itemIndex);
	const scope = oneOf(this, itemIndex, 'Jobs', this.getNodeParameter('scope', itemIndex, 'promptIds'), SCOPES);
	if (scope === 'all') {
		// The read only says what goes: a history too large (or too broken) to read is cleared all the same, and the item says so.
		const listed = await recentHistory(this, WHOLE_HISTORY, itemIndex).then(
			(history) => history,
			(error: Error) => ({ problem: error.message }),
		);
		await deleteHistory(this, { clear: true }, itemIndex);
		if ('problem' in listed)
			return [{ json: { cleared: true, deleted_not_listed: `What the history held could not be listed: ${listed.problem}` } }];
		const json: IDataObject = { cleared: true, deleted: listed.found.map(([promptId]) => promptId) };
		if (listed.skipped > 0) json.other_entries_deleted = listed.skipped;
		return [{ json }];
	}
	const ids = readPromptIdList(this, itemIndex, HISTORY_IDS);
	const { found, missing } = await historyOf(this, ids, itemIndex);
	const present = found.map(([promptId]) => promptId);
	// Nothing to remove: nothing is sent.
	if (present.length > 0) await deleteHistory(this, { delete: present }, itemIndex);
	return [{ json: { deleted: present, not_in_history: missing } }];
}
