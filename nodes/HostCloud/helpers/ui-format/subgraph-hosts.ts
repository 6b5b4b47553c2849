/**
 * What a subgraph instance (its host node) brings to the definition it uses, by the editor's rules:
 * - which saved input of the host stands for which input of the current definition: matched by
 *   name and type, then by name, as the editor rebinds a saved instance when it opens the file
 *   (a definition edited since the host was saved has inputs added, removed or reordered);
 * - the values of its promoted widgets: one per `properties.proxyWidgets` entry, in that order,
 *   when the host has the list; else one per saved input bound to a definition input that feeds a
 *   widget, in the host's saved order (the editor gives the values to the widgets of its inputs).
 * Lookups over a definition are built once (a file can give a host tens of thousands of inputs).
 */
import { ownValue } from '../../../shared/items/validation';
import { ConversionProblem, describeNode, SUBGRAPH_INPUT_ID, VIRTUAL_TYPES, type UiInput, type UiNode, type UiSubgraph } from './graph';
import { clip, quotedNames, type ConversionNotes } from './notes';
import { readProxyWidgets, type ProxyEntry } from './proxy-widgets';
import { misfit, valueWidget, widgetLayout, type WidgetSlot } from './widgets';
import type { NodeDefinitions } from '../graph/class-definitions';

/** For each input of the definition, the index of the host's saved input bound to it (or none). */
export type InputBinding = Array<number | undefined>;

/** Lookups over one definition, shared by all its instances. */
interface DefinitionIndex {
	/** Definition inputs by "name\ntype", then by name, in order. */
	bySignature: Map<string, number[]>;
	byName: Map<string, number[]>;
	/** The inner input each link ends at. */
	byLink: Map<number, { node: UiNode; input: UiInput }>;
	/** Inner inputs by node id, then by the widget they stand for (or their name). */
	innerInputs: Map<string, Map<string, UiInput>>;
}

const indexes = new WeakMap<UiSubgraph, DefinitionIndex>();

function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
	const list = map.get(key);
	if (list) list.push(value);
	else map.set(key, [value]);
}

function indexOf(subgraph: UiSubgraph): DefinitionIndex {
	const known = indexes.get(subgraph);
	if (known) return known;
	const index: DefinitionIndex = { bySignature: new Map(), byName: new Map(), byLink: new Map(), innerInputs: new Map() };
	subgraph.inputs.forEach((port, slot) => {
		pushTo(index.bySignature, `${port.name}\n${port.type}`, slot);
		pushTo(index.byName, port.name, slot);
	});
	for (const node of subgraph.nodes) {
		const named = new Map<string, UiInput>();
		for (const input of node.inputs) {
			if (input.link !== null && !index.byLink.has(input.link)) index.byLink.set(input.link, { node, input });
			const name = input.widgetName ?? input.name;
			if (!named.has(name)) named.set(name, input);
		}
		if (!index.innerInputs.has(node.id)) index.innerInputs.set(node.id, named);
	}
	indexes.set(subgraph, index);
	return index;
}

/** Binds the host's saved inputs to the definition's inputs; says so when that is not one to one in order. */
export function bindHostInputs(id: string, host: UiNode, subgraph: UiSubgraph, notes: ConversionNotes): InputBinding {
	const ports = subgraph.inputs;
	// Legacy group nodes number their inputs themselves (group-nodes.ts): positions are right.
	if (subgraph.legacyGroup) return ports.map((_, slot) => (slot < host.inputs.length ? slot : undefined));
	const { bySignature, byName } = indexOf(subgraph);
	const binding: InputBinding = ports.map(() => undefined);
	// The first slot of a list not bound yet; slots are only ever taken, so each list is walked once.
	const cursors = new Map<number[], number>();
	const free = (slots: number[] | undefined): number => {
		if (!slots) return -1;
		let at = cursors.get(slots) ?? 0;
		while (at < slots.length && binding[slots[at]] !== undefined) at++;
		cursors.set(slots, at);
		return at < slots.length ? slots[at] : -1;
	};
	const moved: string[] = [];
	const lost: string[] = [];
	for (const [index, input] of host.inputs.entries()) {
		let slot = free(bySignature.get(`${input.name}\n${input.type}`));
		if (slot === -1) slot = free(byName.get(input.name));
		if (slot !== -1) binding[slot] = index;
		if (slot !== -1 && slot !== index) moved.push(input.name);
		if (slot === -1 && input.link !== null) lost.push(input.name);
	}
	if (moved.length > 0 || lost.length > 0) {
		const parts = [
			...(moved.length > 0 ? [`${quotedNames(moved)} matched by name`] : []),
			...(lost.length > 0
				? [`${quotedNames(lost)} no longer in the subgraph, so ${lost.length === 1 ? 'its link is' : 'their links are'} not used`]
				: []),
		];
		notes.add(
			`${hostName(id, host, subgraph)} was saved with other inputs than the subgraph has now: rebound as the editor does when it opens the file (${parts.join('; ')}).`,
		);
	}
	return binding;
}

