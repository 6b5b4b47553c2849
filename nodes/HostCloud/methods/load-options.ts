/**
 * The editor's dropdowns of Set Inputs and Input Images: the nodes and inputs of the workflow
 * pasted into the Workflow field. An API-format workflow is read from the field alone; a UI-format
 * one is converted first (with the server's node definitions, read once per listing), so the lists
 * show the nodes as they are sent, with their titles.
 */
import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { readWorkflowField } from '../helpers/graph-input';
import { graphInputChoices, graphNodeChoices, isImageLoader, type WorkflowGraph } from '../helpers/workflow-graph';

async function graphForOptions(context: ILoadOptionsFunctions): Promise<WorkflowGraph> {
	const value = context.getCurrentNodeParameter('workflow');
	if (typeof value === 'string' && value.startsWith('=')) {
		throw new NodeOperationError(
			context.getNode(),
			'The workflow comes from an expression, so its nodes cannot be listed here: enter the ID with an expression instead',
		);
	}
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
