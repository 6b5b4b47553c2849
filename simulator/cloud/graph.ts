/**
 * Cloud: validation of a submitted workflow graph (API format: node id → {class_type, inputs},
 * links as [node id, output index]) against the catalogue, and the order the runner executes it in.
 * A refusal is worded as the upstream server words it (test/fixtures/real-server/refused.*.json):
 * each error's message is only its kind ("Value not in list"); the input, the value given and what
 * is allowed are in its details and extra_info.
 */
import type { InputSpec, NodeDefinition } from './catalogue';
import { isPlainObject } from '../shared/core';

export interface GraphNode {
	class_type: string;
	inputs: Record<string, unknown>;
	_meta?: { title?: string };
}

export type Graph = Record<string, GraphNode>;

export interface InputError {
	type: string;
	message: string;
	details: string;
	extra_info: Record<string, unknown>;
}

export interface NodeErrors {
	errors: InputError[];
	dependent_outputs: string[];
	class_type: string;
}

export type GraphCheck =
	| { ok: true; graph: Graph; order: string[] }
	| { ok: false; type: string; message: string; details: string; nodeErrors: Record<string, NodeErrors> };

type Catalogue = Record<string, NodeDefinition>;

/** A link is `[source node id, output index]`. */
export function asLink(value: unknown): [string, number] | undefined {
	if (!Array.isArray(value) || value.length !== 2) return undefined;
	const [id, index] = value as unknown[];
	if ((typeof id !== 'string' && typeof id !== 'number') || !Number.isInteger(index)) return undefined;
	return [String(id), index as number];
}

type Failure = Extract<GraphCheck, { ok: false }>;

function fail(type: string, message: string, nodeErrors: Record<string, NodeErrors> = {}, details = message): Failure {
	return { ok: false, type, message, details, nodeErrors };
}

/** A step's result: its value, or the failure that ends validation. */
type Step<T> = { value: T } | { failure: Failure };

/** Whole-body checks: a prompt object is there and is not a UI export. */
function checkEnvelope(body: unknown): Step<Record<string, unknown>> {
	const looksLikeUi = (v: unknown) => isPlainObject(v) && Array.isArray(v.nodes) && Array.isArray(v.links);
	const uiMessage =
		"The prompt is a UI-format workflow export (it has 'nodes' and 'links' arrays). Export the workflow in API format " +
		'(an object of node id → {class_type, inputs}) and send that as prompt.';
	if (!isPlainObject(body)) return { failure: fail('invalid_prompt', "The request body must be a JSON object with a 'prompt' field.") };
	if (body.prompt === undefined) {
		if (looksLikeUi(body)) return { failure: fail('invalid_prompt', uiMessage) };
		return { failure: fail('no_prompt', 'No prompt provided') };
	}
	if (looksLikeUi(body.prompt)) return { failure: fail('invalid_prompt', uiMessage) };
	if (!isPlainObject(body.prompt)) {
		return { failure: fail('invalid_prompt', "'prompt' must be an object keyed by node id, each value holding class_type and inputs.") };
	}
	return { value: body.prompt };
}

/** Each entry has a class_type string and an inputs object, and the class is known. */
function checkNodes(prompt: Record<string, unknown>, catalogue: Catalogue): Step<Graph> {
	const ids = Object.keys(prompt);
	if (ids.length === 0) return { failure: fail('prompt_no_outputs', 'The prompt has no nodes.') };
	for (const id of ids) {
		const problem = nodeShapeProblem(id, prompt[id], catalogue);
		if (problem) return { failure: fail('invalid_prompt', problem.message, {}, problem.details) };
	}
	return { value: prompt as unknown as Graph };
}

/** What is wrong with one entry of the prompt, in upstream's words (details: which node). */
function nodeShapeProblem(id: string, node: unknown, catalogue: Catalogue): { message: string; details: string } | undefined {
	const details = `Node ID '#${id}'`;
	if (!isPlainObject(node) || typeof node.class_type !== 'string' || node.class_type === '') {
		return { message: 'Cannot execute because a node is missing the class_type property.', details };
	}
	if (!isPlainObject(node.inputs)) return { message: `Node ${id} (${node.class_type}) has no inputs object.`, details };
	if (!Object.hasOwn(catalogue, node.class_type)) {
		return { message: `Cannot execute because node ${node.class_type} does not exist.`, details };
	}
	return undefined;
}