const hostName = (id: string, host: UiNode, subgraph: UiSubgraph) => describeNode(id, host, `subgraph "${clip(subgraph.name)}"`);

/** Values a host gives: for the definition's inputs (by slot), and for inner nodes' widgets (by inner id, then name). */
export interface HostValues {
	slots: Map<number, unknown>;
	widgets: Map<string, Map<string, unknown>>;
}

export const noHostValues = (): HostValues => ({ slots: new Map(), widgets: new Map() });

/** Widgets the editor draws that are never sent (a seed's control, an image preview): an entry may name them. */
const EDITOR_ONLY_WIDGET = /^(?:control_after_generate|control_filter_list|\$\$.*)$/;

/** Older editors saved a nested promotion's name with its path in front ("6: 3: string_a"). */
const widgetNameOf = (name: string) => name.replace(/^(?:-?\d+: )+/, '');

/** The inner node an entry names, when it is an instance expanded there (a nested host). */
export type NestedHost = (nodeId: string) => { subgraph: UiSubgraph; values: HostValues } | undefined;

/** What applying one host's values needs besides the host: its execution id, the definitions, the notes. */
export interface HostContext {
	id: string;
	definitions: NodeDefinitions;
	notes: ConversionNotes;
	nested: NestedHost;
}

/** The inner widget a definition input feeds, if it feeds one: its slot (when the class is known) and whether a control follows it. */
interface WidgetTarget {
	control: boolean;
	widget?: WidgetSlot;
}

/** Where one promoted value goes, and the widget it must fit. */
interface Placement {
	set: (value: unknown) => void;
	widget?: WidgetSlot;
}

function widgetTarget(
	subgraph: UiSubgraph,
	slot: number,
	savedWidget: string | undefined,
	definitions: NodeDefinitions,
): WidgetTarget | undefined {
	const { byLink } = indexOf(subgraph);
	for (const linkId of subgraph.inputs[slot]?.linkIds ?? []) {
		const end = byLink.get(linkId);
		if (!end) continue;
		const name = end.input.widgetName ?? end.input.name;
		const definition = ownValue(definitions, end.node.type);
		const widget = definition && valueWidget(definition, name);
		if (definition && widget) {
			return { control: widgetLayout(definition).some((candidate) => candidate.name === name && candidate.role === 'control'), widget };
		}
		if (end.input.widgetName || savedWidget) return { control: false };
	}
	return undefined;
}

/**
 * Where one `proxyWidgets` entry's value goes: a definition input ("-1", by name), an inner widget
 * fed from a definition input (that input), a nested host's input (by name), or the inner widget;
 * undefined when the entry names none of these.
 */
function placeEntry(subgraph: UiSubgraph, values: HostValues, [nodeId, rawName]: ProxyEntry, context: HostContext): Placement | undefined {
	const name = widgetNameOf(rawName);
	const toSlot = (graph: UiSubgraph, into: HostValues): Placement | undefined => {
		const slot = indexOf(graph).byName.get(name)?.[0];
		if (slot === undefined) return undefined;
		return { set: (value) => into.slots.set(slot, value), widget: widgetTarget(graph, slot, undefined, context.definitions)?.widget };
	};
	if (nodeId === '-1') return toSlot(subgraph, values);
	const host = context.nested(nodeId);
	if (host) return toSlot(host.subgraph, host.values);
	const inner = subgraph.byId.get(nodeId);
	if (!inner) return undefined;
	const input = indexOf(subgraph).innerInputs.get(nodeId)?.get(name);
	const link = input?.link === null || input === undefined ? undefined : subgraph.links.get(input.link);
	if (link?.originId === SUBGRAPH_INPUT_ID) {
		const slot = link.originSlot;
		return { set: (value) => values.slots.set(slot, value), widget: widgetTarget(subgraph, slot, undefined, context.definitions)?.widget };
	}
	if (EDITOR_ONLY_WIDGET.test(name)) return { set: () => undefined };
	const definition = ownValue(context.definitions, inner.type);
	const widget = definition && valueWidget(definition, name);
	// A PrimitiveNode's value goes where it points; an unknown class is refused later, naming it.
	if (!widget && !VIRTUAL_TYPES.has(inner.type) && definition) return undefined;
	return {
		set: (value) => {
			if (!values.widgets.has(nodeId)) values.widgets.set(nodeId, new Map());
			values.widgets.get(nodeId)!.set(name, value);
		},
		widget,
	};
}

