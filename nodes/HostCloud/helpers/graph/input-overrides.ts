/**
 * Setting a graph's inputs without editing JSON (Input Overrides): each entry names a node and an
 * input; a typed value is converted to what the input holds now, a value picked from the server's
 * list is taken as it is, and a connection is never overwritten. Pure: a problem names the entry.
 */
import { isPlainObject, ownValue } from '../../../shared/items/validation';
import { asLink, type GraphNode, type GraphProblem, type WorkflowGraph } from './workflow-graph';

export interface InputOverride {
	nodeId: string;
	inputName: string;
	value: unknown;
	/** Picked from the values the server lists for the input (Value From Server List). */
	listedValue?: unknown;
}

/**
 * A value typed into a text field, converted to what the input holds now: numbers stay numbers
 * and true/false stay booleans, so "30" sets steps to 30, not to the text "30".
 */
export function coerceInputValue(current: unknown, value: unknown): { value: unknown } | { problem: string } {
	if (typeof value !== 'string') return coerceNonText(current, value);
	const text = value.trim();
	if (typeof current === 'number' || (current === undefined && /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(text))) {
		const number = Number(text);
		if (text === '' || !Number.isFinite(number)) return { problem: `"${value}" is not a number` };
		return { value: number };
	}
	if (typeof current === 'boolean' || (current === undefined && /^(true|false)$/i.test(text))) {
		if (/^true$/i.test(text)) return { value: true };
		if (/^false$/i.test(text)) return { value: false };
		return { problem: `"${value}" is not true or false` };
	}
	return { value };
}

/** The kind of value an input holds, in a user's words. */
const kindOf = (value: unknown): string =>
	Array.isArray(value)
		? 'a list'
		: value === null
			? 'null'
			: typeof value === 'object'
				? 'an object'
				: typeof value === 'string'
					? 'text'
					: `a ${typeof value}`;

/**
 * A value from an expression (or an AI agent) that is not text: a number or true/false into a text
 * input becomes that text; a list or object only goes where the input holds one already (in the
 * API format a two-element list is a link to another node); other mixes are refused.
 */
function coerceNonText(current: unknown, value: unknown): { value: unknown } | { problem: string } {
	const structured = (v: unknown) => Array.isArray(v) || (typeof v === 'object' && v !== null);
	if (typeof current === 'string' && (typeof value === 'number' || typeof value === 'boolean')) return { value: String(value) };
	if (current === undefined ? !structured(value) : structured(current) === structured(value) && typeof current === typeof value) {
		return { value };
	}
	return { problem: `${kindOf(value)} was given (${JSON.stringify(value)?.slice(0, 40) ?? String(value)})` };
}

/**
 * An asset reference (`{"__type": "core/ASSET", "info": {"id": …}}`, Upload Image's `asset_reference`
 * on v2), given as the object or as its JSON text: the object, or undefined when it is not one.
 */
export function assetReferenceIn(value: unknown): Record<string, unknown> | undefined {
	let candidate = value;
	if (typeof value === 'string' && value.trim().startsWith('{')) {
		try {
			candidate = JSON.parse(value) as unknown;
		} catch {
			return undefined;
		}
	}
	if (!isPlainObject(candidate) || candidate.__type !== 'core/ASSET' || !isPlainObject(candidate.info)) return undefined;
	const id = (candidate.info as Record<string, unknown>).id;
	return typeof id === 'string' && id.trim() !== '' ? (candidate as Record<string, unknown>) : undefined;
}

/**
 * Where an input loads a file by name (it holds text, or a reference already), v2 takes an asset
 * reference instead (docs/host-cloud.md, "Files on v2"): sent as given. v1's server knows no assets.
 */
function assetReferenceInput(current: unknown, value: unknown, assets: boolean): { value: unknown } | { problem: string } | undefined {
	if (typeof current !== 'string' && current !== undefined && !assetReferenceIn(current)) return undefined;
	const reference = assetReferenceIn(value);
	if (!reference) return undefined;
	if (assets) return { value: reference };
	// Its JSON text too: it is the same reference (a v1 server would look for a file named so).
	return { problem: 'an asset reference (core/ASSET) was given, which only the v2 API takes (a Host Cloud V2 API credential)' };
}

/** Names n8n removes from the objects it sends (it guards against prototype pollution). */
const UNSENDABLE_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Sets each override on the graph (in place). `field` is the display name of the overrides
 * parameter; `assets`: the graph goes to the v2 API, which takes asset references for files.
 */
export function applyInputOverrides(
	graph: WorkflowGraph,
	overrides: InputOverride[],
	field: string,
	{ assets = false }: { assets?: boolean } = {},
): GraphProblem | undefined {
	for (const [position, override] of overrides.entries()) {
		const where = `${field} (entry ${position + 1})`;
		const nodeId = override.nodeId.trim();
		const inputName = override.inputName.trim();
		if (nodeId === '') return { message: `${where} has no node`, hint: 'Pick the node whose input you want to set.' };
		const node = ownValue(graph, nodeId);
		if (!node) {
			return { message: `${where}: the workflow has no node "${nodeId}"`, hint: `The workflow's nodes are: ${nodeList(graph)}.` };
		}
		if (inputName === '') return { message: `${where} has no input name`, hint: `Inputs of node "${nodeId}": ${inputList(node)}.` };
		// n8n drops these keys from every request body: the input would silently not be sent.
		if (UNSENDABLE_NAMES.has(inputName)) {
			return { message: `${where}: an input cannot be named "${inputName}": n8n leaves such a name out of what it sends` };
		}
		const current = ownValue(node.inputs, inputName);
		const link = asLink(current);
		if (link) {
			return {
				message: `${where}: input "${inputName}" of node "${nodeId}" (${node.class_type}) is connected to node "${link[0]}"; overrides set values, not connections`,
				hint: `Pick an input that holds a value. Inputs of node "${nodeId}" with values: ${inputList(node)}.`,
			};
		}
		const chosen = chosenValue(override);
		if ('problem' in chosen) return { message: `${where}: ${chosen.problem}`, hint: 'Clear one of the two.' };
		const coerced = assetReferenceInput(current, chosen.value, assets) ?? coerceInputValue(current, chosen.value);
		if ('problem' in coerced) {
			return {
				message: `${where}: input "${inputName}" of node "${nodeId}" (${node.class_type}) needs ${typeof current === 'boolean' ? 'a true/false value' : current === undefined ? 'a single value' : kindOf(current)}, and ${coerced.problem}`,
			};
		}
		node.inputs[inputName] = coerced.value;
	}
	return undefined;
}

/** The value of an entry: the one picked from the server's list, else the typed one; both set and different is a mistake. */
function chosenValue(override: InputOverride): { value: unknown } | { problem: string } {
	const listed = override.listedValue;
	if (listed === undefined || listed === '' || listed === null) return { value: override.value };
	const typed = override.value;
	if (typed !== '' && typed !== null && typed !== undefined && String(typed) !== String(listed)) {
		return { problem: `both Value (${JSON.stringify(typed)}) and Value From Server List (${JSON.stringify(listed)}) are set` };
	}
	return { value: listed };
}

function nodeList(graph: WorkflowGraph): string {
	return Object.entries(graph)
		.map(([id, node]) => `"${id}" (${node.class_type})`)
		.join(', ');
}

function inputList(node: GraphNode): string {
	const names = Object.entries(node.inputs)
		.filter(([, value]) => !asLink(value))
		.map(([name]) => name);
	return names.length ? names.join(', ') : 'none';
}
