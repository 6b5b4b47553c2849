/**
 * Reading a UI-format workflow (what the ComfyUI editor saves: `nodes`, `links`, `widgets_values`,
 * subgraph definitions, legacy group nodes) into one typed shape the converter walks. Links come as
 * arrays (`[id, origin, origin slot, target, target slot, type]`) or as objects depending on the
 * editor's version; both are read. Nothing here knows the server's node definitions.
 */
import { isRecord } from '../../../shared/items/validation';
import type { GraphProblem } from '../graph/workflow-graph';
import { clip, type ConversionNotes } from './notes';

/** Link ends on a subgraph's own input and output nodes use these ids. */
export const SUBGRAPH_INPUT_ID = '-10';
export const SUBGRAPH_OUTPUT_ID = '-20';

export const MODE_MUTED = 2;
export const MODE_BYPASSED = 4;

/** Editor-only nodes: never sent, never in the server's definitions. */
export const VIRTUAL_TYPES = new Set(['Note', 'MarkdownNote', 'Reroute', 'PrimitiveNode']);

/** Ends a conversion with a message for the user (caught where the conversion starts). */
export class ConversionProblem extends Error {
	constructor(
		message: string,
		readonly hint?: string,
	) {
		super(message);
	}
}

export interface UiInput {
	name: string;
	type: string;
	link: number | null;
	/** Set on a socket that stands for a widget (a converted or promoted widget). */
	widgetName?: string;
}

export interface UiNode {
	id: string;
	type: string;
	mode: number;
	title?: string;
	inputs: UiInput[];
	outputs: Array<{ name: string; type: string; links?: number[] }>;
	widgetsValues: unknown[] | Record<string, unknown> | undefined;
	properties: Record<string, unknown>;
}

export interface UiLink {
	id: number;
	originId: string;
	originSlot: number;
	targetId: string;
	targetSlot: number;
	type: string;
}

export interface UiGraph {
	nodes: UiNode[];
	byId: Map<string, UiNode>;
	links: Map<number, UiLink>;
}

/** A subgraph definition (`definitions.subgraphs`), or a legacy group node rebuilt as one. */
export interface UiSubgraph extends UiGraph {
	id: string;
	name: string;
	inputs: Array<{ name: string; type: string; linkIds: number[] }>;
	outputs: Array<{ name: string; type: string; linkIds: number[] }>;
	/** Legacy group nodes keep their values inside (no promoted widgets on the instance). */
	legacyGroup?: boolean;
}

export interface UiWorkflow {
	root: UiGraph;
	subgraphs: Map<string, UiSubgraph>;
	/** `extra.groupNodes`, by name, as saved. */
	groupNodes: Map<string, Record<string, unknown>>;
}

const text = (value: unknown, fallback = ''): string => (typeof value === 'string' || typeof value === 'number' ? String(value) : fallback);

function slotType(value: unknown): string {
	if (Array.isArray(value)) return value.map(String).join(',');
	return text(value, '*');
}

function linkId(value: unknown): number | null {
	return typeof value === 'number' && Number.isFinite(value)
		? value
		: typeof value === 'string' && /^\d+$/.test(value)
			? Number(value)
			: null;
}

/** A link in either saved form, or undefined when it is not one. */
export function readLink(value: unknown): UiLink | undefined {
	if (Array.isArray(value)) {
		const [id, originId, originSlot, targetId, targetSlot, type] = value as unknown[];
		const read = linkId(id);
		if (read === null || typeof originSlot !== 'number' || typeof targetSlot !== 'number') return undefined;
		return { id: read, originId: text(originId), originSlot, targetId: text(targetId), targetSlot, type: slotType(type) };
	}
	if (!isRecord(value)) return undefined;
	const read = linkId(value.id);
	if (read === null || typeof value.origin_slot !== 'number' || typeof value.target_slot !== 'number') return undefined;
	return {
		id: read,
		originId: text(value.origin_id),
		originSlot: value.origin_slot,
		targetId: text(value.target_id),
		targetSlot: value.target_slot,
		type: slotType(value.type),
	};
}

/** Reads one saved node; `id` names it when the saved node has none (inside a legacy group node). */
export function readNode(value: unknown, position: number, where: string, id?: string): UiNode | GraphProblem {
	const hasId = isRecord(value) && (typeof value.id === 'number' || typeof value.id === 'string');
	if (!isRecord(value) || (!hasId && id === undefined) || typeof value.type !== 'string') {
		return { message: `${where}: entry ${position + 1} of "nodes" is not a node (it needs an id and a type)` };
	}
	const inputs = (Array.isArray(value.inputs) ? value.inputs : []).filter(isRecord).map((input): UiInput => ({
		name: text(input.name),
		type: slotType(input.type),
		link: linkId(input.link),
		...(isRecord(input.widget) && typeof input.widget.name === 'string' ? { widgetName: input.widget.name } : {}),
	}));
	const outputs = (Array.isArray(value.outputs) ? value.outputs : []).filter(isRecord).map((output) => ({
		name: text(output.name),
		type: slotType(output.type),
		links: (Array.isArray(output.links) ? output.links : []).map(linkId).filter((id): id is number => id !== null),
	}));
	const widgets = value.widgets_values;
	return {
		id: id ?? String(value.id),
		type: value.type,
		mode: typeof value.mode === 'number' ? value.mode : 0,
		...(typeof value.title === 'string' ? { title: value.title } : {}),
		inputs,
		outputs,
		widgetsValues: Array.isArray(widgets) || isRecord(widgets) ? widgets : undefined,
		properties: isRecord(value.properties) ? value.properties : {},
	};
}