function inputError(type: string, message: string, details: string, extraInfo: Record<string, unknown>): InputError {
	return { type, message, details, extra_info: extraInfo };
}

/** Python's repr of a list of names, as the upstream server prints allowed values. */
const pythonList = (values: string[]) => `[${values.map((v) => `'${v}'`).join(', ')}]`;

/** A link the validator cannot follow fails as upstream's does: with the Python exception it raised. */
function exceptionDuringValidation(exceptionType: string, details: string): InputError {
	return inputError('exception_during_validation', 'Exception when validating node', details, {
		exception_type: exceptionType,
		traceback: ['  File "execution.py", in validate_inputs\n'],
	});
}

/** Checks a linked input: the source exists, has that output, and its type fits. */
function checkLink(graph: Graph, catalogue: Catalogue, link: [string, number], spec: InputSpec, name: string): InputError | undefined {
	const [sourceId, index] = link;
	const source = graph[sourceId];
	if (!source) return exceptionDuringValidation('KeyError', `'${sourceId}'`);
	const outputs = catalogue[source.class_type].output;
	if (index < 0 || index >= outputs.length) return exceptionDuringValidation('IndexError', 'tuple index out of range');
	const wanted = spec[0];
	const given = outputs[index];
	if (typeof wanted === 'string' && wanted !== '*' && given !== '*' && !wanted.split(',').includes(given)) {
		return inputError(
			'return_type_mismatch',
			'Return type mismatch between linked nodes',
			`${name}, received_type(${given}) mismatch input_type(${wanted})`,
			{
				input_name: name,
				input_config: spec,
				received_type: given,
				linked_node: link,
			},
		);
	}
	return undefined;
}

/** Python's int() and float() of a JSON value: the number, or the exception's words. */
function pythonNumber(value: unknown, type: 'INT' | 'FLOAT'): number | { exception: string } {
	if (typeof value === 'number') return type === 'INT' ? Math.trunc(value) : value;
	if (typeof value === 'boolean') return value ? 1 : 0;
	if (typeof value === 'string') {
		const text = value.trim();
		if (type === 'INT' && /^[+-]?\d+$/.test(text)) return Number(text);
		if (type === 'FLOAT' && text !== '' && Number.isFinite(Number(text))) return Number(text);
		return {
			exception: type === 'INT' ? `invalid literal for int() with base 10: '${value}'` : `could not convert string to float: '${value}'`,
		};
	}
	const pythonType = Array.isArray(value) ? 'list' : 'dict';
	return {
		exception:
			type === 'INT'
				? `int() argument must be a string, a bytes-like object or a real number, not '${pythonType}'`
				: `float() argument must be a string or a real number, not '${pythonType}'`,
	};
}

/**
 * Checks a literal (widget) value against its spec as the upstream validator does: combo
 * membership, numbers converted with Python's int()/float() and then held to their bounds. Text
 * and true/false are converted, never refused. The message says only the kind of error; the
 * input, the value and what is allowed are in details and extra_info.
 */
function checkValue(value: unknown, spec: InputSpec, name: string): InputError | undefined {
	const [type, options = {}] = spec;
	const about = { input_name: name, input_config: spec, received_value: value };
	if (Array.isArray(type)) {
		if (typeof value === 'string' && type.includes(value)) return undefined;
		// Upstream's LoadImage checks its file itself (VALIDATE_INPUTS), in place of the list.
		if (options.image_upload) {
			return inputError('custom_validation_failed', 'Custom validation failed for node', `${name} - Invalid image file: ${String(value)}`, {
				input_name: name,
			});
		}
		return inputError('value_not_in_list', 'Value not in list', `${name}: '${String(value)}' not in ${pythonList(type)}`, about);
	}
	if (type !== 'INT' && type !== 'FLOAT') return undefined;
	const n = pythonNumber(value, type);
	if (typeof n !== 'number') {
		return inputError(
			'invalid_input_type',
			`Failed to convert an input value to a ${type} value`,
			`${name}, ${String(value)}, ${n.exception}`,
			{
				...about,
				exception_message: n.exception,
			},
		);
	}
	if (typeof options.min === 'number' && n < options.min) {
		return inputError('value_smaller_than_min', `Value ${n} smaller than min of ${options.min}`, name, about);
	}
	if (typeof options.max === 'number' && n > options.max) {
		return inputError('value_bigger_than_max', `Value ${n} bigger than max of ${options.max}`, name, about);
	}
	return undefined;
}

