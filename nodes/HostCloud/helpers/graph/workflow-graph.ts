/**
 * Workflow graphs in API format (node id → {class_type, inputs}; a link is [node id, output
 * index]): reading one from a node parameter (a UI-format workflow is handed on to ui-format/convert.ts
 * to be converted), refusing malformed graphs before anything is sent, setting inputs without
 * editing JSON, and spotting partner nodes.
 * Pure functions: the node turns a `GraphProblem` into an error that names its field.
 */
import { JSON_LIMITS, jsonValueProblem, readJson } from '../../../shared/transport/json-reader';
import { isRecord, ownValue } from '../../../shared/items/validation';

export interface GraphNode {
	class_type: string;
	inputs: Record<string, unknown>;
	_meta?: { title?: string };
	[key: string]: unknown;
}

export type WorkflowGraph = Record<string, GraphNode>;

/** What is wrong, in words for the user, and what to do about it. */
export interface GraphProblem {
	message: string;
	hint?: string;
}

export type GraphResult = { graph: WorkflowGraph } | { problem: GraphProblem };

/** A parameter's workflow: an API-format graph, a UI-format workflow still to convert, or what is wrong. */
export type WorkflowInput = GraphResult | { uiWorkflow: Record<string, unknown> };

/*
 * What the conversion of a UI-format workflow assumed, for Convert to API Format to show. It rides
 * with the graph object itself, so it reaches the operation along the graph's own path.
 */
const notesByGraph = new WeakMap<WorkflowGraph, string[]>();

export function setConversionNotes(graph: WorkflowGraph, notes: string[]): void {
	notesByGraph.set(graph, notes);
}

/** The notes of a converted graph; none for a graph given in API format. */
export function conversionNotes(graph: WorkflowGraph): string[] {
	return notesByGraph.get(graph) ?? [];
}

const WORKFLOW_FILE_HINT =
	'Paste the workflow file as the editor saves it (Workflow → Save or Export), or in API format (Workflow → Export (API); ' +
	'in older versions, turn on the dev mode options in Settings, then use Save (API Format)), or pass it from an earlier node.';

/** A link is `[source node id, output index]`. */
export function asLink(value: unknown): [string, number] | undefined {
	if (!Array.isArray(value) || value.length !== 2) return undefined;
	const [id, index] = value as unknown[];
	if ((typeof id !== 'string' && typeof id !== 'number') || typeof index !== 'number' || !Number.isInteger(index)) return undefined;
	return [String(id), index];
}

/** A UI-format workflow (what the editor saves) has a `nodes` list (and `links`, or the editor's version fields). */
export function looksLikeUiWorkflow(value: Record<string, unknown>): boolean {
	return Array.isArray(value.nodes) && (Array.isArray(value.links) || 'last_node_id' in value || 'version' in value);
}

/**
 * Reads a workflow graph from a parameter value: JSON text or an object (from an expression).
 * A whole submit body (`{prompt: {...}}`) is accepted too. `field` is the parameter's display name.
 */
export function parseWorkflowGraph(value: unknown, field: string): WorkflowInput {
	let data = value;
	if (typeof data === 'string') {
		const text = data.trim();
		if (text === '') return { problem: { message: `${field} is empty`, hint: WORKFLOW_FILE_HINT } };
		const reading = readJson(text, JSON_LIMITS.pasted);
		if (!('value' in reading)) return { problem: { message: `${field} ${reading.problem}`, hint: WORKFLOW_FILE_HINT } };
		data = reading.value;
	} else {
		// An object from an expression: walked by conversion and redaction, so bounded alike.
		const problem = jsonValueProblem(data, JSON_LIMITS.pasted);
		if (problem) return { problem: { message: `${field} ${problem}`, hint: WORKFLOW_FILE_HINT } };
	}
	if (isRecord(data) && isRecord(data.prompt) && !isRecord(data.prompt.inputs)) data = data.prompt;
	if (!isRecord(data)) {
		return {
			problem: {
				message: `${field} must be a JSON object keyed by node id, like {"3": {"class_type": "KSampler", "inputs": {...}}}`,
				hint: WORKFLOW_FILE_HINT,
			},
		};
	}
	if (looksLikeUiWorkflow(data)) return { uiWorkflow: data };
	const ids = Object.keys(data);
	if (ids.length === 0) return { problem: { message: `${field} has no nodes`, hint: WORKFLOW_FILE_HINT } };
	for (const id of ids) {
		const problem = nodeProblem(id, data[id], field);
		if (problem) return { problem };
	}
	const graph = data as WorkflowGraph;
	for (const id of ids) {
		const problem = linkProblem(graph, id, field);
		if (problem) return { problem };
	}
	return { graph: structuredClone(graph) };
}

function nodeProblem(id: string, node: unknown, field: string): GraphProblem | undefined {
	const hint =
		'Every node of an API-format workflow is an object with class_type (the node type) and an inputs object. ' + WORKFLOW_FILE_HINT;
	if (!isRecord(node)) return { message: `${field}: node "${id}" is not an object`, hint };
	if (typeof node.class_type !== 'string' || node.class_type.trim() === '') {
		return { message: `${field}: node "${id}" has no class_type`, hint };
	}
	if (!isRecord(node.inputs)) return { message: `${field}: node "${id}" (${node.class_type}) has no inputs object`, hint };
	return undefined;
}

