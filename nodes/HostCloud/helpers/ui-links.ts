/**
 * Where an input of a UI-format node really comes from, as the editor resolves it when it queues a
 * workflow: through Reroute nodes, through bypassed nodes (by the editor's pass-through choice),
 * into subgraphs and out of them (an unlinked subgraph input gives its promoted widget's value), to
 * nothing from a PrimitiveNode (it has pushed its value into the widget already). Native reroutes
 * are not nodes: their links join origin and target directly.
 */
import {
	ConversionProblem,
	describeNode,
	MODE_BYPASSED,
	SUBGRAPH_INPUT_ID,
	VIRTUAL_TYPES,
	type UiGraph,
	type UiNode,
	type UiSubgraph,
} from './ui-graph';

const SAVE_AGAIN = 'The workflow may have been cut short or edited by hand. Open it in the editor and save it again.';

/** A graph being walked: the root, or one expanded subgraph (or group node) instance. */
export interface Frame {
	graph: UiGraph;
	/** Ids of the instances from the root down to this graph. */
	path: string[];
	instance?: { node: UiNode; frame: Frame; subgraph: UiSubgraph };
	/** Expanded instances in this graph, by node id. */
	children: Map<string, Frame>;
}

/** A link to a node that is sent (`[id, output]`), or a value (a promoted widget of a subgraph). */
export type Resolved = { link: [string, number] } | { value: unknown };

export interface ResolveContext {
	/** The value of an unlinked input of an expanded instance, when it stands for a widget. */
	promotedValue(frame: Frame, slot: number): Resolved | undefined;
}

/** The id a node is sent under: the instance path and its own id, joined by ":" ("57:3"). */
export function executionId(frame: Frame, node: UiNode): string {
	return [...frame.path, node.id].join(':');
}

/** The editor's type check between slots: "*" and "" fit anything, lists ("A,B") fit any member. */
function typesFit(a: string, b: string): boolean {
	if (a === '' || a === '*' || b === '' || b === '*' || a === b) return true;
	const left = a.toLowerCase().split(',');
	const right = b.toLowerCase().split(',');
	return left.some((x) => right.some((y) => x === y || x === '*' || y === '*'));
}

/** Which input a bypassed node passes on for output `slot` to an input of type `type` (-1: none). */
function bypassInput(node: UiNode, slot: number, type: string): number {
	const { inputs } = node;
	if (type === '*' || type === '') return inputs.length > slot ? slot : 0;
	const outputType = node.outputs[slot]?.type ?? '*';
	const same = inputs[slot];
	if (same && typesFit(same.type, outputType) && typesFit(same.type, type)) return slot;
	const exact = inputs.findIndex((input) => input.type === type);
	if (exact !== -1) return exact;
	return inputs.findIndex((input) => typesFit(input.type, outputType) && typesFit(input.type, type));
}

function visit(visited: Set<string>, frame: Frame, node: UiNode, what: string): void {
	const key = `${executionId(frame, node)}/${what}`;
	if (visited.has(key)) {
		throw new ConversionProblem(
			`${describeNode(executionId(frame, node), node)} is part of a loop of links`,
			'Remove the loop in the editor.',
		);
	}
	visited.add(key);
}

/** An input of an expanded instance, seen from inside it (a link from the subgraph's input node). */
function resolveBoundary(frame: Frame, slot: number, context: ResolveContext, visited: Set<string>): Resolved | undefined {
	const instance = frame.instance;
	if (!instance) throw new ConversionProblem('A link starts at a subgraph input outside any subgraph');
	const outer = instance.node.inputs[slot];
	const linked = outer && outer.link !== null ? resolveInput(instance.frame, instance.node, slot, context, visited) : undefined;
	// Linked to nothing that is sent (a PrimitiveNode, a dead end): the promoted widget's value, as when unlinked.
	return linked ?? context.promotedValue(frame, slot);
}

/** Resolves input `index` of `node`: a link to a sent node, a value, or nothing (the input is left out). */
export function resolveInput(
	frame: Frame,
	node: UiNode,
	index: number,
	context: ResolveContext,
	visited = new Set<string>(),
	type?: string,
): Resolved | undefined {
	const input = node.inputs[index];
	if (!input || input.link === null) return undefined;
	visit(visited, frame, node, `in${index}`);
	const link = frame.graph.links.get(input.link);
	const where = `${describeNode(executionId(frame, node), node)}: input "${input.name}"`;
	if (!link) throw new ConversionProblem(`${where} uses link ${input.link}, which is not in the workflow's links`, SAVE_AGAIN);
	if (link.originId === SUBGRAPH_INPUT_ID) return resolveBoundary(frame, link.originSlot, context, visited);
	const origin = frame.graph.byId.get(link.originId);
	if (!origin) {
		throw new ConversionProblem(
			`${where} is linked to node ${[...frame.path, link.originId].join(':')}, which is not in the workflow`,
			SAVE_AGAIN,
		);
	}
	return resolveOutput(frame, origin, link.originSlot, type ?? input.type, context, visited);
}

function resolveOutput(
	frame: Frame,
	node: UiNode,
	slot: number,
	type: string,
	context: ResolveContext,
	visited: Set<string>,
): Resolved | undefined {
	visit(visited, frame, node, `out${slot}`);
	if (node.mode === MODE_BYPASSED) {
		const input = bypassInput(node, slot, type);
		return input === -1 ? undefined : resolveInput(frame, node, input, context, visited);
	}
	const child = frame.children.get(node.id);
	if (child?.instance) {
		const inner = child.graph.links.get(child.instance.subgraph.outputs[slot]?.linkIds[0] ?? NaN);
		if (!inner) return undefined;
		if (inner.originId === SUBGRAPH_INPUT_ID) return resolveBoundary(child, inner.originSlot, context, visited);
		const origin = child.graph.byId.get(inner.originId);
		if (!origin)
			throw new ConversionProblem(`Subgraph "${child.instance.subgraph.name}" links to node ${inner.originId}, which it does not have`);
		return resolveOutput(child, origin, inner.originSlot, type, context, visited);
	}
	if (VIRTUAL_TYPES.has(node.type)) return node.inputs[slot] ? resolveInput(frame, node, slot, context, visited, type) : undefined;
	// A muted node (or an instance left unexpanded) is not sent: the last pass drops links to it.
	return { link: [executionId(frame, node), slot] };
}
