/**
 * submit/: the workflow a user runs, from its parameters to the server's answer; this file is the
 * folder's entry. It is its own folder because it is the one place that ties the others together:
 * it reads the graph model (graph/), converts a pasted UI-format workflow (ui-format/convert, the
 * only caller of ui-format/), uploads Input Images (files/uploads) and tags the submit
 * (ownership/), while graph/, ui-format/ and files/ call none of it. It may call transport/ and
 * nodes/shared too; never jobs/: Execute hands the watcher what `submit-workflow.ts` answered.
 *
 * Preparing the workflow a user runs (Execute, Submit, Convert to API Format): reading its
 * parameters (declared in actions/common.descriptions.ts), reading it (a UI-format workflow is converted with the server's node definitions) and checking
 * it before anything is sent, and uploading "Input Images" into LoadImage nodes.
 */
import type { IDataObject, IExecuteFunctions, ILoadOptionsFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { notForTools, runsAsTool } from '../../../shared/tools/tool-use';
import { checkedField, checkedOrDefault, fieldLabel, type FieldDefinition } from '../../../shared/items/fields';
import { invalidField, ownValue } from '../../../shared/items/validation';
import { applyInputOverrides, type InputOverride } from '../graph/input-overrides';
import { graphNodeChoices } from '../graph/node-choices';
import { hasKnownPartnerNodes, type NodeDefinitions } from '../graph/class-definitions';
import { isImageLoader, parseWorkflowGraph, type GraphProblem, type WorkflowGraph } from '../graph/workflow-graph';
import { nodeDefinitions } from '../graph/node-definitions';
import { convertUiWorkflow } from '../ui-format/convert';
import { binaryToUpload, loadImageValue, uploadBinary } from '../files/uploads';
import { JOB_TAG_KEY } from '../ownership/job-tag';
import { apiGenerationOf } from '../../transport/v2-service';

// The parameter keeps its name (`workflow`) so saved workflows keep working; it takes both formats now.
export const WORKFLOW_FIELD = 'Workflow';
export const OVERRIDES_FIELD = 'Set Inputs';
export const INPUT_IMAGES_FIELD = 'Input Images';

export const PARTNER_KEY_FIELD = 'Partner Nodes API Key';

/** The submit's fields of the operation's form (`actions/common.descriptions.ts`), as `prepareWorkflow` checks them. */
export interface SubmitFields {
	extraData: FieldDefinition;
	partnerApiKey: FieldDefinition;
}

export interface PreparedWorkflow {
	graph: WorkflowGraph;
	images: Array<{ binaryPropertyName: string; nodeId: string }>;
	extraData: IDataObject;
	partnerApiKey: 'auto' | 'always' | 'never';
}

export function operationError(context: IExecuteFunctions, itemIndex: number, message: string, description?: string): NodeOperationError {
	return new NodeOperationError(context.getNode(), message, { itemIndex, ...(description ? { description } : {}) });
}

/** A workflow read from the Workflow field: an API-format graph, and whether it was converted from the UI format. */
export interface FieldWorkflow {
	graph: WorkflowGraph;
	converted: boolean;
}

/**
 * Reads the Workflow field's value. A UI-format workflow is converted with the server's node
 * definitions (read once per run); an API-format one is only checked.
 */
export async function readWorkflowField(
	context: IExecuteFunctions | ILoadOptionsFunctions,
	value: unknown,
	itemIndex = 0,
): Promise<FieldWorkflow | { problem: GraphProblem }> {
	const parsed = parseWorkflowGraph(value, WORKFLOW_FIELD);
	if (!('uiWorkflow' in parsed)) return 'graph' in parsed ? { graph: parsed.graph, converted: false } : parsed;
	let definitions: NodeDefinitions;
	try {
		definitions = await nodeDefinitions(context, itemIndex);
	} catch (error) {
		return {
			problem: {
				message: `${WORKFLOW_FIELD} is in UI format, and the server's node definitions, needed to convert it, could not be read: ${(error as Error).message}`,
				hint: 'Check the credential and the server, or export the workflow in API format (Workflow → Export (API)).',
			},
		};
	}
	const converted = convertUiWorkflow(parsed.uiWorkflow, definitions, WORKFLOW_FIELD);
	return 'graph' in converted ? { graph: converted.graph, converted: true } : converted;
}

/** The item's workflow with "Set Inputs" applied: nothing is sent (a UI-format workflow costs one read of the definitions). */
export async function workflowWithInputs(context: IExecuteFunctions, itemIndex: number): Promise<FieldWorkflow> {
	const read = await readWorkflowField(context, context.getNodeParameter('workflow', itemIndex, ''), itemIndex);
	if ('problem' in read) throw operationError(context, itemIndex, read.problem.message, read.problem.hint);
	const overrides = (context.getNodeParameter('inputOverrides.values', itemIndex, []) as IDataObject[]).map((entry): InputOverride => ({
		nodeId: String(entry.nodeId ?? ''),
		inputName: String(entry.inputName ?? ''),
		value: entry.value ?? '',
		listedValue: entry.listedValue ?? '',
	}));
	const problem = applyInputOverrides(read.graph, overrides, OVERRIDES_FIELD, { assets: apiGenerationOf(context, itemIndex) === 'v2' });
	if (problem) throw operationError(context, itemIndex, problem.message, problem.hint);
	return read;
}

/** Reads the workflow, applies "Set Inputs" and checks "Input Images": nothing is submitted. */
export async function prepareWorkflow(
	context: IExecuteFunctions,
	itemIndex: number,
	submitFields: SubmitFields,
): Promise<PreparedWorkflow> {
	const { graph } = await workflowWithInputs(context, itemIndex);
	const entries = context.getNodeParameter('inputImages.values', itemIndex, []) as IDataObject[];
	// Refused rather than hidden on the tool node: a hidden setting would be dropped, and the job run with the graph's own image.
	if (entries.length > 0 && runsAsTool(context)) {
		throw notForTools(
			context,
			itemIndex,
			`${INPUT_IMAGES_FIELD} take images from the binary data of earlier nodes, and a tool call brings no files. Let the workflow load the image from a URL the model gives (Set Inputs with $fromAI on a node that loads an image from a URL).`,
		);
	}
	const images = entries.map((entry, position) => {
		const where = `${INPUT_IMAGES_FIELD} (entry ${position + 1})`;
		const nodeId = String(entry.nodeId ?? '').trim();
		const binaryPropertyName = String(entry.binaryPropertyName ?? 'data').trim();
		if (nodeId === '')
			throw operationError(context, itemIndex, `${where} has no Load Image node`, 'Pick the Load Image node that should load the image.');
		const node = ownValue(graph, nodeId);
		if (!node) throw operationError(context, itemIndex, `${where}: the workflow has no node "${nodeId}"`, loaderHint(graph));
		if (!isImageLoader(node)) {
			throw operationError(
				context,
				itemIndex,
				`${where}: node "${nodeId}" is a ${node.class_type}, not a Load Image node`,
				loaderHint(graph),
			);
		}
		binaryToUpload(context, itemIndex, binaryPropertyName, `${where} → Input Binary Field`);
		return { binaryPropertyName, nodeId };
	});

	const fields = context.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const partnerApiKey = checkedOrDefault(
		context,
		itemIndex,
		submitFields.partnerApiKey,
		fields.partnerApiKey,
	) as PreparedWorkflow['partnerApiKey'];
	const extraData = (checkedField(context, itemIndex, submitFields.extraData, fields.extraData) ?? {}) as IDataObject;
	// Refused rather than overwritten: a user who set it expects it sent, and a tool's scope rests on it.
	if (Object.hasOwn(extraData, JOB_TAG_KEY)) {
		throw invalidField(
			context,
			itemIndex,
			fieldLabel(submitFields.extraData),
			`may not hold the key "${JOB_TAG_KEY}"`,
			`The node sets extra_data.${JOB_TAG_KEY} itself (which n8n execution, workflow, node and item started the job). Use another key.`,
		);
	}
	return { graph, images, extraData: { ...extraData }, partnerApiKey };
}

function loaderHint(graph: WorkflowGraph): string {
	const loaders = graphNodeChoices(graph, isImageLoader).map((choice) => choice.name);
	return loaders.length
		? `Load Image nodes of this workflow: ${loaders.join(', ')}.`
		: 'This workflow has no Load Image node. Add one in the editor and export the workflow again.';
}

/** Uploads the item's "Input Images" and points their Load Image nodes at the uploaded files. */
export async function uploadInputImages(context: IExecuteFunctions, prepared: PreparedWorkflow, itemIndex: number): Promise<void> {
	for (const image of prepared.images) {
		const uploaded = await uploadBinary(context, itemIndex, {
			binaryPropertyName: image.binaryPropertyName,
			field: INPUT_IMAGES_FIELD,
			type: 'input',
			overwrite: true,
		});
		prepared.graph[image.nodeId].inputs.image = loadImageValue(uploaded);
	}
}

/** Starts reading the node definitions now when a workflow will need them, so it overlaps other set-up. */
export function readDefinitionsEarly(context: IExecuteFunctions, workflows: PreparedWorkflow[]): void {
	if (workflows.some((workflow) => workflow.partnerApiKey === 'auto' && !hasKnownPartnerNodes(workflow.graph))) {
		void nodeDefinitions(context, 0);
	}
}
