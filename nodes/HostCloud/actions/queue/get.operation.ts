import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runsAsTool } from '../../../shared/tools/tool-use';
import { thisWorkflow } from '../../helpers/ownership/job-tag';
import { NO_WORKFLOW_ID, ownQueue } from '../../helpers/ownership/own-jobs';
import { readQueue } from '../../transport/cloud-api';
import { clipText, clipTextsDeep } from '../../../shared/transport/service-values';
import { toolDescriptionProperty } from '../../../shared/descriptions/tool-options';

const properties: INodeProperties[] = [
	toolDescriptionProperty(
		'Lists the Host Cloud jobs that this workflow started and that are running or waiting in the queue: {"running_count", "pending_count", "running": [{"number", "prompt_id"}], "pending": [...], "other_jobs_not_listed"}. Jobs of the account started elsewhere are never listed, only counted.',
	),
];

export const description = updateDisplayOptions({ show: { resource: ['queue'], operation: ['get'] } }, properties);

/**
 * A queue entry as the local runner shapes it, `[number, prompt_id, prompt, extra_data, output
 * node ids]`, becomes `{number, prompt_id, output_node_ids}` (the graph is left out: it can be
 * large). Entries of another shape are passed on as they are.
 */
function entryOf(entry: unknown): IDataObject {
	// Another shape is passed on with its texts clipped: what the service says never floods the item.
	if (!Array.isArray(entry)) return clipTextsDeep((typeof entry === 'object' && entry !== null ? entry : { value: entry }) as IDataObject);
	const [number, promptId, , , outputNodeIds] = entry as unknown[];
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

function list(value: unknown): IDataObject[] {
	return Array.isArray(value) ? value.map(entryOf) : [];
}

/**
 * GET /api/queue: the account's running and pending jobs. A tool lists only the jobs its own
 * workflow started (by their tag), and counts the others without naming them.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const answer = await readQueue(this, { itemIndex, retry: true });
	if (!runsAsTool(this)) {
		const running = list(answer?.queue_running);
		const pending = list(answer?.queue_pending);
		return [{ json: { running_count: running.length, pending_count: pending.length, running, pending } }];
	}
	const workflow = thisWorkflow(this);
	const own = ownQueue(answer, workflow);
	const running = list(own.running);
	const pending = list(own.pending);
	const json: IDataObject = { running_count: running.length, pending_count: pending.length, running, pending };
	json.other_jobs_not_listed = own.leftOut;
	if (workflow.workflowId === undefined) json.note = NO_WORKFLOW_ID;
	return [{ json }];
}
