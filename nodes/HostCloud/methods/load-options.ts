/**
 * The editor's dropdowns of Set Inputs and Input Images: the nodes and inputs of the workflow
 * pasted into the Workflow field (read from the field, never from the service).
 */
import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { WORKFLOW_FIELD } from '../helpers/graph-input';
import { graphInputChoices, graphNodeChoices, isImageLoader, parseWorkflowGraph, type WorkflowGraph } from '../helpers/workflow-graph';

function graphForOptions(context: ILoadOptionsFunctions): WorkflowGraph {
	const value = context.getCurrentNodeParameter('workflow');
	if (typeof value === 'string' && value.startsWith('=')) {
		throw new NodeOperationError(
			context.getNode(),
			'The workflow comes from an expression, so its nodes cannot be listed here: enter the ID with an expression instead',
		);
	}
	const parsed = parseWorkflowGraph(value, WORKFLOW_FIELD);
	if ('problem' in parsed) {
		throw new NodeOperationError(context.getNode(), `${parsed.problem.message}. Fix it to list the workflow's nodes here.`);
	}
	return parsed.graph;
}

export async function getWorkflowNodes(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return graphNodeChoices(graphForOptions(this));
}

export async function getImageLoaderNodes(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	return graphNodeChoices(graphForOptions(this), isImageLoader);
}

export async function getNodeInputs(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const nodeId = String(this.getCurrentNodeParameter('&nodeId') ?? '');
	return graphInputChoices(graphForOptions(this), nodeId);
}
