/**
 * graph/: the workflow graph and its inputs; this file is the folder's entry. workflow-graph.ts is
 * the model (API format) and imports nothing of Host Cloud, so ui-format/ and files/ may read it.
 * This file may call transport/, files/uploads (Input Images) and ui-format/convert (a pasted
 * UI-format workflow); `submit-workflow.ts` sends what it prepared; nothing in graph/ calls jobs/.
 *
 * Preparing the workflow a user runs (Execute, Submit, Convert to API Format): its parameters,
 * reading it (a UI-format workflow is converted with the server's node definitions) and checking
 * it before anything is sent, and uploading "Input Images" into LoadImage nodes.
 */
import type { IDataObject, IExecuteFunctions, ILoadOptionsFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { notForTools, runsAsTool } from '../../../shared/tools/tool-use';
import { checkedField, checkedOrDefault, fieldProperty, type FieldDefinition } from '../../../shared/items/fields';
import { invalidField, ownValue } from '../../../shared/items/validation';
import {
	applyInputOverrides,
	graphNodeChoices,
	hasKnownPartnerNodes,
	isImageLoader,
	parseWorkflowGraph,
	type GraphProblem,
	type InputOverride,
	type NodeDefinitions,
	type WorkflowGraph,
} from './workflow-graph';
import { nodeDefinitions } from './node-definitions';
import { convertUiWorkflow } from '../ui-format/convert';
import { binaryToUpload, loadImageValue, uploadBinary } from '../files/uploads';
import { JOB_TAG_KEY } from '../ownership/job-tag';

// The parameter keeps its name (`workflow`) so saved workflows keep working; it takes both formats now.
export const WORKFLOW_FIELD = 'Workflow';
export const OVERRIDES_FIELD = 'Set Inputs';
export const INPUT_IMAGES_FIELD = 'Input Images';

export const workflowProperty: INodeProperties = {
	displayName: WORKFLOW_FIELD,
	name: 'workflow',
	type: 'json',
	default: '',
	required: true,
	description:
		'The workflow to run, as the editor saves it (Workflow → Save or Export) or in API format (Workflow → Export (API)). Paste the file, or use an expression to take it from an earlier node.',
};

export const overridesProperty: INodeProperties = {
	displayName: OVERRIDES_FIELD,
	name: 'inputOverrides',
	type: 'fixedCollection',
	typeOptions: { multipleValues: true, sortable: true },
	placeholder: 'Add Input',
	default: {},
	description: 'Change inputs of the workflow (a prompt, a seed, a size...) without editing its JSON',
	options: [
		{
			displayName: 'Input',
			name: 'values',
			values: [
				{
					displayName: 'Node Name or ID',
					name: 'nodeId',
					type: 'options',
					typeOptions: { loadOptionsMethod: 'getWorkflowNodes', loadOptionsDependsOn: ['workflow'] },
					default: '',
					description:
						'The node whose input to set. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
				},
				{
					displayName: 'Input Name or ID',
					name: 'inputName',
					type: 'options',
					typeOptions: { loadOptionsMethod: 'getNodeInputs', loadOptionsDependsOn: ['workflow', '&nodeId'] },
					default: '',
					description:
						'The input to set, for example text, seed or steps. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
				},
				{
					displayName: 'Value',
					name: 'value',
					type: 'string',
					default: '',
					description: 'The new value. Numbers and true/false are converted to match what the input holds now.',
				},
				{
					displayName: 'Value From Server List Name or ID',
					name: 'listedValue',
					type: 'options',
					typeOptions: { loadOptionsMethod: 'getInputValues', loadOptionsDependsOn: ['workflow', '&nodeId', '&inputName'] },
					default: '',
					description:
						'For an input the server lists values for (a checkpoint, LoRA, sampler or scheduler): pick one of the server’s own values, used in place of Value. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
				},
			],
		},
	],
};

const inputImagesProperty: INodeProperties = {
	displayName: INPUT_IMAGES_FIELD,
	name: 'inputImages',
	type: 'fixedCollection',
	typeOptions: { multipleValues: true },
	placeholder: 'Add Input Image',
	default: {},
	description: 'Upload images from earlier nodes and load each into a Load Image node of the workflow',
	options: [
		{
			displayName: 'Image',
			name: 'values',
			values: [
				{
					displayName: 'Input Binary Field',
					name: 'binaryPropertyName',
					type: 'string',
					default: 'data',
					required: true,
					description: 'The binary property of the input item that holds the image',
				},
				{
					displayName: 'Load Image Node Name or ID',
					name: 'nodeId',
					type: 'options',
					typeOptions: { loadOptionsMethod: 'getImageLoaderNodes', loadOptionsDependsOn: ['workflow'] },
					default: '',
					description:
						'The Load Image node that should load the uploaded image (its image input is set to the uploaded file). Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
				},
			],
		},
	],
};

export const workflowProperties: INodeProperties[] = [workflowProperty, overridesProperty, inputImagesProperty];

export const PARTNER_KEY_FIELD = 'Partner Nodes API Key';

const EXTRA_DATA: FieldDefinition = {
	name: 'extraData',
	displayName: 'Extra Data (JSON)',
	kind: 'jsonObject',
	description: `Advanced: more fields for the extra_data object sent with the workflow. The key "${JOB_TAG_KEY}" is refused: the node sets it to say which n8n execution, workflow, node and item started the job.`,
};

const PARTNER_API_KEY: FieldDefinition = {
	name: 'partnerApiKey',
	displayName: PARTNER_KEY_FIELD,
	kind: 'options',
	options: [
		{
			name: 'Add When Needed',
			value: 'auto',
			description: 'Add it when the workflow has partner nodes (nodes that call external AI services)',
		},
		{ name: 'Always Add', value: 'always' },
		{ name: 'Never Add', value: 'never', description: 'Partner nodes will then fail with an insufficient funds error' },
	],
	default: 'auto',
	description:
		'Partner nodes are billed through your API key, sent as extra_data.api_key_host_org. The node finds them from the server’s node definitions. On a self-hosted server the key is the credential’s Platform API Key, sent as extra_data.api_key_comfy_org (the name upstream ComfyUI reads), and nothing is sent when it is empty.',
};

/** Fields of "Additional Fields" about the submit itself. */
export const submitFields: INodeProperties[] = [EXTRA_DATA, PARTNER_API_KEY].map(fieldProperty);

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
	const problem = applyInputOverrides(read.graph, overrides, OVERRIDES_FIELD);
	if (problem) throw operationError(context, itemIndex, problem.message, problem.hint);
	return read;
}

/** Reads the workflow, applies "Set Inputs" and checks "Input Images": nothing is submitted. */
export async function prepareWorkflow(context: IExecuteFunctions, itemIndex: number): Promise<PreparedWorkflow> {
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
	const partnerApiKey = checkedOrDefault(context, itemIndex, PARTNER_API_KEY, fields.partnerApiKey) as PreparedWorkflow['partnerApiKey'];
	const extraData = (checkedField(context, itemIndex, EXTRA_DATA, fields.extraData) ?? {}) as IDataObject;
	// Refused rather than overwritten: a user who set it expects it sent, and a tool's scope rests on it.
	if (Object.hasOwn(extraData, JOB_TAG_KEY)) {
		throw invalidField(
			context,
			itemIndex,
			EXTRA_DATA.displayName,
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
