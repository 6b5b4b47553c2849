/**
 * Cloud: validation of a submitted workflow graph (API format: node id → {class_type, inputs},
 * links as [node id, output index]) against the catalogue, and the order the runner executes it in.
 * Errors name the node, its class and the input, so a 400 tells the user what to fix.
 */
import type { InputSpec, NodeDefinition } from './cloud-catalogue';
import { isPlainObject } from './core';

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
		return { failure: fail('no_prompt', "The request body has no 'prompt': send the workflow graph in API format as prompt.") };
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
		if (problem) return { failure: fail('invalid_prompt', problem) };
	}
	return { value: prompt as unknown as Graph };
}

function nodeShapeProblem(id: string, node: unknown, catalogue: Catalogue): string | undefined {
	if (!isPlainObject(node)) return `Node ${id} must be an object with class_type and inputs.`;
	if (typeof node.class_type !== 'string' || node.class_type === '') {
		return `Node ${id} has no class_type: every node needs class_type (the node type name) and inputs.`;
	}
	if (!isPlainObject(node.inputs)) return `Node ${id} (${node.class_type}) has no inputs object.`;
	if (!Object.hasOwn(catalogue, node.class_type)) {
		return `Node ${id}: class_type '${node.class_type}' is not a known node type (GET /api/object_info lists the available ones).`;
	}
	return undefined;
}

function inputError(type: string, message: string, inputName: string, details = ''): InputError {
	return { type, message, details, extra_info: { input_name: inputName } };
}

/** Checks a linked input: the source exists, has that output, and its type fits. */
function checkLink(
	graph: Graph,
	catalogue: Catalogue,
	link: [string, number],
	spec: InputSpec,
	name: string,
	where: string,
): InputError | undefined {
	const [sourceId, index] = link;
	const source = graph[sourceId];
	if (!source)
		return inputError('invalid_link', `${where}: input '${name}' links to node '${sourceId}', which is not in the prompt.`, name);
	const outputs = catalogue[source.class_type].output;
	if (index < 0 || index >= outputs.length) {
		return inputError(
			'invalid_link',
			`${where}: input '${name}' links to output ${index} of node ${sourceId} (${source.class_type}), which has ${outputs.length} output(s).`,
			name,
		);
	}
	const wanted = spec[0];
	const given = outputs[index];
	if (typeof wanted === 'string' && wanted !== '*' && given !== '*' && !wanted.split(',').includes(given)) {
		return inputError(
			'return_type_mismatch',
			`${where}: input '${name}' needs ${wanted} but node ${sourceId} output ${index} is ${given}.`,
			name,
		);
	}
	return undefined;
}

/** Checks a literal (widget) value against its spec: combo membership, number type and bounds, string, boolean. */
function checkValue(value: unknown, spec: InputSpec, name: string, where: string): InputError | undefined {
	const [type, options = {}] = spec;
	if (Array.isArray(type)) {
		if (type.includes(String(value))) return undefined;
		if (options.image_upload) {
			return inputError(
				'value_not_in_list',
				`${where}: input '${name}' names '${String(value)}', which is not an uploaded input file. Upload it with POST /api/upload/image and use the returned name.`,
				name,
			);
		}
		return inputError(
			'value_not_in_list',
			`${where}: input '${name}' is '${String(value)}', which is not one of: ${type.join(', ')}.`,
			name,
		);
	}
	if (type === 'INT' || type === 'FLOAT') {
		const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
		if (typeof n !== 'number' || !Number.isFinite(n))
			return inputError('invalid_input_type', `${where}: input '${name}' must be a number.`, name);
		if (type === 'INT' && !Number.isInteger(n))
			return inputError('invalid_input_type', `${where}: input '${name}' must be a whole number.`, name);
		if (typeof options.min === 'number' && n < options.min) {
			return inputError('value_smaller_than_min', `${where}: input '${name}' is ${n}, below the minimum ${options.min}.`, name);
		}
		if (typeof options.max === 'number' && n > options.max) {
			return inputError('value_bigger_than_max', `${where}: input '${name}' is ${n}, above the maximum ${options.max}.`, name);
		}
		return undefined;
	}
	if (type === 'STRING' && typeof value !== 'string')
		return inputError('invalid_input_type', `${where}: input '${name}' must be text.`, name);
	if (type === 'BOOLEAN' && typeof value !== 'boolean')
		return inputError('invalid_input_type', `${where}: input '${name}' must be true or false.`, name);
	return undefined;
}

function checkInputs(graph: Graph, catalogue: Catalogue, id: string): InputError[] {
	const node = graph[id];
	const def = catalogue[node.class_type];
	const where = `Node ${id} (${node.class_type})`;
	const errors: InputError[] = [];
	const specs: Array<[string, InputSpec, boolean]> = [
		...Object.entries(def.input.required).map(([n, s]): [string, InputSpec, boolean] => [n, s, true]),
		...Object.entries(def.input.optional ?? {}).map(([n, s]): [string, InputSpec, boolean] => [n, s, false]),
	];
	for (const [name, spec, required] of specs) {
		const value = node.inputs[name];
		if (value === undefined || value === null) {
			if (required) errors.push(inputError('required_input_missing', `${where}: required input '${name}' is missing.`, name));
			continue;
		}
		const link = asLink(value);
		const error = link ? checkLink(graph, catalogue, link, spec, name, where) : checkValue(value, spec, name, where);
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
	if (outputs.length === 0) {
		return fail(
			'prompt_no_outputs',
			'The prompt has no output node (for example SaveImage, SaveVideo or SaveAudio), so nothing would be produced.',
		);
	}
	const nodeErrors: Record<string, NodeErrors> = {};
	for (const id of Object.keys(g)) {
		const errors = checkInputs(g, catalogue, id);
		if (errors.length > 0) nodeErrors[id] = { errors, dependent_outputs: outputs, class_type: g[id].class_type };
	}
	const all = Object.values(nodeErrors).flatMap((n) => n.errors.map((e) => e.message));
	if (all.length > 0) return fail('prompt_outputs_failed_validation', all[0], nodeErrors, all.join(' '));
	const order = executionOrder(g, catalogue);
	if (!order) return fail('invalid_prompt', 'The prompt has a cycle: a node depends, through its links, on itself.');
	return { ok: true, graph: g, order };
}