function linkProblem(graph: WorkflowGraph, id: string, field: string): GraphProblem | undefined {
	const node = graph[id];
	for (const [name, value] of Object.entries(node.inputs)) {
		const link = asLink(value);
		if (!link || typeof (value as unknown[])[0] !== 'string') continue;
		if (!Object.hasOwn(graph, link[0])) {
			return {
				message: `${field}: input "${name}" of node "${id}" (${node.class_type}) links to node "${link[0]}", which is not in the workflow`,
				hint: 'The workflow may have been cut short when it was copied. Export it again in API format.',
			};
		}
		if (link[1] < 0) {
			return { message: `${field}: input "${name}" of node "${id}" (${node.class_type}) links to output ${link[1]}, which cannot exist` };
		}
	}
	return undefined;
}

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

/** Names n8n removes from the objects it sends (it guards against prototype pollution). */
const UNSENDABLE_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

/** Sets each override on the graph (in place). `field` is the display name of the overrides parameter. */
export function applyInputOverrides(graph: WorkflowGraph, overrides: InputOverride[], field: string): GraphProblem | undefined {
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
		const coerced = coerceInputValue(current, chosen.value);
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

function titleOf(node: GraphNode): string | undefined {
	const title = node._meta?.title;
	return typeof title === 'string' && title.trim() !== '' && title !== node.class_type ? title : undefined;
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

/** Node ids in a natural order ("2" before "10"). */
export function compareNodeIds(a: string, b: string): number {
	return a.localeCompare(b, undefined, { numeric: true });
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

/** Node classes that load an uploaded input image through their `image` input. */
export const IMAGE_LOADER_CLASSES = ['LoadImage', 'LoadImageMask'];

export function isImageLoader(node: GraphNode): boolean {
	return IMAGE_LOADER_CLASSES.includes(node.class_type) || (typeof node.inputs.image === 'string' && !asLink(node.inputs.image));
}

/**
 * Partner nodes call external AI services and are billed through the platform key in
 * extra_data (api_key_host_org on the cloud, api_key_comfy_org on an upstream server). The cloud's
 * node definitions mark them (`api_node: true`); this list is the fallback when the definitions
 * cannot be read or do not know a class.
 */
export const PARTNER_CLASS_PREFIXES = [
	'Partner',
	'OpenAI',
	'Ideogram',
	'FluxPro',
	'FluxKontextPro',
	'FluxKontextMax',
	'Kling',
	'Luma',
	'Minimax',
	'Pika',
	'Pixverse',
	'Recraft',
	'Stability',
	'Veo',
	'Runway',
	'Gemini',
	'Tripo',
	'Rodin',
	'Moonvalley',
	'Vidu',
	'ByteDance',
];

/**
 * What the node definitions (`/api/object_info`) say about one class, the fields that matter here:
 * partner nodes, and the inputs a UI-format workflow is converted with.
 */
export interface ClassDefinition {
	api_node?: unknown;
	python_module?: unknown;
	display_name?: unknown;
	output?: unknown;
	input?: { required?: Record<string, unknown>; optional?: Record<string, unknown>; hidden?: Record<string, unknown> };
	input_order?: { required?: unknown; optional?: unknown };
}

export type NodeDefinitions = Record<string, ClassDefinition>;

/** True when a definition marks its class as a partner node. */
export function definitionIsPartner(definition: ClassDefinition | undefined): boolean | undefined {
	if (!definition) return undefined;
	if (definition.api_node === true) return true;
	if (typeof definition.python_module === 'string' && /(^|\.)[a-z_]*api_nodes(\.|$)/.test(definition.python_module)) return true;
	const hidden = definition.input?.hidden;
	// The cloud names the hidden key input api_key_host_org; upstream servers name it api_key_comfy_org.
	const keyInput = ([name, kind]: [string, unknown]) =>
		/^api_key_(host|comfy)_org$/.test(name) || /^API_KEY_(HOST|COMFY)_ORG$/.test(String(kind));
	if (hidden && Object.entries(hidden).some(keyInput)) return true;
	return false;
}

/** Whether a graph has partner nodes, by the definitions where they know the class, else by the fallback list. */
export function hasPartnerNodes(graph: WorkflowGraph, definitions?: Record<string, ClassDefinition>): boolean {
	return Object.values(graph).some((node) => {
		const known = definitionIsPartner(definitions?.[node.class_type]);
		if (known !== undefined) return known;
		return PARTNER_CLASS_PREFIXES.some((prefix) => node.class_type.startsWith(prefix));
	});
}

/** Whether the fallback list alone already finds a partner node (no need to read the definitions). */
export function hasKnownPartnerNodes(graph: WorkflowGraph): boolean {
	return Object.values(graph).some((node) => PARTNER_CLASS_PREFIXES.some((prefix) => node.class_type.startsWith(prefix)));
}
