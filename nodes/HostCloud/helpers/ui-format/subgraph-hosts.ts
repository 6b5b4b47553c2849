/**
 * What a subgraph instance (its host node) brings to the definition it uses, by the editor's rules:
 * - which saved input of the host stands for which input of the current definition: matched by
 *   name and type, then by name, as the editor rebinds a saved instance when it opens the file
 *   (a definition edited since the host was saved has inputs added, removed or reordered);
 * - the values of its promoted widgets: one per `properties.proxyWidgets` entry, in that order,
 *   when the host has the list; else one per widget input of the definition, in its order.
 */
import { ownValue } from '../../../shared/validation';
import { describeNode, SUBGRAPH_INPUT_ID, type UiGraph, type UiNode, type UiSubgraph } from './graph';
import type { ConversionNotes } from './notes';
import { isWidgetInput, widgetLayout } from './widgets';
import type { NodeDefinitions } from '../graph/workflow-graph';

/** For each input of the definition, the index of the host's saved input bound to it (or none). */
export type InputBinding = Array<number | undefined>;

/** Binds the host's saved inputs to the definition's inputs; says so when that is not one to one in order. */
export function bindHostInputs(id: string, host: UiNode, subgraph: UiSubgraph, notes: ConversionNotes): InputBinding {
	const ports = subgraph.inputs;
	// Legacy group nodes number their inputs themselves (group-nodes.ts): positions are right.
	if (subgraph.legacyGroup) return ports.map((_, slot) => (slot < host.inputs.length ? slot : undefined));
	const binding: InputBinding = ports.map(() => undefined);
	const free = (match: (slot: number) => boolean) => ports.findIndex((_, slot) => binding[slot] === undefined && match(slot));
	const moved: string[] = [];
	const lost: string[] = [];
	for (const [index, input] of host.inputs.entries()) {
		let slot = free((candidate) => ports[candidate].name === input.name && ports[candidate].type === input.type);
		if (slot === -1) slot = free((candidate) => ports[candidate].name === input.name);
		if (slot !== -1) binding[slot] = index;
		if (slot !== -1 && slot !== index) moved.push(input.name);
		if (slot === -1 && input.link !== null) lost.push(input.name);
	}
	if (moved.length > 0 || lost.length > 0) {
		const parts = [
			...(moved.length > 0 ? [`${quoted(moved)} matched by name`] : []),
			...(lost.length > 0
				? [`${quoted(lost)} no longer in the subgraph, so ${lost.length === 1 ? 'its link is' : 'their links are'} not used`]
				: []),
		];
		notes.add(
			`${describeNode(id, host, `subgraph "${subgraph.name}"`)} was saved with other inputs than the subgraph has now: rebound as the editor does when it opens the file (${parts.join('; ')}).`,
		);
	}
	return binding;
}

const quoted = (names: string[]) => names.map((name) => `"${name}"`).join(', ');

/** Values a host gives: for the definition's inputs (by slot), and for inner nodes' widgets (by inner id, then name). */
export interface HostValues {
	slots: Map<number, unknown>;
	widgets: Map<string, Map<string, unknown>>;
}

export const noHostValues = (): HostValues => ({ slots: new Map(), widgets: new Map() });

/** `proxyWidgets` as saved: a list of `[inner node id, widget name]`, or that list as JSON text. */
function proxyEntries(host: UiNode): Array<[string, string]> | undefined {
	let raw = host.properties.proxyWidgets;
	if (typeof raw === 'string') {
		try {
			raw = JSON.parse(raw) as unknown;
		} catch {
			return undefined;
		}
	}
	if (!Array.isArray(raw)) return undefined;
	return raw
		.filter((entry): entry is [unknown, unknown] => Array.isArray(entry) && entry.length >= 2)
		.map(([node, name]) => [String(node), String(name)]);
}

/** Older editors saved a nested promotion's name with its path in front ("6: 3: string_a"). */
const widgetNameOf = (name: string) => name.replace(/^(?:-?\d+: )+/, '');

