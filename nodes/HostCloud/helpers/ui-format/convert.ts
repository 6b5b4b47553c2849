/**
 * ui-format/: the UI-format converter; this file is its entry, and only submit/prepare-workflow calls
 * it. It may read the graph model (graph/, but node-definitions.ts) and nodes/shared, nothing else:
 * no transport (the node definitions are passed in), no submit/, jobs/ or files/.
 *
 * A workflow as the ComfyUI editor saves it (UI format) turned into the API format the server runs,
 * with the server's own node definitions, by the editor's rules: subgraph and group node instances
 * expanded ("57:3"), editor-only nodes (notes, reroutes, primitives) left out, muted (mode 2) and
 * bypassed (mode 4) nodes not sent, widget values named by the definitions, links resolved.
 * Pure: what cannot be converted comes back as a problem naming the node (id, title, class).
 */
import { ownValue, setOwn } from '../../../shared/items/validation';
import { groupNodeSubgraph } from './group-nodes';
import {
	ConversionProblem,
	describeNode,
	groupNodeName,
	MODE_BYPASSED,
	MODE_MUTED,
	readUiWorkflow,
	VIRTUAL_TYPES,
	type UiLink,
	type UiNode,
	type UiSubgraph,
	type UiWorkflow,
} from './graph';
import { executionId, resolveInput, type Frame, type Resolved, type ResolveContext } from './links';
import { ConversionNotes } from './notes';
import { readProxyWidgets } from './proxy-widgets';
import { applyHostValues, bindHostInputs, noHostValues, type HostValues } from './subgraph-hosts';
import { apiValue, readWidgetValues } from './widgets';
import { asLink, setConversionNotes, type GraphNode, type GraphResult, type WorkflowGraph } from '../graph/workflow-graph';
import type { NodeDefinitions } from '../graph/class-definitions';

/**
 * What one conversion may cost. A saved workflow of a few kilobytes can nest subgraph instances
 * ten to a level and six levels deep (a million nodes), or chain thousands of reroutes: it is
 * refused when it passes a budget, naming it, instead of holding n8n's event loop.
 */
export const CONVERSION_BUDGETS = {
	/** Subgraph and group node instances inside each other. */
	depth: 32,
	/** Nodes once every instance is expanded (real workflows have hundreds). */
	nodes: 20_000,
	/** Links followed while resolving inputs (each chain is walked once). */
	links: 1_000_000,
	/** Saved inputs and promoted widgets of instances, with their definitions' inputs, counted per instance. */
	slots: 500_000,
	/** Wall time of the whole conversion. */
	milliseconds: 10_000,
};
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const REFRESH_HINT =
	'Open the workflow in the editor connected to this server and save it again, or export it in API format (Workflow → Export (API)).';

interface Runnable {
	frame: Frame;
	node: UiNode;
	id: string;
}

class Conversion implements ResolveContext {
	readonly runnable: Runnable[] = [];
	/** Values PrimitiveNodes push into widgets: execution id → widget name → value. */
	readonly pushed = new Map<string, Map<string, unknown>>();
	/** Values PrimitiveNodes push into promoted inputs of instances. */
	readonly pushedPromoted = new Map<Frame, Map<number, unknown>>();
	/** What each expanded instance's host gives its definition (promoted widget values). */
	readonly hostValues = new Map<Frame, HostValues>();
	readonly frames: Frame[] = [];
	readonly resolvedOutputs = new Map<string, Resolved | undefined>();
	private nodeCount = 0;
	private slotCount = 0;
	private linksFollowed = 0;
	private readonly startedAt = Date.now();

	constructor(
		readonly workflow: UiWorkflow,
		readonly definitions: NodeDefinitions,
		readonly notes: ConversionNotes,
	) {}

	followLink(): void {
		if (++this.linksFollowed > CONVERSION_BUDGETS.links)
			this.overBudget(`follows more than ${CONVERSION_BUDGETS.links.toLocaleString('en-US')} links`);
		if (this.linksFollowed % 1024 === 0) this.checkTime();
	}