function checkInputs(graph: Graph, catalogue: Catalogue, id: string): InputError[] {
	const node = graph[id];
	const def = catalogue[node.class_type];
	const errors: InputError[] = [];
	const specs: Array<[string, InputSpec, boolean]> = [
		...Object.entries(def.input.required).map(([n, s]): [string, InputSpec, boolean] => [n, s, true]),
		...Object.entries(def.input.optional ?? {}).map(([n, s]): [string, InputSpec, boolean] => [n, s, false]),
	];
	for (const [name, spec, required] of specs) {
		const value = node.inputs[name];
		if (value === undefined || value === null) {
			if (required) errors.push(inputError('required_input_missing', 'Required input is missing', name, { input_name: name }));
			continue;
		}
		const link = asLink(value);
		const error = link ? checkLink(graph, catalogue, link, spec, name) : checkValue(value, spec, name);
		if (error) errors.push(error);
	}
	return errors;
}

/** Output nodes and everything they depend on, run in dependency order (ties keep the prompt's order). */
function executionOrder(graph: Graph, catalogue: Catalogue): string[] | undefined {
	const needed = new Set<string>();
	const visit = (id: string) => {
		if (needed.has(id)) return;
		needed.add(id);
		for (const value of Object.values(graph[id].inputs)) {
			const link = asLink(value);
			if (link && graph[link[0]]) visit(link[0]);
		}
	};
	Object.keys(graph)
		.filter((id) => catalogue[graph[id].class_type].output_node)
		.forEach(visit);
	const order: string[] = [];
	const done = new Set<string>();
	const ids = Object.keys(graph).filter((id) => needed.has(id));
	while (order.length < ids.length) {
		const ready = ids.find((id) => !done.has(id) && dependencies(graph[id]).every((d) => done.has(d)));
		if (ready === undefined) return undefined; // a cycle
		done.add(ready);
		order.push(ready);
	}
	return order;
}

function dependencies(node: GraphNode): string[] {
	return Object.values(node.inputs)
		.map(asLink)
		.filter((l): l is [string, number] => l !== undefined)
		.map((l) => l[0]);
}

/** Validates a submit body; on success returns the graph and the order its nodes run in. */
export function checkSubmission(body: unknown, catalogue: Catalogue): GraphCheck {
	const envelope = checkEnvelope(body);
	if ('failure' in envelope) return envelope.failure;
	const nodes = checkNodes(envelope.value, catalogue);
	if ('failure' in nodes) return nodes.failure;
	const g = nodes.value;
	const outputs = Object.keys(g).filter((id) => catalogue[g[id].class_type].output_node);
	if (outputs.length === 0) return fail('prompt_no_outputs', 'Prompt has no outputs', {}, '');
	const nodeErrors: Record<string, NodeErrors> = {};
	for (const id of Object.keys(g)) {
		const errors = checkInputs(g, catalogue, id);
		if (errors.length > 0) nodeErrors[id] = { errors, dependent_outputs: outputs, class_type: g[id].class_type };
	}
	if (Object.keys(nodeErrors).length > 0) {
		// Upstream's headline details list only the errors of output nodes themselves.
		const ofOutputs = outputs.flatMap((id) => (nodeErrors[id]?.errors ?? []).map((e) => `${e.message}: ${e.details}`));
		return fail('prompt_outputs_failed_validation', 'Prompt outputs failed validation', nodeErrors, ofOutputs.join('\n'));
	}
	const order = executionOrder(g, catalogue);
	if (!order) return fail('invalid_prompt', 'The prompt has a cycle: a node depends, through its links, on itself.');
	return { ok: true, graph: g, order };
}
