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
} from './graph';
import type { InputBinding } from './subgraph-hosts';

const SAVE_AGAIN = 'The workflow may have been cut short or edited by hand. Open it in the editor and save it again.';

/** A graph being walked: the root, or one expanded subgraph (or group node) instance. */
export interface Frame {
	graph: UiGraph;
	/** Ids of the instances from the root down to this graph. */
	path: string[];
	instance?: { node: UiNode; frame: Frame; subgraph: UiSubgraph; binding: InputBinding };
	/** Expanded instances in this graph, by node id. */
	children: Map<string, Frame>;
}

/** A link to a node that is sent (`[id, output]`), or a value (a promoted widget of a subgraph). */
export type Resolved = { link: [string, number] } | { value: unknown };

export interface ResolveContext {
	/** The value of an unlinked input of an expanded instance, when it stands for a widget. */
	promotedValue(frame: Frame, slot: number): Resolved | undefined;
	/** Results of outputs already walked to, by `outputKey`: each chain of links is walked once. */
	readonly resolvedOutputs: Map<string, Resolved | undefined>;
	/** Counts one link followed; throws when the conversion's budget is spent. */
	followLink(): void;
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

/** Where a walk stands: an output to resolve, or an input to follow. */
type Step =
	| { output: true; frame: Frame; node: UiNode; slot: number; type: string }
	| { output: false; frame: Frame; node: UiNode; index: number; type?: string };

const outputKey = (frame: Frame, node: UiNode, slot: number, type: string): string => `${executionId(frame, node)}/out${slot}/${type}`;

/** Resolves input `index` of `node`: a link to a sent node, a value, or nothing (the input is left out). */
export function resolveInput(frame: Frame, node: UiNode, index: number, context: ResolveContext): Resolved | undefined {
	return walk({ output: false, frame, node, index }, context);
}

/**
 * Follows links from `start` until a sent node, a value or a dead end, in a loop (a chain of
 * thousands of reroutes needs no call stack). Crossing into an instance's input from inside leaves
 * a fallback: that input's promoted widget value, used when the outer side leads to nothing. Every
 * output passed is remembered with its result, so another input reaching it stops there.
 */
function walk(start: Step, context: ResolveContext): Resolved | undefined {
	const seen = new Set<string>();
	/** Outputs passed, with how many fallbacks were left before them. */
	const passed: Array<{ key: string; fallbacks: number }> = [];
	const fallbacks: Array<{ frame: Frame; slot: number }> = [];
	let step: Step | undefined = start;
	let end: Resolved | undefined;
	while (step) {
		context.followLink();
		let next: Step | { value: Resolved | undefined } | undefined;
		if (step.output) {
			const key = outputKey(step.frame, step.node, step.slot, step.type);
			if (context.resolvedOutputs.has(key)) {
				end = context.resolvedOutputs.get(key);
				break;
			}
			passed.push({ key, fallbacks: fallbacks.length });
			next = fromOutput(step, seen, fallbacks);
		} else next = fromInput(step, seen, fallbacks);
		if (next && 'value' in next) {
			end = next.value;
			break;
		}
		step = next;
	}
	// What each output passed resolves to: the end, or else the fallbacks left after it, innermost first.
	const promoted = fallbacks.map((fallback) => context.promotedValue(fallback.frame, fallback.slot));
	const resultAfter = (count: number): Resolved | undefined => {
		if (end) return end;
		for (let index = promoted.length - 1; index >= count; index--) if (promoted[index]) return promoted[index];
		return undefined;
	};
	for (const { key, fallbacks: count } of passed) context.resolvedOutputs.set(key, resultAfter(count));
	return resultAfter(0);
}

function mark(seen: Set<string>, frame: Frame, node: UiNode, what: string): void {
	const key = `${executionId(frame, node)}/${what}`;
	if (seen.has(key)) {
		throw new ConversionProblem(
			`${describeNode(executionId(frame, node), node)} is part of a loop of links`,
			'Remove the loop in the editor.',
		);
	}
	seen.add(key);
}

/** One step from an input: along its link to the origin's output (or out of the subgraph, leaving a fallback). */
function fromInput(
	step: Extract<Step, { output: false }>,
	seen: Set<string>,
	fallbacks: Array<{ frame: Frame; slot: number }>,
): Step | { value: Resolved | undefined } | undefined {
	const { frame, node, index } = step;
	const input = node.inputs[index];
	if (!input || input.link === null) return undefined;
	mark(seen, frame, node, `in${index}`);
	const link = frame.graph.links.get(input.link);
	const where = `${describeNode(executionId(frame, node), node)}: input "${input.name}"`;
	if (!link) throw new ConversionProblem(`${where} uses link ${input.link}, which is not in the workflow's links`, SAVE_AGAIN);
	if (link.originId === SUBGRAPH_INPUT_ID) return outOfSubgraph(frame, link.originSlot, fallbacks);
	const origin = frame.graph.byId.get(link.originId);
	if (!origin) {
		throw new ConversionProblem(
			`${where} is linked to node ${[...frame.path, link.originId].join(':')}, which is not in the workflow`,
			SAVE_AGAIN,
		);
	}
	return { output: true, frame, node: origin, slot: link.originSlot, type: step.type ?? input.type };
}

/** An input of an expanded instance, seen from inside it: its outer link, with its promoted widget as fallback. */
function outOfSubgraph(frame: Frame, slot: number, fallbacks: Array<{ frame: Frame; slot: number }>): Step | undefined {
	const instance = frame.instance;
	if (!instance) throw new ConversionProblem('A link starts at a subgraph input outside any subgraph');
	// Linked to nothing that is sent (a PrimitiveNode, a dead end): the promoted widget's value, as when unlinked.
	fallbacks.push({ frame, slot });
	const index = instance.binding[slot];
	const outer = index === undefined ? undefined : instance.node.inputs[index];
	return outer && outer.link !== null ? { output: false, frame: instance.frame, node: instance.node, index: index! } : undefined;
}

/** One step from an output: through a bypassed node, into an instance, through a reroute, or the end. */
function fromOutput(
	step: Extract<Step, { output: true }>,
	seen: Set<string>,
	fallbacks: Array<{ frame: Frame; slot: number }>,
): Step | { value: Resolved | undefined } | undefined {
	const { frame, node, slot, type } = step;
	mark(seen, frame, node, `out${slot}`);
	if (node.mode === MODE_BYPASSED) {
		const input = bypassInput(node, slot, type);
		return input === -1 ? undefined : { output: false, frame, node, index: input };
	}
	const child = frame.children.get(node.id);
	if (child?.instance) {
		const inner = child.graph.links.get(child.instance.subgraph.outputs[slot]?.linkIds[0] ?? NaN);
		if (!inner) return undefined;
		if (inner.originId === SUBGRAPH_INPUT_ID) {
			return outOfSubgraph(child, inner.originSlot, fallbacks);
		}
		const origin = child.graph.byId.get(inner.originId);
		if (!origin)
			throw new ConversionProblem(`Subgraph "${child.instance.subgraph.name}" links to node ${inner.originId}, which it does not have`);
		return { output: true, frame: child, node: origin, slot: inner.originSlot, type };
	}
	if (VIRTUAL_TYPES.has(node.type)) return node.inputs[slot] ? { output: false, frame, node, index: slot, type } : undefined;
	// A muted node (or an instance left unexpanded) is not sent: the last pass drops links to it.
	return { value: { link: [executionId(frame, node), slot] } };
}
