import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { workflowWithInputs } from '../../helpers/submit/prepare-workflow';
import { conversionNotes } from '../../helpers/graph/workflow-graph';
import { toolDescriptionProperty } from '../../../shared/descriptions/tool-options';
import { overridesProperty, workflowProperty } from '../common.descriptions';
import { WITHOUT_NODE_DEFINITIONS, type GenerationRefusal } from '../../transport/v2-service';

const TOOL_DESCRIPTION =
	'Returns the Host Cloud workflow this tool is set up with, in API format (each node id with its class_type and inputs), without running it: shows which inputs the workflow has. Nothing is generated or paid for.';

const properties: INodeProperties[] = [toolDescriptionProperty(TOOL_DESCRIPTION), workflowProperty, overridesProperty];

export const description = updateDisplayOptions({ show: { resource: ['workflow'], operation: ['convert'] } }, properties);

/** Converting needs node definitions, which the v2 API does not publish (`router.ts` refuses it there). */
export const notOnV2: GenerationRefusal = {
	why: 'converting a UI-format workflow needs the server’s node definitions, which the v2 API does not publish',
	instead: WITHOUT_NODE_DEFINITIONS,
};

/**
 * The workflow in API format without running it: a UI-format workflow converted with the server's
 * node definitions, Set Inputs applied. Users inspect it, or pass `workflow` on to another node;
 * `notes` say what the conversion assumed (nodes not sent, values skipped, instances rebound, ids
 * renumbered), so a user can see why the server gets what it gets.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const { graph, converted } = await workflowWithInputs(this, itemIndex);
	return [{ json: { workflow: graph, converted, node_count: Object.keys(graph).length, notes: conversionNotes(graph) } }];
}