/** The promoted widgets of a host without a list: its saved inputs bound to a definition input that feeds a widget, in saved order. */
function promotedInputs(host: UiNode, subgraph: UiSubgraph, binding: InputBinding, context: HostContext) {
	const slotOf = new Map<number, number>();
	binding.forEach((index, slot) => index !== undefined && slotOf.set(index, slot));
	return host.inputs.flatMap((input, index) => {
		const slot = slotOf.get(index);
		const target = slot === undefined ? undefined : widgetTarget(subgraph, slot, input.widgetName, context.definitions);
		return target && slot !== undefined ? [{ slot, name: input.name, target }] : [];
	});
}

/**
 * Applies a host's saved `widgets_values` into `values` (and into nested hosts' values, which an
 * outer host overrides: call innermost hosts first). A value of the wrong kind for its widget is
 * refused as a node's own would be; values and widgets that do not pair up are named in the notes.
 */
export function applyHostValues(host: UiNode, subgraph: UiSubgraph, binding: InputBinding, values: HostValues, context: HostContext): void {
	const saved = host.widgetsValues;
	if (subgraph.legacyGroup || !Array.isArray(saved)) return;
	const name = hostName(context.id, host, subgraph);
	const list = readProxyWidgets(host.properties);
	if (list && 'refused' in list) {
		context.notes.add(
			`${name}: its properties.proxyWidgets is not a list the editor reads (${list.refused}), so the editor ignores all of it, as this conversion does: its values go to its promoted inputs in order.`,
		);
	}
	const pairs: Array<{ label: string; placement?: Placement; control?: boolean }> = [];
	if (list && 'entries' in list) {
		for (const entry of list.entries) {
			const label = entry[0] === '-1' ? entry[1] : `${entry[1]} (node ${entry[0]})`;
			pairs.push({ label, placement: placeEntry(subgraph, values, entry, context) });
		}
	} else {
		for (const { slot, name: input, target } of promotedInputs(host, subgraph, binding, context)) {
			pairs.push({
				label: input,
				placement: { set: (value) => values.slots.set(slot, value), widget: target.widget },
				control: target.control,
			});
		}
	}
	// Older editors also saved the control after a promoted seed (the list then runs longer).
	const withControls = !(list && 'entries' in list) && saved.length > pairs.length;
	let position = 0;
	const missing: string[] = [];
	const unplaced: string[] = [];
	for (const { label, placement, control } of pairs) {
		if (!placement) unplaced.push(label);
		// A host saved with no values at all uses the subgraph's: only a list cut short is worth a note.
		else if (position >= saved.length && saved.length > 0) missing.push(label);
		const value = saved[position];
		const problem = placement?.widget && misfit(placement.widget, value);
		if (problem) {
			throw new ConversionProblem(
				`${name}: its saved value ${position + 1} of ${saved.length} (widgets_values) for promoted widget "${clip(label)}" does not fit: ${problem}`,
				'The file was saved with another version of the subgraph or of the node inside it, or edited by hand. Open it in the editor connected to this server and save it again.',
			);
		}
		if (value !== undefined && value !== null) placement?.set(value);
		position += withControls && control ? 2 : 1;
	}
	noteMismatches(name, context.notes, { unplaced, missing, extra: saved.slice(position) });
}

function noteMismatches(name: string, notes: ConversionNotes, found: { unplaced: string[]; missing: string[]; extra: unknown[] }): void {
	const { unplaced, missing, extra } = found;
	if (unplaced.length > 0) {
		notes.add(
			`${name}: its promoted widgets ${quotedNames(unplaced)} name nothing in the subgraph: their values are not used, as in the editor.`,
		);
	}
	if (missing.length > 0) {
		notes.add(
			`${name}: the file has no value for its promoted widgets ${quotedNames(missing)}: the values inside the subgraph are sent, as the editor does.`,
		);
	}
	if (extra.some((value) => value !== null && value !== '')) {
		const shown = JSON.stringify(extra) ?? '';
		notes.add(
			`${name}: ${extra.length === 1 ? '1 saved value' : `${extra.length} saved values`} after its promoted widgets (${clip(shown)}) not sent: the editor ignores values beyond an instance's widgets.`,
		);
	}
}
