/**
 * Legacy group nodes (`workflow>NAME`, `extra.groupNodes`), rebuilt per instance as a subgraph so
 * one walker serves both: inner node i becomes "<instance id>:i"; the group's inputs and outputs
 * are numbered the way the editor numbered them (inner nodes in order; sockets not linked inside,
 * then converted widgets not linked inside; outputs not used only inside); the instance's
 * `widgets_values` are the inner nodes' widget values one after the other, and override theirs.
 */
import { isRecord, ownValue } from '../../../shared/items/validation';
import { readNode, type UiLink, type UiNode, type UiSubgraph } from './graph';
import { socketInputs, widgetLayout, withoutForcedValues } from './widgets';
import type { GraphProblem } from '../graph/workflow-graph';
import type { NodeDefinitions } from '../graph/class-definitions';

type SlotMap = Map<number, Map<number, true>>;

function mark(map: SlotMap, node: number, slot: number): void {
	if (!map.has(node)) map.set(node, new Map());
	map.get(node)!.set(slot, true);
}

const has = (map: SlotMap, node: number, slot?: number) => (slot === undefined ? map.has(node) : Boolean(map.get(node)?.get(slot)));

function outputCount(definition: { output?: unknown } | undefined): number {
	return Array.isArray(definition?.output) ? definition.output.length : 0;
}

interface Ports {
	inputs: Array<{ node: number; slot: number }>;
	outputs: Array<{ node: number; slot: number }>;
}

/** The group's inputs and outputs, in the editor's numbering. */
function groupPorts(nodes: UiNode[], definitions: NodeDefinitions, linksTo: SlotMap, linksFrom: SlotMap, external: SlotMap): Ports {
	const ports: Ports = { inputs: [], outputs: [] };
	const converted: Array<{ node: number; slot: number }> = [];
	const addOutputs = (index: number, count: number) => {
		for (let slot = 0; slot < count; slot++) {
			if (!has(linksFrom, index, slot) || has(external, index, slot)) ports.outputs.push({ node: index, slot });
		}
	};
	for (const [index, node] of nodes.entries()) {
		const definition = ownValue(definitions, node.type);
		if (definition) {
			const sockets = socketInputs(definition);
			sockets.forEach((_, slot) => !has(linksTo, index, slot) && ports.inputs.push({ node: index, slot }));
			// Converted widgets come after every node's sockets.
			const widgets = node.inputs.filter((input) => input.widgetName !== undefined);
			widgets.forEach((_, position) => {
				const slot = sockets.length + position;
				if (!has(linksTo, index, slot)) converted.push({ node: index, slot });
			});
			addOutputs(index, outputCount(definition));
		} else if (node.type === 'Reroute') {
			// A Reroute used only inside the group is not one of its slots.
			if (has(linksTo, index) && has(linksFrom, index) && !has(external, index, 0)) continue;
			if (!has(linksTo, index, 0)) ports.inputs.push({ node: index, slot: 0 });
			addOutputs(index, 1);
		} else if (node.type === 'PrimitiveNode' && has(linksFrom, index)) {
			addOutputs(index, 1);
		}
	}
	ports.inputs.push(...converted);
	return ports;
}

/** Spreads the instance's values over the inner nodes, in order; an inner node keeps a value the list does not reach. */
function spreadValues(nodes: UiNode[], definitions: NodeDefinitions, linksFrom: SlotMap, values: unknown[]): void {
	let cursor = 0;
	const take = (fallback: unknown) => (cursor < values.length ? values[cursor++] : fallback);
	for (const [index, node] of nodes.entries()) {
		const definition = ownValue(definitions, node.type);
		const saved = Array.isArray(node.widgetsValues) ? node.widgetsValues : undefined;
		if (definition) {
			const own = saved ? withoutForcedValues(definition, saved) : [];
			const linked = new Set(node.inputs.filter((input) => input.widgetName && input.link !== null).map((input) => input.widgetName));
			// Widgets the node did not have when the group was saved (inputs added since) are not in the list.
			node.widgetsValues = widgetLayout(definition).map((slot, position) =>
				(saved && position >= own.length) || linked.has(slot.name) ? own[position] : take(own[position]),
			);
		} else if (node.type === 'PrimitiveNode' && has(linksFrom, index)) {
			node.widgetsValues = [take(saved?.[0]), take(saved?.[1])];
		}
	}
}