	/** Counts an instance's saved inputs, promoted widgets and definition inputs; checks the time spent. */
	private countSlots(host: UiNode, subgraph: UiSubgraph): void {
		const list = readProxyWidgets(host.properties);
		this.slotCount += host.inputs.length + subgraph.inputs.length + (list && 'entries' in list ? list.entries.length : 0);
		if (this.slotCount > CONVERSION_BUDGETS.slots) {
			this.overBudget(
				`gives its subgraph instances more than ${CONVERSION_BUDGETS.slots.toLocaleString('en-US')} inputs and promoted widgets (their subgraphs' inputs included)`,
			);
		}
		this.checkTime();
	}

	private checkTime(): void {
		if (Date.now() - this.startedAt > CONVERSION_BUDGETS.milliseconds)
			this.overBudget(`takes more than ${CONVERSION_BUDGETS.milliseconds / 1000} seconds to convert`);
	}

	private overBudget(what: string): never {
		throw new ConversionProblem(
			`the workflow ${what}, more than this node converts`,
			'Export the workflow in API format (Workflow → Export (API)) to run it as it is, or make it smaller in the editor.',
		);
	}

	expand(frame: Frame, chain: string[]): void {
		this.frames.push(frame);
		this.nodeCount += frame.graph.nodes.length;
		if (this.nodeCount > CONVERSION_BUDGETS.nodes)
			this.overBudget(`expands to more than ${CONVERSION_BUDGETS.nodes.toLocaleString('en-US')} nodes (subgraphs included)`);
		this.checkTime();
		for (const node of frame.graph.nodes) {
			if (node.mode === MODE_MUTED || node.mode === MODE_BYPASSED) {
				this.noteNotSent(frame, node);
				continue;
			}
			const subgraph = this.instanceOf(frame, node);
			if (subgraph) {
				const id = executionId(frame, node);
				if (chain.includes(subgraph.id)) {
					throw new ConversionProblem(`${describeNode(id, node, subgraph.name)} contains itself`);
				}
				if (chain.length >= CONVERSION_BUDGETS.depth) this.overBudget(`nests subgraphs more than ${CONVERSION_BUDGETS.depth} deep`);
				this.countSlots(node, subgraph);
				const binding = bindHostInputs(id, node, subgraph, this.notes);
				const child: Frame = {
					graph: subgraph,
					path: [...frame.path, node.id],
					instance: { node, frame, subgraph, binding },
					children: new Map(),
				};
				frame.children.set(node.id, child);
				this.expand(child, [...chain, subgraph.id]);
			} else if (!VIRTUAL_TYPES.has(node.type)) {
				this.runnable.push({ frame, node, id: executionId(frame, node) });
			}
		}
	}

	private noteNotSent(frame: Frame, node: UiNode): void {
		if (VIRTUAL_TYPES.has(node.type)) return;
		const subgraph = this.workflow.subgraphs.get(node.type);
		const what = describeNode(executionId(frame, node), node, subgraph ? `subgraph "${subgraph.name}"` : node.type);
		const inner = subgraph ? ' with the nodes inside it' : '';
		this.notes.add(
			node.mode === MODE_MUTED
				? `${what} is muted: not sent${inner}, and inputs linked to it are left out.`
				: `${what} is bypassed: not sent${inner}; the nodes after it get what it would pass through.`,
		);
	}

	/** The promoted widget values every host gives, innermost first so an outer host's value wins. */
	applyHosts(): void {
		for (const frame of this.frames) if (frame.instance) this.hostValues.set(frame, noHostValues());
		for (const frame of [...this.frames].reverse()) {
			const { instance } = frame;
			if (!instance) continue;
			this.checkTime();
			applyHostValues(instance.node, instance.subgraph, instance.binding, this.hostValues.get(frame)!, {
				id: executionId(instance.frame, instance.node),
				definitions: this.definitions,
				notes: this.notes,
				nested: (nodeId) => {
					const nested = frame.children.get(nodeId);
					return nested?.instance ? { subgraph: nested.instance.subgraph, values: this.hostValues.get(nested)! } : undefined;
				},
			});
		}
	}

