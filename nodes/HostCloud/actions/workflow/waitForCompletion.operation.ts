import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { describeToolAnswer } from '../../../shared/tools/tool-result';
import { followJobs } from '../../helpers/jobs/run-jobs';
import { toolDescriptionProperty, toolWaitProperty } from '../../../shared/descriptions/tool-options';
import { promptIdProperty, downloadFilesProperties, rawOutputsProperty, waitProperties, WAIT_FIELDS } from '../common.descriptions';

const TOOL_DESCRIPTION = `Waits for a Host Cloud job started earlier, given its prompt_id, and returns its output files (images, video or audio). ${describeToolAnswer(['prompt_id'], 'calling this tool again')}`;

// Every item is followed at once (waiting costs the cloud nothing), so no concurrency limit here.
const properties: INodeProperties[] = [
	toolDescriptionProperty(TOOL_DESCRIPTION),
	promptIdProperty,
	toolWaitProperty(),
	...downloadFilesProperties,
	...waitProperties([rawOutputsProperty], false),
];

export const description = updateDisplayOptions({ show: { resource: ['workflow'], operation: ['waitForCompletion'] } }, properties);

/**
 * Waits for jobs submitted earlier (one prompt_id per item) over one WebSocket; a cancelled
 * execution or a failed item stops the wait only (these jobs were started elsewhere).
 */
export async function executeAll(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	return await followJobs(this, items, WAIT_FIELDS);
}