/** The inner node an entry names, when it is an instance expanded there (a nested host). */
export type NestedHost = (nodeId: string) => { subgraph: UiSubgraph; values: HostValues } | undefined;

/**
 * Where one `proxyWidgets` entry's value goes: a definition input ("-1", by name), an inner widget
 * fed from a definition input (that input), a nested host's input (by name), or the inner widget.
 */
function placeEntry(
	subgraph: UiSubgraph,
	values: HostValues,
	[nodeId, rawName]: [string, string],
	value: unknown,
	nested: NestedHost,
): void {
	const name = widgetNameOf(rawName);
	const slotNamed = (ports: UiSubgraph['inputs']) => ports.findIndex((port) => port.name === name);
	if (nodeId === '-1') {
		const slot = slotNamed(subgraph.inputs);
		if (slot !== -1) values.slots.set(slot, value);
		return;
	}
	const host = nested(nodeId);
	if (host) {
		const slot = slotNamed(host.subgraph.inputs);
		if (slot !== -1) host.values.slots.set(slot, value);
		return;
	}
	const graph: UiGraph = subgraph;
	const inner = graph.byId.get(nodeId);
	const input = inner?.inputs.find((candidate) => (candidate.widgetName ?? candidate.name) === name);
	const link = input?.link === null || input === undefined ? undefined : graph.links.get(input.link);
	if (link?.originId === SUBGRAPH_INPUT_ID) {
		values.slots.set(link.originSlot, value);
		return;
	}
	if (!values.widgets.has(nodeId)) values.widgets.set(nodeId, new Map());
	values.widgets.get(nodeId)!.set(name, value);
}

/**
 * Applies a host's saved `widgets_values` into `values` (and into nested hosts' values, which an
 * outer host overrides: call innermost hosts first).
 */
export function applyHostValues(
	host: UiNode,
	subgraph: UiSubgraph,
	binding: InputBinding,
	values: HostValues,
	definitions: NodeDefinitions,
	nested: NestedHost,
): void {
	const saved = host.widgetsValues;
	if (subgraph.legacyGroup || !Array.isArray(saved)) return;
	const entries = proxyEntries(host);
	if (entries) {
		entries.forEach((entry, position) => {
			const value = saved[position];
			if (value !== undefined && value !== null) placeEntry(subgraph, values, entry, value, nested);
		});
		return;
	}
	// No list: one value per definition input that stands for a widget, in the definition's order.
	const promoted = subgraph.inputs
		.map((port, slot) => ({
			slot,
			target: widgetTarget(subgraph, port.linkIds, host.inputs[binding[slot] ?? -1]?.widgetName, definitions),
		}))
		.filter((entry) => entry.target !== undefined);
	// Older editors also saved the control after a promoted seed.
	const withControls = saved.length > promoted.length;
	let position = 0;
	for (const entry of promoted) {
		if (position < saved.length && saved[position] !== undefined) values.slots.set(entry.slot, saved[position]);
		position += withControls && entry.target!.control ? 2 : 1;
	}
}

/** The inner widget a definition input feeds, if it feeds one. */
function widgetTarget(
	graph: UiGraph,
	linkIds: number[],
	savedWidget: string | undefined,
	definitions: NodeDefinitions,
): { control: boolean } | undefined {
	for (const linkId of linkIds) {
		const link = graph.links.get(linkId);
		const node = link && graph.byId.get(link.targetId);
		const input = node?.inputs.find((candidate) => candidate.link === linkId);
		const definition = node && ownValue(definitions, node.type);
		if (!input || !node) continue;
		const name = input.widgetName ?? input.name;
		if (definition && isWidgetInput(definition, name)) {
			return { control: widgetLayout(definition).some((slot) => slot.name === name && slot.role === 'control') };
		}
		if (input.widgetName || savedWidget) return { control: false };
	}
	return undefined;
}
