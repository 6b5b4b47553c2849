/**
 * Widgets of a node as the ComfyUI editor builds them from the server's node definition, and the
 * values a saved node holds for them. `widgets_values` is positional, so the order is everything:
 * `input_order` (or the definition's key order), with the editor's unsent extras in their slots (the
 * control after a seed, the control and filter after a combo that has one, the upload button).
 */
import { isRecord } from '../../../shared/items/validation';
import type { ClassDefinition } from '../graph/class-definitions';

/** Input types the editor draws as widgets; any other type is a socket only. */
const WIDGET_TYPES = new Set([
	'INT',
	'FLOAT',
	'BOOLEAN',
	'STRING',
	'COMBO',
	'MARKDOWN',
	'IMAGEUPLOAD',
	'COLOR',
	'IMAGECOMPARE',
	'BOUNDING_BOX',
	'CHART',
	'GALLERIA',
	'PAINTER',
	'TEXTAREA',
	'CURVE',
	'RANGE',
]);

const UPLOAD_FLAGS = ['image_upload', 'video_upload', 'animated_image_upload'];
const CONTROL_WORDS = ['fixed', 'increment', 'decrement', 'randomize'];
/** Keys of dict-form values that are editor state, never inputs. */
const UNSENT_KEYS = /^(videopreview|upload|choose .* to upload|control_after_generate|control_filter_list)$/;

/**
 * `value` widgets are sent; the others take a slot in `widgets_values` but are not. `refresh` slots
 * (after a combo whose list the editor reloads from the server: its auto-refresh toggle, then its
 * refresh button) are there only in files from editors that had them, so they are read when the
 * saved value looks like theirs.
 */
export type WidgetRole = 'value' | 'control' | 'filter' | 'upload' | 'forced' | 'refresh';

export interface WidgetSlot {
	name: string;
	role: WidgetRole;
	kind: string;
	options: Record<string, unknown>;
	type: unknown;
}

interface InputEntry {
	name: string;
	type: unknown;
	options: Record<string, unknown>;
	required: boolean;
}

function names(value: unknown): string[] {
	return Array.isArray(value) ? value.filter((name): name is string => typeof name === 'string') : [];
}

/** The inputs in the order the editor creates them: `input_order`, then anything it does not name. */
function orderedInputs(definition: ClassDefinition): InputEntry[] {
	const required = isRecord(definition.input?.required) ? definition.input.required : {};
	const optional = isRecord(definition.input?.optional) ? definition.input.optional : {};
	const order = [...names(definition.input_order?.required), ...names(definition.input_order?.optional)];
	const all = [...new Set([...order, ...Object.keys(required), ...Object.keys(optional)])];
	return all
		.filter((name) => Object.hasOwn(required, name) || Object.hasOwn(optional, name))
		.map((name) => {
			const spec = Object.hasOwn(required, name) ? required[name] : optional[name];
			const [type, options] = Array.isArray(spec) ? (spec as unknown[]) : [spec];
			return { name, type, options: isRecord(options) ? options : {}, required: Object.hasOwn(required, name) };
		});
}

function kindOf(type: unknown): string {
	return Array.isArray(type) ? 'COMBO' : typeof type === 'string' ? type : '';
}

function hasSeedControl(entry: InputEntry): boolean {
	const flag = entry.options.control_after_generate;
	if (flag === false) return false;
	return Boolean(flag) || entry.name === 'seed' || entry.name === 'noise_seed';
}

/**
 * The widget slots of a class, in `widgets_values` order. `withForced` also lists the inputs that
 * editors before 1.16 saved a dummy value for (`forceInput`), to drop those values.
 */
