/**
 * The editor's dropdowns of Set Inputs and Input Images (the nodes and inputs of the workflow
 * pasted into the Workflow field), and of List Models (the server's model folders). An API-format workflow is read from the field alone; a UI-format
 * one is converted first (with the server's node definitions, read once per listing), so the lists
 * show the nodes as they are sent, with their titles. On the v2 API, which publishes no node
 * definitions and has no model folders, a list that needs them says so and what to do instead.
 */
import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { readWorkflowField, WORKFLOW_FIELD } from '../helpers/submit/prepare-workflow';
import { nodeDefinitions } from '../helpers/graph/node-definitions';
import { graphInputChoices, graphNodeChoices, listedInputValues } from '../helpers/graph/node-choices';
import { isImageLoader, parseWorkflowGraph, type WorkflowGraph } from '../helpers/graph/workflow-graph';
import { namesOf, selfHostedServer } from '../helpers/server/controls';
import { modelFilesForInput } from '../helpers/server/model-folders';
import { ownValue } from '../../shared/items/validation';
import { readModelFolders } from '../transport/cloud-api';
import { apiGenerationOf, PICK_V1, WITHOUT_NODE_DEFINITIONS } from '../transport/v2-service';

/** On the v2 API, the error of a list that needs what v2 does not have (node definitions, model folders); nothing is read. */
function refuseOnV2(context: ILoadOptionsFunctions, list: string, why: string, instead: string): void {
	if (apiGenerationOf(context) !== 'v2') return;
	throw new NodeOperationError(context.getNode(), `${list} cannot be listed on the v2 API: ${why}. ${instead}`);
}

async function graphForOptions(context: ILoadOptionsFunctions): Promise<WorkflowGraph> {
	const value = context.getCurrentNodeParameter('workflow');
	if (typeof value === 'string' && value.startsWith('=')) {
		throw new NodeOperationError(
			context.getNode(),
			'The workflow comes from an expression, so its nodes cannot be listed here: enter the ID with an expression instead',
		);
	}
	if ('uiWorkflow' in parseWorkflowGraph(value, WORKFLOW_FIELD))
		refuseOnV2(
			context,
			'The nodes of a UI-format workflow',
			'converting it needs node definitions, which the v2 API does not publish',
			WITHOUT_NODE_DEFINITIONS,
		);
	const read = await readWorkflowField(context, value);
	if ('problem' in read) {
		throw new NodeOperationError(context.getNode(), `${read.problem.message}. Fix it to list the workflow's nodes here.`);
	}
	return read.graph;
}

export async function getWorkflowNodes(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return graphNodeChoices(await graphForOptions(this));
}

export async function getImageLoaderNodes(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return graphNodeChoices(await graphForOptions(this), isImageLoader);
}

export async function getNodeInputs(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const nodeId = String(this.getCurrentNodeParameter('&nodeId') ?? '');
	return graphInputChoices(await graphForOptions(this), nodeId);
}

/** Set Inputs → Value From Server List: the values the server's node definition lists for the chosen input. */
export async function getInputValues(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	refuseOnV2(
		this,
		'The values of an input',
		'they come from node definitions, which the v2 API does not publish',
		'Type the value in Value instead.',
	);
	const nodeId = String(this.getCurrentNodeParameter('&nodeId') ?? '');
	const inputName = String(this.getCurrentNodeParameter('&inputName') ?? '');
	if (!nodeId || !inputName)
		throw new NodeOperationError(this.getNode(), 'Pick the node and the input first: their values are listed here');
	const node = ownValue(await graphForOptions(this), nodeId);
	if (!node) throw new NodeOperationError(this.getNode(), `The workflow has no node "${nodeId}"`);
	const definitions = await nodeDefinitions(this);
	const listed = listedInputValues(ownValue(definitions, node.class_type), inputName);
	// Where the definitions list nothing, a self-hosted server's model folder of that input may.
	const fromFolder = listed ? undefined : await modelFilesForInput(this, inputName);
	const values = listed ?? fromFolder?.files;
	if (!values) {
		throw new NodeOperationError(
			this.getNode(),
			`The server lists no values for input "${inputName}" of node ${nodeId} (${node.class_type}): type its value in Value instead`,
		);
	}
	const current = node.inputs[inputName];
	const source = fromFolder ? `In the server's ${fromFolder.folder} folder` : undefined;
	return values.map((value) => {
		const description = [value === current ? 'Now in the workflow' : undefined, source].filter(Boolean).join('; ');
		return { name: value, value, ...(description ? { description } : {}) };
	});
}

/** List Models → Folder: the model folders the self-hosted server has (GET /api/models). */
export async function getModelFolders(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	refuseOnV2(
		this,
		'Model folders',
		'they belong to a self-hosted server (List Models), which the v2 API does not offer',
		`Use a Host Cloud API credential (${PICK_V1}) whose Server is "Self-Hosted".`,
	);
	await selfHostedServer(this, 'List Models');
	return namesOf(this, await readModelFolders(this), 'listing the model folders').names.map((folder) => ({ name: folder, value: folder }));
}
