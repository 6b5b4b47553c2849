/**
 * A graph's nodes and inputs as dropdown choices (the editor's lists of Input Overrides and Input
 * Images), and the values the node definitions list for an input (Value From Server List).
 */
import { isRecord, ownValue } from '../../../shared/items/validation';
import type { ClassDefinition } from './class-definitions';
import { asLink, compareNodeIds, type GraphNode, type WorkflowGraph } from './workflow-graph';

function titleOf(node: GraphNode): string | undefined {
	const title = node._meta?.title;
	return typeof title === 'string' && title.trim() !== '' && title !== node.class_type ? title : undefined;
}

export interface NodeChoice {
	name: string;
	value: string;
	description?: string;
}

/** The graph's nodes, for a dropdown: "9 · SaveImage (My title)". */
export function graphNodeChoices(graph: WorkflowGraph, filter: (node: GraphNode) => boolean = () => true): NodeChoice[] {
	return Object.keys(graph)
		.sort(compareNodeIds)
		.filter((id) => filter(graph[id]))
		.map((id) => {
			const node = graph[id];
			const title = titleOf(node);
			return { name: `${id} · ${node.class_type}${title ? ` (${title})` : ''}`, value: id };
		});
}

/**
 * The values a node definition lists for an input (a combo): `[[...values], options]`, or the newer
 * `["COMBO", {options: [...]}]`. Undefined when the input takes any value.
 */
export function listedInputValues(definition: ClassDefinition | undefined, inputName: string): string[] | undefined {
	const sections = [definition?.input?.required, definition?.input?.optional];
	for (const section of sections) {
		const spec = section ? ownValue(section, inputName) : undefined;
		if (!Array.isArray(spec)) continue;
		const [kind, options] = spec as [unknown, unknown];
		const values = Array.isArray(kind) ? kind : kind === 'COMBO' && isRecord(options) ? options.options : undefined;
		if (Array.isArray(values)) {
			return values.filter((value): value is string | number => typeof value === 'string' || typeof value === 'number').map(String);
		}
	}
	return undefined;
}

/** A node's inputs that hold values (not connections), for a dropdown, with their current value. */
export function graphInputChoices(graph: WorkflowGraph, nodeId: string): NodeChoice[] {
	const node = ownValue(graph, nodeId);
	if (!node) return [];
	return Object.entries(node.inputs)
		.filter(([, value]) => !asLink(value))
		.map(([name, value]) => ({ name, value: name, description: `Now: ${JSON.stringify(value)?.slice(0, 80) ?? ''}` }));
}
