/**
 * graph/: the workflow graph model (API format) and the server's node definitions; this file is
 * the folder's entry. Every file but `node-definitions.ts` (which reads the definitions from the
 * server through transport/) is pure and imports nothing of Host Cloud but graph/, so ui-format/,
 * files/ and submit/ may all read it; graph/ calls no other helper folder.
 *
 * Workflow graphs in API format (node id → {class_type, inputs}; a link is [node id, output
 * index]): reading one from a node parameter (a UI-format workflow is handed on to ui-format/
 * to be converted), refusing malformed graphs before anything is sent, and the nodes Input Images
 * go to. Setting inputs is `input-overrides.ts`; dropdowns of nodes and inputs `node-choices.ts`;
 * what the definitions say of a class, and partner nodes, `class-definitions.ts`.
 * Pure functions: the node turns a `GraphProblem` into an error that names its field.
 */
import { JSON_LIMITS, jsonValueProblem, readJson } from '../../../shared/transport/json-reader';
import { isRecord } from '../../../shared/items/validation';

export interface GraphNode {
	class_type: string;
	inputs: Record<string, unknown>;
	_meta?: { title?: string };
	[key: string]: unknown;
}

export type WorkflowGraph = Record<string, GraphNode>;

/** What is wrong, in words for the user, and what to do about it. */
export interface GraphProblem {
	message: string;
	hint?: string;
}

export type GraphResult = { graph: WorkflowGraph } | { problem: GraphProblem };

/** A parameter's workflow: an API-format graph, a UI-format workflow still to convert, or what is wrong. */
export type WorkflowInput = GraphResult | { uiWorkflow: Record<string, unknown> };

/*
 * What the conversion of a UI-format workflow assumed, for Convert to API Format to show. It rides
 * with the graph object itself, so it reaches the operation along the graph's own path.
 */
const notesByGraph = new WeakMap<WorkflowGraph, string[]>();

export function setConversionNotes(graph: WorkflowGraph, notes: string[]): void {
	notesByGraph.set(graph, notes);
}

/** The notes of a converted graph; none for a graph given in API format. */
export function conversionNotes(graph: WorkflowGraph): string[] {
	return notesByGraph.get(graph) ?? [];
}

const WORKFLOW_FILE_HINT =
	'Paste the workflow file as the editor saves it (Workflow → Save or Export), or in API format (Workflow → Export (API); ' +
	'in older versions, turn on the dev mode options in Settings, then use Save (API Format)), or pass it from an earlier node.';

/** A link is `[source node id, output index]`. */
export function asLink(value: unknown): [string, number] | undefined {
	if (!Array.isArray(value) || value.length !== 2) return undefined;
	const [id, index] = value as unknown[];
	if ((typeof id !== 'string' && typeof id !== 'number') || typeof index !== 'number' || !Number.isInteger(index)) return undefined;
	return [String(id), index];
}

/** A UI-format workflow (what the editor saves) has a `nodes` list (and `links`, or the editor's version fields). */
export function looksLikeUiWorkflow(value: Record<string, unknown>): boolean {
	return Array.isArray(value.nodes) && (Array.isArray(value.links) || 'last_node_id' in value || 'version' in value);
}

/**
 * Reads a workflow graph from a parameter value: JSON text or an object (from an expression).
 * A whole submit body (`{prompt: {...}}`) is accepted too. `field` is the parameter's display name.
 */
export function parseWorkflowGraph(value: unknown, field: string): WorkflowInput {
	let data = value;
	if (typeof data === 'string') {
		const text = data.trim();
		if (text === '') return { problem: { message: `${field} is empty`, hint: WORKFLOW_FILE_HINT } };
		const reading = readJson(text, JSON_LIMITS.pasted);
		if (!('value' in reading)) return { problem: { message: `${field} ${reading.problem}`, hint: WORKFLOW_FILE_HINT } };
		data = reading.value;
	} else {
		// An object from an expression: walked by conversion and redaction, so bounded alike.
		const problem = jsonValueProblem(data, JSON_LIMITS.pasted);
		if (problem) return { problem: { message: `${field} ${problem}`, hint: WORKFLOW_FILE_HINT } };
	}
	if (isRecord(data) && isRecord(data.prompt) && !isRecord(data.prompt.inputs)) data = data.prompt;
	if (!isRecord(data)) {
		return {
			problem: {
				message: `${field} must be a JSON object keyed by node id, like {"3": {"class_type": "KSampler", "inputs": {...}}}`,
				hint: WORKFLOW_FILE_HINT,
			},
		};
	}
	if (looksLikeUiWorkflow(data)) return { uiWorkflow: data };
	const ids = Object.keys(data);
	if (ids.length === 0) return { problem: { message: `${field} has no nodes`, hint: WORKFLOW_FILE_HINT } };
	for (const id of ids) {
		const problem = nodeProblem(id, data[id], field);
		if (problem) return { problem };
	}
	const graph = data as WorkflowGraph;
	for (const id of ids) {
		const problem = linkProblem(graph, id, field);
		if (problem) return { problem };
	}
	return { graph: structuredClone(graph) };
}

function nodeProblem(id: string, node: unknown, field: string): GraphProblem | undefined {
	const hint =
		'Every node of an API-format workflow is an object with class_type (the node type) and an inputs object. ' + WORKFLOW_FILE_HINT;
	if (!isRecord(node)) return { message: `${field}: node "${id}" is not an object`, hint };
	if (typeof node.class_type !== 'string' || node.class_type.trim() === '') {
		return { message: `${field}: node "${id}" has no class_type`, hint };
	}
	if (!isRecord(node.inputs)) return { message: `${field}: node "${id}" (${node.class_type}) has no inputs object`, hint };
	return undefined;
}

function linkProblem(graph: WorkflowGraph, id: string, field: string): GraphProblem | undefined {
	const node = graph[id];
	for (const [name, value] of Object.entries(node.inputs)) {
		const link = asLink(value);
		if (!link || typeof (value as unknown[])[0] !== 'string') continue;
		if (!Object.hasOwn(graph, link[0])) {
			return {
				message: `${field}: input "${name}" of node "${id}" (${node.class_type}) links to node "${link[0]}", which is not in the workflow`,
				hint: 'The workflow may have been cut short when it was copied. Export it again in API format.',
			};
		}
		if (link[1] < 0) {
			return { message: `${field}: input "${name}" of node "${id}" (${node.class_type}) links to output ${link[1]}, which cannot exist` };
		}
	}
	return undefined;
}

/** Node ids in a natural order ("2" before "10"). */
export function compareNodeIds(a: string, b: string): number {
	return a.localeCompare(b, undefined, { numeric: true });
}

/** Node classes that load an uploaded input image through their `image` input. */
export const IMAGE_LOADER_CLASSES = ['LoadImage', 'LoadImageMask'];

export function isImageLoader(node: GraphNode): boolean {
	return IMAGE_LOADER_CLASSES.includes(node.class_type) || (typeof node.inputs.image === 'string' && !asLink(node.inputs.image));
}