/** The node id counter the file saved: the editor numbers a node whose id is taken after it. */
function savedLastNodeId(source: Record<string, unknown>): number {
	const state = isRecord(source.state) ? source.state.lastNodeId : undefined;
	const saved = [source.last_node_id, state].filter((id): id is number => typeof id === 'number' && Number.isFinite(id));
	return Math.max(0, ...saved);
}

/**
 * A node whose id is taken when the editor adds it gets the next id of the counter, as the editor
 * gives it when it loads the file: nodes are added in saved order, the counter starts at the saved
 * last id and rises to every id added, so nodes [1, 1, 2] with last id 1 become 1, 2 and 3.
 * Links name nodes by saved id: those naming an id only one node had follow that node; an id two
 * nodes had keeps its links on the first (inputs still read their own links, by link id).
 */
function renumberDuplicates(
	source: Record<string, unknown>,
	nodes: UiNode[],
	links: Map<number, UiLink>,
	inside: string,
	notes: ConversionNotes,
): void {
	const requested = new Map<string, number>();
	for (const node of nodes) requested.set(node.id, (requested.get(node.id) ?? 0) + 1);
	const taken = new Set<string>();
	const moved = new Map<string, string>();
	let counter = savedLastNodeId(source);
	for (const node of nodes) {
		const numeric = Number(node.id);
		if (!taken.has(node.id)) {
			if (Number.isInteger(numeric) && numeric > counter) counter = numeric;
			taken.add(node.id);
			continue;
		}
		const old = node.id;
		node.id = String(++counter);
		taken.add(node.id);
		const what = `(${clip(node.type)}) is sent as node ${node.id}`;
		if (requested.get(old) === 1) {
			moved.set(old, node.id);
			notes.add(
				`Node ${clip(old)}${inside} ${what}: its id went to a node renumbered before it, as the editor numbers them when it opens the file.`,
			);
		} else {
			notes.add(`Two nodes have id ${clip(old)}${inside}: the second ${what}, as the editor renumbers it when it opens the file.`);
		}
	}
	if (moved.size === 0) return;
	for (const link of links.values()) {
		link.originId = moved.get(link.originId) ?? link.originId;
		link.targetId = moved.get(link.targetId) ?? link.targetId;
	}
}

/** Reads `nodes` and `links` of the root graph or of a subgraph definition (`inside` names it in notes). */
export function readGraph(source: Record<string, unknown>, where: string, notes: ConversionNotes, inside = ''): UiGraph | GraphProblem {
	const nodes: UiNode[] = [];
	const rawNodes = Array.isArray(source.nodes) ? source.nodes : [];
	for (const [position, raw] of rawNodes.entries()) {
		const node = readNode(raw, position, where);
		if ('message' in node) return node;
		nodes.push(node);
	}
	const links = new Map<number, UiLink>();
	for (const raw of Array.isArray(source.links) ? source.links : []) {
		const link = readLink(raw);
		if (link) links.set(link.id, link);
	}
	renumberDuplicates(source, nodes, links, inside, notes);
	return { nodes, byId: new Map(nodes.map((node) => [node.id, node])), links };
}

function readPorts(value: unknown): UiSubgraph['inputs'] {
	return (Array.isArray(value) ? value : []).filter(isRecord).map((port) => ({
		name: text(port.name),
		type: slotType(port.type),
		linkIds: (Array.isArray(port.linkIds) ? port.linkIds : []).map(linkId).filter((id): id is number => id !== null),
	}));
}

/** Reads the whole saved workflow: the root graph, subgraph definitions and legacy group nodes. */
export function readUiWorkflow(
	source: Record<string, unknown>,
	field: string,
	notes: ConversionNotes,
): { workflow: UiWorkflow } | { problem: GraphProblem } {
	const root = readGraph(source, field, notes);
	if ('message' in root) return { problem: root };
	const subgraphs = new Map<string, UiSubgraph>();
	const definitions = isRecord(source.definitions) && Array.isArray(source.definitions.subgraphs) ? source.definitions.subgraphs : [];
	for (const raw of definitions.filter(isRecord)) {
		const id = text(raw.id);
		const name = text(raw.name, 'Subgraph');
		const graph = readGraph(raw, `${field}: subgraph "${clip(name)}"`, notes, ` in subgraph "${clip(name)}"`);
		if ('message' in graph) return { problem: graph };
		subgraphs.set(id, { ...graph, id, name, inputs: readPorts(raw.inputs), outputs: readPorts(raw.outputs) });
	}
	const extra = isRecord(source.extra) ? source.extra : {};
	const groupNodes = new Map<string, Record<string, unknown>>();
	if (isRecord(extra.groupNodes)) {
		for (const [name, group] of Object.entries(extra.groupNodes)) if (isRecord(group)) groupNodes.set(name, group);
	}
	return { workflow: { root, subgraphs, groupNodes } };
}

/** The name of the legacy group node an instance uses (`workflow>NAME`, older `workflow/NAME`). */
export function groupNodeName(type: string): string | undefined {
	const match = /^workflow[>/](.+)$/.exec(type);
	return match?.[1];
}

/** "12 "My title" (KSampler)": how a node is named in messages (`id` is its execution id). */
export function describeNode(id: string, node: UiNode, classLabel = node.type): string {
	// Execution ids of nested instances run long ("18:57:3"…): cut only what no real file has.
	return `node ${clip(id, 240)}${node.title ? ` "${clip(node.title)}"` : ''} (${clip(classLabel)})`;
}