	private instanceOf(frame: Frame, node: UiNode): UiSubgraph | undefined {
		const subgraph = this.workflow.subgraphs.get(node.type);
		if (subgraph) return subgraph;
		const name = groupNodeName(node.type);
		if (name === undefined || ownValue(this.definitions, node.type)) return undefined;
		const group = this.workflow.groupNodes.get(name);
		const where = describeNode(executionId(frame, node), node, `group node ${name}`);
		if (!group) {
			throw new ConversionProblem(
				`${where}: the workflow does not hold this group node's definition (extra.groupNodes)`,
				'Save the workflow again from the editor that has the group node, or convert the group node to nodes there.',
			);
		}
		const built = groupNodeSubgraph(node, name, group, this.definitions);
		if ('message' in built) throw new ConversionProblem(`${where}: ${built.message}`);
		return built;
	}

	/** What every PrimitiveNode pushes into the widgets it feeds (through Reroutes too). */
	pushPrimitives(): void {
		for (const frame of this.frames) {
			const primitives = frame.graph.nodes.filter((node) => node.type === 'PrimitiveNode');
			if (primitives.length === 0) continue;
			const fromOrigin = linksByOrigin(frame);
			const fromHost = this.hostValues.get(frame)?.widgets;
			for (const primitive of primitives) {
				// A host that promotes the primitive gives each instance its own value.
				const hosted = fromHost?.get(primitive.id)?.values().next().value;
				const value = hosted ?? (Array.isArray(primitive.widgetsValues) ? primitive.widgetsValues[0] : undefined);
				if (value !== undefined) this.pushFrom(frame, fromOrigin, primitive, value);
			}
		}
	}

	/** Pushes `value` along the first output of `start` and on through Reroutes (a loop, not recursion). */
	private pushFrom(frame: Frame, fromOrigin: Map<string, UiLink[]>, start: UiNode, value: unknown): void {
		const seen = new Set<string>();
		const pending = [start];
		for (let from = pending.pop(); from; from = pending.pop()) {
			if (seen.has(from.id)) continue;
			seen.add(from.id);
			for (const link of fromOrigin.get(from.id) ?? []) {
				this.followLink();
				if (link.originSlot !== 0) continue;
				const target = frame.graph.byId.get(link.targetId);
				if (!target) continue;
				if (target.type === 'Reroute') {
					pending.push(target);
					continue;
				}
				this.pushInto(frame, target, link, value);
			}
		}
	}

	private pushInto(frame: Frame, target: UiNode, link: UiLink, value: unknown): void {
		// The link's own slot first: a target can have tens of thousands of inputs.
		const index =
			target.inputs[link.targetSlot]?.link === link.id ? link.targetSlot : target.inputs.findIndex((input) => input.link === link.id);
		const input = target.inputs[index];
		if (!input) return;
		const child = frame.children.get(target.id);
		if (child?.instance) {
			const slot = child.instance.binding.indexOf(index);
			if (slot === -1) return;
			if (!this.pushedPromoted.has(child)) this.pushedPromoted.set(child, new Map());
			this.pushedPromoted.get(child)!.set(slot, value);
			return;
		}
		const id = executionId(frame, target);
		if (!this.pushed.has(id)) this.pushed.set(id, new Map());
		this.pushed.get(id)!.set(input.widgetName ?? input.name, value);
	}

	/** An unlinked subgraph input that stands for a widget: what a PrimitiveNode pushes into it, else its host's value. */
	promotedValue(frame: Frame, slot: number): Resolved | undefined {
		const pushed = this.pushedPromoted.get(frame)?.get(slot);
		if (pushed !== undefined) return { value: apiValue(undefined, pushed) };
		const hosted = this.hostValues.get(frame)?.slots;
		return hosted?.has(slot) ? { value: apiValue(undefined, hosted.get(slot)) } : undefined;
	}

	unknownClasses(): string | undefined {
		const unknown = this.runnable.filter((entry) => !ownValue(this.definitions, entry.node.type));
		if (unknown.length === 0) return undefined;
		const listed = unknown.slice(0, 5).map((entry) => describeNode(entry.id, entry.node));
		const more = unknown.length > 5 ? ` and ${unknown.length - 5} more` : '';
		const missingSubgraph = unknown.find((entry) => UUID.test(entry.node.type));
		if (missingSubgraph) {
			return `${describeNode(missingSubgraph.id, missingSubgraph.node, 'a subgraph')} uses a subgraph whose definition is not in the workflow (definitions.subgraphs)`;
		}
		return `the server does not know the node type of ${listed.join(', ')}${more}: it may be a custom node that is not installed there`;
	}