/** The inner nodes of group node `name`, unlinked (their links are rebuilt from the group's), or the first that cannot be read. */
function innerNodes(name: string, group: Record<string, unknown>): UiNode[] | GraphProblem {
	const nodes: UiNode[] = [];
	for (const [index, raw] of (Array.isArray(group.nodes) ? group.nodes : []).entries()) {
		const node = readNode(raw, index, `group node "${name}"`, String(index));
		if ('message' in node) return node;
		// Ids saved on the inner nodes belong to another graph.
		node.inputs = node.inputs.map((input) => ({ ...input, link: null }));
		nodes.push(node);
	}
	return nodes;
}

/** The inner output slots the group's saved `external` list says are used outside it. */
function externalSlots(group: Record<string, unknown>): SlotMap {
	const external: SlotMap = new Map();
	for (const entry of Array.isArray(group.external) ? group.external : []) {
		if (!Array.isArray(entry)) continue;
		const [node, slot] = entry as unknown[];
		const index = typeof node === 'number' ? node : isRecord(node) && typeof node.index === 'number' ? node.index : undefined;
		if (index !== undefined && typeof slot === 'number') mark(external, index, slot);
	}
	return external;
}

/** The instance `instance` of group node `name`, as a subgraph of its own. */
export function groupNodeSubgraph(
	instance: UiNode,
	name: string,
	group: Record<string, unknown>,
	definitions: NodeDefinitions,
): UiSubgraph | GraphProblem {
	const nodes = innerNodes(name, group);
	if (!Array.isArray(nodes)) return nodes;
	const links = new Map<number, UiLink>();
	const linksTo: SlotMap = new Map();
	const linksFrom: SlotMap = new Map();
	const connect = (link: Omit<UiLink, 'id'>): number => {
		const id = links.size + 1;
		links.set(id, { ...link, id });
		const target = nodes[Number(link.targetId)]?.inputs[link.targetSlot];
		if (target) target.link = id;
		return id;
	};
	for (const raw of Array.isArray(group.links) ? group.links : []) {
		if (!Array.isArray(raw)) continue;
		const [origin, originSlot, target, targetSlot, , type] = raw as unknown[];
		if (typeof origin !== 'number' || typeof target !== 'number' || typeof originSlot !== 'number' || typeof targetSlot !== 'number')
			continue;
		mark(linksTo, target, targetSlot);
		mark(linksFrom, origin, originSlot);
		connect({ originId: String(origin), originSlot, targetId: String(target), targetSlot, type: String(type ?? '*') });
	}
	const external = externalSlots(group);
	if (Array.isArray(instance.widgetsValues)) spreadValues(nodes, definitions, linksFrom, instance.widgetsValues);

	const ports = groupPorts(nodes, definitions, linksTo, linksFrom, external);
	const inputs = ports.inputs.map(({ node, slot }, k) => {
		const input = nodes[node].inputs[slot];
		const id = connect({ originId: '-10', originSlot: k, targetId: String(node), targetSlot: slot, type: input?.type ?? '*' });
		return { name: input?.name ?? '', type: input?.type ?? '*', linkIds: [id] };
	});
	const outputs = ports.outputs.map(({ node, slot }, k) => {
		const type = nodes[node].outputs[slot]?.type ?? '*';
		const id = links.size + 1;
		links.set(id, { id, originId: String(node), originSlot: slot, targetId: '-20', targetSlot: k, type });
		return { name: nodes[node].outputs[slot]?.name ?? '', type, linkIds: [id] };
	});
	return {
		id: `group:${name}`,
		name,
		nodes,
		byId: new Map(nodes.map((node) => [node.id, node])),
		links,
		inputs,
		outputs,
		legacyGroup: true,
	};
}
