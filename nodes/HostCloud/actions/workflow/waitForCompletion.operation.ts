import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { checkedOrDefault, fieldProperty, type FieldDefinition } from '../../../shared/items/fields';
import { describeToolAnswer } from '../../../shared/tools/tool-result';
import { CANCEL_STARTED_ELSEWHERE } from '../../helpers/job-reports/errors';
import { followJobs } from '../../helpers/jobs/run-jobs';
import { toolDescriptionProperty, toolWaitProperty } from '../../../shared/descriptions/tool-options';
import { checkEachItem } from '../../../shared/items/items';
import { readPromptId } from '../../helpers/job-reports/prompt-id';
import { readJobRunSettings } from '../../helpers/jobs/run-jobs';
import { v2RunSettingsOf, waitForV2Jobs } from '../../helpers/v2-jobs/run-v2-jobs';
import { apiGenerationOf } from '../../transport/v2-service';
import { promptIdProperty, downloadFilesProperties, rawOutputsProperty, waitProperties, WAIT_FIELDS } from '../common.descriptions';
import { V2_TOOL_SCOPE_LOST } from '../../transport/v2-service';

const TOOL_DESCRIPTION = `Waits for a Host Cloud job started earlier, given its prompt_id, and returns its output files (images, video or audio). ${describeToolAnswer(['prompt_id'], 'calling this tool again')}`;

/** A job given by prompt_id may be someone else's: Max Wait cancels it only if this execution submitted it, unless this is on. */
const CANCEL_ELSEWHERE: FieldDefinition = {
	name: 'cancelStartedElsewhere',
	displayName: CANCEL_STARTED_ELSEWHERE,
	kind: 'boolean',
	default: false,
	description:
		'Whether On Timeout "Cancel the Job" also cancels a job this execution did not submit (started by another execution or workflow, a script or a person). Off: only a job this execution submitted (with Submit) is cancelled at Max Wait; any other is left running.',
};

// Every item is followed at once (waiting costs the cloud nothing), so no concurrency limit here.
const properties: INodeProperties[] = [
	toolDescriptionProperty(TOOL_DESCRIPTION),
	promptIdProperty,
	toolWaitProperty(),
	...downloadFilesProperties,
	...waitProperties([rawOutputsProperty, fieldProperty(CANCEL_ELSEWHERE)], false),
];

export const description = updateDisplayOptions({ show: { resource: ['workflow'], operation: ['waitForCompletion'] } }, properties);

/** As a tool on v2: a v2 job names no workflow that started it, so the tool's scope cannot be kept (`router.ts` refuses it there). */
export const notAsToolOnV2 = V2_TOOL_SCOPE_LOST;

/**
 * Waits for jobs submitted earlier (one prompt_id per item) over one WebSocket; a cancelled
 * execution or a failed item stops the wait only (these jobs were started elsewhere), and Max Wait
 * cancels only a job this execution submitted unless Cancel Jobs Started Elsewhere is on.
 */
export async function executeAll(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const additional = this.getNodeParameter('additionalFields', 0, {}) as IDataObject;
	const cancelStartedElsewhere = checkedOrDefault(this, 0, CANCEL_ELSEWHERE, additional[CANCEL_ELSEWHERE.name]) as boolean;
	if (apiGenerationOf(this) === 'v2') return await waitOnV2(this, items, cancelStartedElsewhere);
	return await followJobs(this, items, WAIT_FIELDS, { cancelStartedElsewhere });
}

/**
 * On v2, by job id (GET /api/v2/jobs/{id}, its event stream to hear of the end sooner). A v2 job
 * carries no tag saying which execution submitted it, so Max Wait cancels one only when Cancel Jobs
 * Started Elsewhere is on (with On Timeout "Cancel the Job").
 */
async function waitOnV2(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
	cancelStartedElsewhere: boolean,
): Promise<INodeExecutionData[]> {
	const settings = v2RunSettingsOf(readJobRunSettings(context, WAIT_FIELDS));
	const checked = await checkEachItem(context, items.length, (itemIndex) => readPromptId(context, itemIndex));
	return await waitForV2Jobs(context, checked, items.length, {
		...settings,
		cancelAtMaxWait: settings.cancelOnTimeout && cancelStartedElsewhere,
	});
}