export function widgetLayout(definition: ClassDefinition, withForced = false): WidgetSlot[] {
	const slots: WidgetSlot[] = [];
	let upload = false;
	for (const entry of orderedInputs(definition)) {
		const kind = kindOf(entry.type);
		if (!WIDGET_TYPES.has(kind)) continue;
		const slot = (name: string, role: WidgetRole): WidgetSlot => ({ name, role, kind, options: entry.options, type: entry.type });
		if (entry.options.forceInput === true) {
			if (withForced) slots.push(slot(entry.name, 'forced'));
			if (withForced && entry.options.control_after_generate) slots.push(slot(entry.name, 'control'));
			continue;
		}
		slots.push(slot(entry.name, kind === 'IMAGEUPLOAD' ? 'upload' : 'value'));
		if (kind === 'INT' && hasSeedControl(entry)) slots.push(slot(entry.name, 'control'));
		if (kind === 'COMBO' && entry.options.control_after_generate) slots.push(slot(entry.name, 'control'), slot(entry.name, 'filter'));
		const remote = entry.options.remote;
		if (kind === 'COMBO' && isRecord(remote)) {
			slots.push(slot(entry.name, 'refresh'));
			if (remote.refresh_button === true) slots.push(slot(entry.name, 'refresh'));
		}
		if (kind === 'COMBO' && entry.required && UPLOAD_FLAGS.some((flag) => entry.options[flag] === true)) upload = true;
	}
	if (upload) slots.push({ name: 'upload', role: 'upload', kind: 'IMAGEUPLOAD', options: {}, type: 'IMAGEUPLOAD' });
	return slots;
}

/** The widget of the class that an input of this name is drawn as, if it is one (a socket for it carries a value when unlinked). */
export function valueWidget(definition: ClassDefinition, name: string): WidgetSlot | undefined {
	return widgetLayout(definition).find((slot) => slot.name === name && slot.role === 'value');
}

/** The inputs of a class that are sockets only (links), in the editor's order. */
export function socketInputs(definition: ClassDefinition): string[] {
	return orderedInputs(definition)
		.filter((entry) => !WIDGET_TYPES.has(kindOf(entry.type)) || entry.options.forceInput === true)
		.map((entry) => entry.name);
}

function comboOptions(slot: WidgetSlot): unknown[] {
	if (Array.isArray(slot.type)) return slot.type;
	return Array.isArray(slot.options.options) ? slot.options.options : [];
}

/** What a widget holds when the saved node has no value for it. */
function defaultValue(slot: WidgetSlot): unknown {
	if (slot.options.default !== undefined) return slot.options.default;
	if (slot.kind === 'COMBO') return comboOptions(slot)[0] ?? '';
	if (slot.kind === 'INT' || slot.kind === 'FLOAT') return typeof slot.options.min === 'number' ? slot.options.min : 0;
	if (slot.kind === 'BOOLEAN') return false;
	return '';
}

/** Why a saved value cannot belong to its slot (the values are out of step with the definition), or undefined. */
export function misfit(slot: WidgetSlot, value: unknown): string | undefined {
	if (value === undefined || value === null) return undefined;
	const shown = JSON.stringify(value)?.slice(0, 60);
	if (slot.role === 'control') {
		return typeof value === 'boolean' || CONTROL_WORDS.includes(String(value))
			? undefined
			: `it should be the control after "${slot.name}" (fixed, increment, decrement or randomize), not ${shown}`;
	}
	if (slot.role !== 'value' || fitsKind(slot, value)) return undefined;
	const wanted = { INT: 'a number', FLOAT: 'a number', BOOLEAN: 'true or false', STRING: 'text', COMBO: 'a choice' }[slot.kind];
	return `read as widget "${slot.name}", it should be ${wanted ?? slot.kind}, not ${shown}`;
}

/** Whether a saved value is the one an editor-only refresh slot holds (the toggle's boolean, the button's label). */
const isRefreshValue = (value: unknown) => typeof value === 'boolean' || value === 'refresh' || value === null;

/** Whether a saved value can be a value of its widget (numbers as text included, as the server reads them). */
function fitsKind(slot: WidgetSlot, value: unknown): boolean {
	switch (slot.kind) {
		case 'INT':
		case 'FLOAT':
			return typeof value === 'number' || (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)));
		case 'BOOLEAN':
			return typeof value === 'boolean';
		case 'STRING':
			return typeof value === 'string';
		case 'COMBO':
			return typeof value === 'string' || typeof value === 'number' || (Array.isArray(value) && slot.options.multiselect === true);
		default:
			return true;
	}
}

