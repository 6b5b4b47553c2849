import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runsAsTool } from '../../../shared/tools/tool-use';
import { thisWorkflow } from '../../helpers/ownership/job-tag';
import { NO_WORKFLOW_ID, ownQueue } from '../../helpers/ownership/own-jobs';
import { readQueue } from '../../transport/cloud-api';
import { clipText } from '../../../shared/transport/service-values';
import { isRecord, ownValue } from '../../../shared/items/validation';
import { toolDescriptionProperty } from '../../../shared/descriptions/tool-options';
import type { GenerationRefusal } from '../../transport/v2-service';

const properties: INodeProperties[] = [
	toolDescriptionProperty(
		'Lists the Host Cloud jobs that this workflow started and that are running or waiting in the queue: {"running_count", "pending_count", "running": [{"number", "prompt_id"}], "pending": [...], "other_jobs_not_listed"}. Jobs of the account started elsewhere are never listed, only counted.',
	),
];

export const description = updateDisplayOptions({ show: { resource: ['queue'], operation: ['get'] } }, properties);

/** The v2 API lists no jobs: there is no queue to read (`router.ts` refuses it there). */
export const notOnV2: GenerationRefusal = {
	why: 'the v2 API lists no jobs: there is no queue to read, only one job at a time by its id',
	instead: 'Keep the job_id that Submit or Execute answers, and read that job with Workflow → Get Status.',
};

/** Upstream's names of an entry's fields, in the order of its array: a server that sends objects names them so. */
const ENTRY_FIELDS = ['number', 'prompt_id', 'prompt', 'extra_data', 'outputs_to_execute'] as const;

/** An entry's fields in upstream's order: an array as it is, an object by their names; undefined for anything else. */
function fieldsOf(entry: unknown): unknown[] | undefined {
	if (Array.isArray(entry)) return entry;
	return isRecord(entry) ? ENTRY_FIELDS.map((name) => ownValue(entry, name)) : undefined;
}

/**
 * A queue entry as the local runner shapes it, `[number, prompt_id, prompt, extra_data, output
 * node ids]` (or an object naming those fields), becomes `{number, prompt_id, output_node_ids}`:
 * the graph is left out (it can be large), and so is extra_data, where a server shows the key of
 * whoever submitted the job. Nothing else of an entry is ever passed on.
 */
function entryOf(fields: unknown[]): IDataObject {
	const [number, promptId, , , outputNodeIds] = fields;
	return {
		number: typeof number === 'number' ? number : null,
		prompt_id: typeof promptId === 'string' ? clipText(promptId, 256) : null,
		// Node ids are short words: a list of them, each clipped, at most as many as a workflow has nodes.
		output_node_ids: Array.isArray(outputNodeIds)
			? outputNodeIds
					.filter((id): id is string | number => typeof id === 'string' || typeof id === 'number')
					.slice(0, MAX_OUTPUT_NODE_IDS)
					.map((id) => (typeof id === 'string' ? clipText(id, 64) : id))
			: [],
	};
}

/** More output nodes than any workflow has: the rest are left out. */
const MAX_OUTPUT_NODE_IDS = 1000;

/** A queue list's entries, reduced; an entry that is neither array nor object is left out and counted. */
function list(value: unknown, unreadable: { count: number }): IDataObject[] {
	const entries = (Array.isArray(value) ? value : []).map(fieldsOf);
	unreadable.count += entries.filter((fields) => fields === undefined).length;
	return entries.flatMap((fields) => (fields ? [entryOf(fields)] : []));
}

/** The answer's lists, and how many entries could not be read (said only when some could not). */
function queueItem(running: unknown, pending: unknown): IDataObject {
	const unreadable = { count: 0 };
	const lists = { running: list(running, unreadable), pending: list(pending, unreadable) };
	const json: IDataObject = { running_count: lists.running.length, pending_count: lists.pending.length, ...lists };
	if (unreadable.count > 0) json.unreadable_queue_entries = unreadable.count;
	return json;
}

/**
 * GET /api/queue: the account's running and pending jobs. A tool lists only the jobs its own
 * workflow started (by their tag), and counts the others without naming them.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const answer = await readQueue(this, { itemIndex, retry: true });
	if (!runsAsTool(this)) return [{ json: queueItem(answer?.queue_running, answer?.queue_pending) }];
	const workflow = thisWorkflow(this);
	const own = ownQueue(answer, workflow);
	const json = queueItem(own.running, own.pending);
	json.other_jobs_not_listed = own.leftOut;
	if (workflow.workflowId === undefined) json.note = NO_WORKFLOW_ID;
	return [{ json }];
}
