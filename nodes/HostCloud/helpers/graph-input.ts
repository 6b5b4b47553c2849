/**
 * The workflow a user runs (Execute and Submit): its parameters, reading and checking it before
 * anything is sent, uploading "Input Images" into LoadImage nodes, the partner-node API key, and
 * the submit itself (never re-sent automatically: a second POST would run the workflow twice).
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { errorForItem } from '../../shared/items';
import { hostCloudServer } from '../../shared/transport';
import { checkedField, checkedOrDefault, fieldProperty, type FieldDefinition } from '../../shared/fields';
import {
	applyInputOverrides,
	graphNodeChoices,
	hasKnownPartnerNodes,
	hasPartnerNodes,
	isImageLoader,
	parseWorkflowGraph,
	type ClassDefinition,
	type InputOverride,
	type WorkflowGraph,
} from './workflow-graph';
import { readNodeDefinitions, submitPrompt, type SubmitBody } from '../transport/cloud-api';
import { binaryToUpload, loadImageValue, uploadBinary } from './uploads';

export const WORKFLOW_FIELD = 'Workflow (API Format)';
export const OVERRIDES_FIELD = 'Set Inputs';
export const INPUT_IMAGES_FIELD = 'Input Images';

export const workflowProperties: INodeProperties[] = [
	{
		displayName: WORKFLOW_FIELD,
		name: 'workflow',
		type: 'json',
		default: '',
		required: true,
		description:
			'The workflow to run, exported in API format (in the editor: Workflow → Export (API)). Paste the file, or use an expression to take it from an earlier node.',
	},
	{
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
				],
			},
		],
	},
	{
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
	},
];

export const PARTNER_KEY_FIELD = 'Partner Nodes API Key';

const EXTRA_DATA: FieldDefinition = {
	name: 'extraData',
	displayName: 'Extra Data (JSON)',
	kind: 'jsonObject',
	description: 'Advanced: more fields for the extra_data object sent with the workflow',
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
		'Partner nodes are billed through your API key, sent as extra_data.api_key_host_org. The node finds them from the server’s node definitions. On a self-hosted server the key is the credential’s Platform API Key, and nothing is sent when it is empty.',
};

/** Fields of "Additional Fields" about the submit itself. */
export const submitFields: INodeProperties[] = [EXTRA_DATA, PARTNER_API_KEY].map(fieldProperty);

export interface PreparedWorkflow {
	graph: WorkflowGraph;
	images: Array<{ binaryPropertyName: string; nodeId: string }>;
	extraData: IDataObject;
	partnerApiKey: 'auto' | 'always' | 'never';
}

function operationError(context: IExecuteFunctions, itemIndex: number, message: string, description?: string): NodeOperationError {
	return new NodeOperationError(context.getNode(), message, { itemIndex, ...(description ? { description } : {}) });
}

/** Reads the graph, applies "Set Inputs" and checks "Input Images": no request is made. */
export function prepareWorkflow(context: IExecuteFunctions, itemIndex: number): PreparedWorkflow {
	const parsed = parseWorkflowGraph(context.getNodeParameter('workflow', itemIndex, ''), WORKFLOW_FIELD);
	if ('problem' in parsed) throw operationError(context, itemIndex, parsed.problem.message, parsed.problem.hint);
	const graph = parsed.graph;

	const overrides = (context.getNodeParameter('inputOverrides.values', itemIndex, []) as IDataObject[]).map((entry): InputOverride => ({
		nodeId: String(entry.nodeId ?? ''),
		inputName: String(entry.inputName ?? ''),
		value: entry.value ?? '',
	}));
	const problem = applyInputOverrides(graph, overrides, OVERRIDES_FIELD);
	if (problem) throw operationError(context, itemIndex, problem.message, problem.hint);

	const images = (context.getNodeParameter('inputImages.values', itemIndex, []) as IDataObject[]).map((entry, position) => {
		const where = `${INPUT_IMAGES_FIELD} (entry ${position + 1})`;
		const nodeId = String(entry.nodeId ?? '').trim();
		const binaryPropertyName = String(entry.binaryPropertyName ?? 'data').trim();
		if (nodeId === '')
			throw operationError(context, itemIndex, `${where} has no Load Image node`, 'Pick the Load Image node that should load the image.');
		const node = graph[nodeId];
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

/** Node definitions read once per node run, only when a workflow may need them. */
const definitionsByRun = new WeakMap<object, Promise<Record<string, ClassDefinition> | undefined>>();

function definitionsFor(context: IExecuteFunctions, itemIndex: number): Promise<Record<string, ClassDefinition> | undefined> {
	let definitions = definitionsByRun.get(context);
	if (!definitions) {
		definitions = (readNodeDefinitions(context, itemIndex) as Promise<Record<string, ClassDefinition>>).catch((error: unknown) => {
			// Without definitions the fallback list decides; a wrong key fails at the submit anyway.
			context.logger?.warn?.(`Host Cloud: could not read node definitions to find partner nodes: ${(error as Error).message}`);
			return undefined;
		});
		definitionsByRun.set(context, definitions);
	}
	return definitions;
}

/** Starts reading the node definitions now when a workflow will need them, so it overlaps other set-up. */
export function readDefinitionsEarly(context: IExecuteFunctions, workflows: PreparedWorkflow[]): void {
	if (workflows.some((workflow) => workflow.partnerApiKey === 'auto' && !hasKnownPartnerNodes(workflow.graph))) {
		void definitionsFor(context, 0);
	}
}

/** Whether extra_data must carry the platform key (the workflow has partner nodes). */
export async function needsPartnerKey(context: IExecuteFunctions, prepared: PreparedWorkflow, itemIndex: number): Promise<boolean> {
	if (prepared.partnerApiKey !== 'auto') return prepared.partnerApiKey === 'always';
	if (hasKnownPartnerNodes(prepared.graph)) return true;
	return hasPartnerNodes(prepared.graph, await definitionsFor(context, itemIndex));
}

/** POST /api/prompt. Never retried: a second POST could run the workflow twice. */
export async function submitWorkflow(
	context: IExecuteFunctions,
	prepared: PreparedWorkflow,
	itemIndex: number,
	clientId?: string,
): Promise<{ prompt_id: string } & IDataObject> {
	const extraData: IDataObject = { ...prepared.extraData };
	delete extraData.api_key_host_org;
	// A self-hosted server gets a key only when the credential has one: nothing is injected otherwise.
	const { partnerKey } = await hostCloudServer(context, itemIndex);
	if (partnerKey && (await needsPartnerKey(context, prepared, itemIndex))) extraData.api_key_host_org = partnerKey;
	const body: SubmitBody = { prompt: prepared.graph as unknown as IDataObject, extra_data: extraData };
	if (clientId) body.client_id = clientId;
	let answer: IDataObject;
	try {
		answer = await submitPrompt(context, body, itemIndex);
	} catch (error) {
		if (error instanceof NodeApiError && (!error.httpCode || Number(error.httpCode) >= 500)) {
			error.description = `${error.description ? `${error.description} ` : ''}The workflow was not sent again automatically, so it cannot run twice. Check the queue (Queue → Get) before running again.`;
		}
		throw errorForItem(context, error, itemIndex);
	}
	const promptId = answer?.prompt_id;
	if (typeof promptId !== 'string' || promptId === '') {
		throw operationError(
			context,
			itemIndex,
			'The service accepted the workflow but did not return a prompt_id',
			'Check the queue (Queue → Get): the job may be there.',
		);
	}
	return { ...answer, prompt_id: promptId };
}