/** Arrays are wrapped so the server cannot take them for links. */
export function apiValue(slot: WidgetSlot | undefined, value: unknown): unknown {
	if (!Array.isArray(value)) return value;
	return slot?.kind === 'CURVE' ? { __type__: 'CURVE', __value__: value } : { __value__: value };
}

/**
 * A node's widget values to send, in the editor's order, with what was assumed (values beyond the
 * widgets not sent, widgets without a saved value sent at their default); or why they do not fit.
 */
export type WidgetReading = { entries: Array<[string, unknown]>; notes: string[] } | { misfit: string };

const shortJson = (values: unknown[]) => {
	const text = JSON.stringify(values) ?? '';
	return text.length > 80 ? `${text.slice(0, 77)}…` : text;
};

/** Drops the dummy values editors before 1.16 saved for `forceInput` inputs, when the count says they are there. */
export function withoutForcedValues(definition: ClassDefinition, values: unknown[]): unknown[] {
	const legacy = widgetLayout(definition, true);
	if (!legacy.some((slot) => slot.role === 'forced') || legacy.length !== values.length) return values;
	return values.filter((_, index) => legacy[index].role !== 'forced');
}

/**
 * Reads the saved `widgets_values` (a list, or an object keyed by widget name) against the
 * definition. `overrides` replace values by widget name (what a PrimitiveNode pushes into them).
 */
export function readWidgetValues(
	definition: ClassDefinition,
	saved: unknown[] | Record<string, unknown> | undefined,
	overrides: Map<string, unknown> = new Map(),
): WidgetReading {
	const layout = widgetLayout(definition);
	const values = new Map<string, unknown>();
	const notes: string[] = [];
	if (Array.isArray(saved)) {
		const list = withoutForcedValues(definition, saved);
		let cursor = 0;
		const missing: string[] = [];
		for (const slot of layout) {
			if (slot.role === 'refresh' && !(cursor < list.length && isRefreshValue(list[cursor]))) continue;
			const problem = misfit(slot, list[cursor]);
			if (problem) return { misfit: `value ${cursor + 1} of ${list.length} in its widgets_values: ${problem}` };
			if (slot.role === 'value' && cursor >= list.length) missing.push(`"${slot.name}" (${JSON.stringify(defaultValue(slot))})`);
			if (slot.role === 'value') values.set(slot.name, list[cursor] ?? defaultValue(slot));
			cursor++;
		}
		// The editor ignores what is left: values of its own widgets (preview toggles, buttons) that the definition has not.
		const extra = list.slice(cursor);
		if (extra.some((value) => value !== '' && value !== null)) {
			const count = extra.length === 1 ? '1 saved value' : `${extra.length} saved values`;
			notes.push(
				`${count} after its widgets (${shortJson(extra)}) not sent: the editor ignores values beyond a node's widgets (its own widgets such as preview toggles and buttons, or widgets this server's version of the node has not)`,
			);
		}
		if (missing.length > 0) {
			notes.push(
				`the file has no value for ${missing.join(', ')}, widgets the server's definition has and the saved node had not: sent at their defaults, as the editor does`,
			);
		}
	} else if (isRecord(saved)) {
		for (const [name, value] of Object.entries(saved)) {
			const slot = layout.find((candidate) => candidate.name === name);
			if (!UNSENT_KEYS.test(name) && (!slot || slot.role === 'value')) values.set(name, value);
		}
	}
	for (const slot of layout) if (slot.role === 'value' && !values.has(slot.name)) values.set(slot.name, defaultValue(slot));
	for (const [name, value] of overrides) if (values.has(name)) values.set(name, value);
	const slotNamed = (name: string) => layout.find((slot) => slot.name === name && slot.role === 'value');
	return { entries: [...values].map(([name, value]) => [name, apiValue(slotNamed(name), value)]), notes };
}