	node(entry: Runnable): GraphNode {
		const { frame, node, id } = entry;
		// Every runnable node's type was checked against the definitions before (unknownTypes).
		const definition = ownValue(this.definitions, node.type)!;
		const overrides = new Map([...(this.pushed.get(id) ?? []), ...(this.hostValues.get(frame)?.widgets.get(node.id) ?? [])]);
		const reading = readWidgetValues(definition, node.widgetsValues, overrides);
		if ('misfit' in reading) {
			throw new ConversionProblem(
				`${describeNode(id, node)}: its saved widget values do not fit the server's definition of ${node.type}: ${reading.misfit}`,
				`The file was saved with a ${node.type} whose widgets differ from the server's (another version of the node, or a file edited by hand). ${REFRESH_HINT}`,
			);
		}
		for (const note of reading.notes) this.notes.add(`${describeNode(id, node)}: ${note}.`);
		const inputs: Record<string, unknown> = Object.fromEntries(reading.entries);
		for (const [index, input] of node.inputs.entries()) {
			const resolved = resolveInput(frame, node, index, this);
			// Names and ids come from the file: `__proto__` must stay a key, not replace the prototype.
			if (resolved) setOwn(inputs, input.name, 'link' in resolved ? resolved.link : resolved.value);
		}
		const title = node.title ?? (typeof definition.display_name === 'string' ? definition.display_name : node.type);
		return { inputs, class_type: node.type, _meta: { title } };
	}
}

/** A frame's links grouped by the node they start at. */
function linksByOrigin(frame: Frame): Map<string, UiLink[]> {
	const grouped = new Map<string, UiLink[]>();
	for (const link of frame.graph.links.values()) {
		const list = grouped.get(link.originId);
		if (list) list.push(link);
		else grouped.set(link.originId, [link]);
	}
	return grouped;
}

/** Converts a UI-format workflow with the server's node definitions. `field` names the parameter in messages. */
export function convertUiWorkflow(source: Record<string, unknown>, definitions: NodeDefinitions, field: string): GraphResult {
	const notes = new ConversionNotes();
	const read = readUiWorkflow(source, field, notes);
	if ('problem' in read) return read;
	const conversion = new Conversion(read.workflow, definitions, notes);
	try {
		conversion.expand({ graph: read.workflow.root, path: [], children: new Map() }, []);
		const unknown = conversion.unknownClasses();
		if (unknown) {
			return {
				problem: {
					message: `${field}: ${unknown}`,
					hint: 'Install the custom node on the server, or replace or remove the node in the editor. Get Node Definitions (System) lists the node types the server has.',
				},
			};
		}
		conversion.applyHosts();
		conversion.pushPrimitives();
		const graph: WorkflowGraph = {};
		for (const entry of conversion.runnable) setOwn(graph, entry.id, conversion.node(entry));
		if (Object.keys(graph).length === 0) {
			return {
				problem: {
					message: `${field} has no nodes to run: every node is a note, muted or bypassed`,
					hint: 'Turn the nodes back on in the editor (a muted or bypassed node is greyed out or purple) and save the workflow again.',
				},
			};
		}
		// As the editor does last: a link to a node that is not sent (muted) is left out.
		for (const node of Object.values(graph)) {
			for (const [name, value] of Object.entries(node.inputs)) {
				const link = asLink(value);
				if (link && !Object.hasOwn(graph, link[0])) delete node.inputs[name];
			}
		}
		setConversionNotes(graph, notes.all);
		return { graph };
	} catch (error) {
		// Anything else is a shape the reader did not expect: still a message, never a crash.
		const hint = (error instanceof ConversionProblem && error.hint) || REFRESH_HINT;
		return { problem: { message: `${field}: ${(error as Error).message}`, hint } };
	}
}
