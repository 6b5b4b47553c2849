/**
 * Checks values, answers and requests against the v2 contract kept in openapi-v2.yaml (read once,
 * with `yaml`). It knows the part of OpenAPI 3.0 that document uses: $ref, type, required,
 * properties, additionalProperties (true, false or a schema), items, enum, nullable, allOf,
 * minimum/maximum, and the formats date-time, uri and uri-reference (loosely). Each check returns
 * the breaches it found as sentences naming where (`body.outputs[0].url`), empty when valid.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { parse } from 'yaml';

type Schema = Record<string, unknown>;
type Doc = Record<string, any>;

export const CONTRACT_PATH = join(__dirname, 'openapi-v2.yaml');

let loaded: Doc | undefined;

/** The parsed contract (read on first use). */
export function contract(): Doc {
	loaded ??= parse(readFileSync(CONTRACT_PATH, 'utf8')) as Doc;
	return loaded;
}

/** What a `$ref` ('#/components/...') points at. */
function resolveRef(ref: string): Schema {
	const parts = ref.replace(/^#\//, '').split('/');
	let node: any = contract();
	for (const part of parts) node = node?.[part];
	if (node === undefined) throw new Error(`The contract has nothing at ${ref}`);
	return node as Schema;
}

const deref = (schema: Schema): Schema => (typeof schema.$ref === 'string' ? deref(resolveRef(schema.$ref)) : schema);

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function formatBreach(format: unknown, value: string): string | undefined {
	if (format === 'date-time' && !DATE_TIME.test(value)) return 'is not a date-time';
	if (format === 'uri' && !/^[a-z][a-z0-9+.-]*:\/\/./i.test(value)) return 'is not an absolute URI';
	if (format === 'uri-reference') {
		try {
			new URL(value, 'http://base.invalid');
		} catch {
			return 'is not a URI reference';
		}
	}
	return undefined;
}

function typeBreach(type: unknown, value: unknown): string | undefined {
	const ok: Record<string, (v: unknown) => boolean> = {
		object: (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
		array: Array.isArray,
		string: (v) => typeof v === 'string',
		integer: (v) => Number.isInteger(v),
		number: (v) => typeof v === 'number' && Number.isFinite(v),
		boolean: (v) => typeof v === 'boolean',
	};
	if (typeof type !== 'string' || !ok[type]) return undefined;
	return ok[type](value) ? undefined : `should be ${type === 'array' || type === 'object' || type === 'integer' ? 'an' : 'a'} ${type}`;
}

function objectBreaches(schema: Schema, value: Record<string, unknown>, at: string): string[] {
	const out: string[] = [];
	const properties = (schema.properties ?? {}) as Record<string, Schema>;
	for (const name of (schema.required ?? []) as string[]) {
		if (!(name in value)) out.push(`${at}.${name} is required`);
	}
	for (const [name, item] of Object.entries(value)) {
		if (properties[name]) out.push(...validateValue(properties[name], item, `${at}.${name}`));
		else if (schema.additionalProperties === false) out.push(`${at}.${name} is not allowed (closed object)`);
		else if (typeof schema.additionalProperties === 'object')
			out.push(...validateValue(schema.additionalProperties as Schema, item, `${at}.${name}`));
	}
	return out;
}

/** The breaches of `value` against `schema` (a schema object or a $ref to one), at `at`. */
export function validateValue(schema: Schema, value: unknown, at = 'value'): string[] {
	const s = deref(schema);
	if (value === null) return s.nullable === true ? [] : [`${at} is null, which is not allowed`];
	if (Array.isArray(s.allOf)) {
		const parts = (s.allOf as Schema[]).flatMap((part) => validateValue(part, value, at));
		const { allOf: _allOf, nullable: _nullable, description: _description, ...rest } = s;
		return [...parts, ...(Object.keys(rest).length > 0 ? validateValue(rest, value, at) : [])];
	}
	const wrongType = typeBreach(s.type, value);
	if (wrongType) return [`${at} ${wrongType} (got ${JSON.stringify(value)?.slice(0, 60)})`];
	const out: string[] = [];
	if (Array.isArray(s.enum) && !s.enum.includes(value)) out.push(`${at} is ${JSON.stringify(value)}, not one of ${s.enum.join(', ')}`);
	if (typeof value === 'number') {
		if (typeof s.minimum === 'number' && value < s.minimum) out.push(`${at} is ${value}, below the minimum ${s.minimum}`);
		if (typeof s.maximum === 'number' && value > s.maximum) out.push(`${at} is ${value}, above the maximum ${s.maximum}`);
	}
	if (typeof value === 'string') {
		const bad = formatBreach(s.format, value);
		if (bad) out.push(`${at} ${bad} (${value.slice(0, 60)})`);
	}
	if (Array.isArray(value) && s.items) value.forEach((item, i) => out.push(...validateValue(s.items as Schema, item, `${at}[${i}]`)));
	if (typeof value === 'object' && !Array.isArray(value)) out.push(...objectBreaches(s, value as Record<string, unknown>, at));
	return out;
}

/** The breaches of `value` against a named schema of the contract (`Job`, `ErrorEnvelope`...). */
export function validateSchema(name: string, value: unknown, at = 'body'): string[] {
	return validateValue({ $ref: `#/components/schemas/${name}` }, value, at);
}

export interface Operation {
	method: string;
	template: string;
	spec: Doc;
}

/** The contract's operation for a method and a path (a template or a concrete path, any mount prefix before /api/v2). */
export function findOperation(method: string, path: string): Operation | undefined {
	const start = path.indexOf('/api/v2/');
	const local = (start === -1 ? path : path.slice(start)).split('?')[0];
	const lower = method.toLowerCase();
	for (const [template, item] of Object.entries(contract().paths as Record<string, Doc>)) {
		const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
		if ((template === local || pattern.test(local)) && item[lower]) return { method: lower, template, spec: item[lower] };
	}
	return undefined;
}

/** An SSE body's frames: each frame's event name, its data text, and whether it carried an id. */
export function sseFrames(text: string): Array<{ event: string; data: string; id: boolean }> {
	return text
		.split(/\n\n/)
		.filter((block) => block.trim() !== '' && !block.split('\n').every((line) => line.startsWith(':')))
		.map((block) => {
			const lines = block.split('\n');
			const field = (name: string) => lines.filter((l) => l.startsWith(`${name}:`)).map((l) => l.slice(name.length + 1).replace(/^ /, ''));
			return { event: field('event')[0] ?? 'message', data: field('data').join('\n'), id: field('id').length > 0 };
		});
}

/** The breaches of an SSE body against the operation's x-sse-events catalogue. */
export function validateSseBody(operation: Operation, text: string): string[] {
	const catalogue = (operation.spec['x-sse-events'] ?? {}) as Record<string, { schema: string }>;
	return sseFrames(text).flatMap((frame, i) => {
		const at = `frame ${i} (${frame.event})`;
		if (frame.id) return [`${at} carries an id: the contract says events carry none`];
		const entry = catalogue[frame.event];
		if (!entry) return [`${at}: no such event in x-sse-events`];
		let data: unknown;
		try {
			data = JSON.parse(frame.data);
		} catch {
			return [`${at}: data is not JSON`];
		}
		return validateValue({ $ref: entry.schema }, data, `${at}.data`);
	});
}

/** The contract's answer for an operation and status, with $refs followed; undefined when the status is not listed. */
function responseFor(operation: Operation, status: number): Doc | undefined {
	const response = operation.spec.responses?.[String(status)] as Doc | undefined;
	return response ? (deref(response) as Doc) : undefined;
}

function headerBreaches(response: Doc, headers: Record<string, string | undefined>): string[] {
	const out: string[] = [];
	for (const name of Object.keys(response.headers ?? {})) {
		const value = headers[name.toLowerCase()];
		if (value === undefined) continue;
		const schema = deref(response.headers[name].schema ?? deref(response.headers[name]).schema ?? {});
		const typed = schema.type === 'integer' ? (/^\d+$/.test(value) ? Number(value) : value) : value;
		out.push(...validateValue(schema, typed, `header ${name}`));
	}
	return out;
}

/**
 * The breaches of an answer: the status must be one the contract lists for the operation, and a
 * JSON or SSE body must be valid against its schema. `headers` (lower-case names), when given,
 * have their declared headers checked (Retry-After an integer, Location a URI).
 */
export function validateResponse(
	method: string,
	path: string,
	status: number,
	contentType: string | undefined,
	body: unknown,
	headers: Record<string, string | undefined> = {},
): string[] {
	const operation = findOperation(method, path);
	if (!operation) return [`${method} ${path} is no operation of the contract`];
	const name = `${method.toUpperCase()} ${operation.template} ${status}`;
	const response = responseFor(operation, status);
	if (!response) return [`${name}: the contract lists no ${status} for this operation`];
	const out = headerBreaches(response, headers).map((b) => `${name}: ${b}`);
	if (operation.method === 'head') return out; // an answer to HEAD has no body to check
	const content = (response.content ?? {}) as Record<string, { schema?: Schema }>;
	const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
	if (Object.keys(content).length === 0) return out;
	// application/octet-stream stands for any bytes: the file's own media type is as good.
	if (content['application/octet-stream'] && !content[type] && type !== 'application/json') return out;
	if (!content[type]) return [...out, `${name}: content type ${type || '(none)'} is not one of ${Object.keys(content).join(', ')}`];
	if (type === 'text/event-stream') return [...out, ...validateSseBody(operation, String(body)).map((b) => `${name}: ${b}`)];
	if (type !== 'application/json') return out;
	let value = body;
	if (typeof body === 'string' || Buffer.isBuffer(body)) {
		try {
			value = JSON.parse(body.toString());
		} catch {
			return [...out, `${name}: the body is not JSON`];
		}
	}
	return [...out, ...validateValue(content[type].schema ?? {}, value, 'body').map((b) => `${name}: ${b}`)];
}

/** A multipart form as the checks see it: text fields (a name may repeat) and the names of file parts. */
export interface FormBody {
	fields: Record<string, string[]>;
	files: string[];
}

function formBreaches(schema: Schema, form: FormBody): string[] {
	const s = deref(schema);
	const properties = (s.properties ?? {}) as Record<string, Schema>;
	const out: string[] = [];
	for (const name of (s.required ?? []) as string[]) {
		const binary = deref(properties[name] ?? {}).format === 'binary';
		if (binary ? !form.files.includes(name) : !(name in form.fields))
			out.push(`form field ${name} is required${binary ? ' (a file part)' : ''}`);
	}
	for (const [name, values] of Object.entries(form.fields)) {
		const property = properties[name] ? deref(properties[name]) : undefined;
		if (!property) continue;
		const itemSchema = property.type === 'array' ? deref((property.items ?? {}) as Schema) : property;
		if (property.type !== 'array' && values.length > 1) out.push(`form field ${name} is sent ${values.length} times`);
		for (const text of values) {
			const value = itemSchema.type === 'integer' && /^-?\d+$/.test(text) ? Number(text) : text;
			out.push(...validateValue(itemSchema, value, `form field ${name}`));
		}
	}
	return out;
}

/**
 * The breaches of a request: a known operation, its header parameters (Idempotency-Key a single
 * string), a Bearer Authorization when one is sent, and its body: JSON against the schema, a
 * multipart form's required fields and typed values. `body` is the parsed JSON, a FormBody, or
 * undefined for none; `headers` have lower-case names.
 */
export function validateRequest(
	method: string,
	path: string,
	headers: Record<string, string | string[] | undefined>,
	body: unknown,
): string[] {
	const operation = findOperation(method, path);
	if (!operation) return [`${method} ${path} is no operation of the contract`];
	const name = `${method.toUpperCase()} ${operation.template}`;
	const out: string[] = [];
	for (const ref of (operation.spec.parameters ?? []) as Schema[]) {
		const parameter = deref(ref) as Doc;
		if (parameter.in !== 'header') continue;
		const value = headers[String(parameter.name).toLowerCase()];
		if (value === undefined) continue;
		if (Array.isArray(value)) out.push(`${name}: header ${parameter.name} is sent ${value.length} times`);
		else out.push(...validateValue(parameter.schema ?? {}, value, `header ${parameter.name}`).map((b) => `${name}: ${b}`));
	}
	const auth = headers.authorization;
	if (auth !== undefined && !/^Bearer \S/.test(String(auth))) out.push(`${name}: Authorization is not "Bearer <key>"`);
	const requestBody = operation.spec.requestBody as Doc | undefined;
	if (!requestBody) return body === undefined ? out : [...out, `${name}: the operation takes no body`];
	if (body === undefined) return requestBody.required ? [...out, `${name}: the body is required`] : out;
	const type = String(headers['content-type'] ?? '')
		.split(';')[0]
		.trim()
		.toLowerCase();
	const content = requestBody.content?.[type] as { schema?: Schema } | undefined;
	if (!content)
		return [...out, `${name}: content type ${type || '(none)'} is not one of ${Object.keys(requestBody.content ?? {}).join(', ')}`];
	const breaches =
		type === 'multipart/form-data'
			? formBreaches(content.schema ?? {}, body as FormBody)
			: validateValue(content.schema ?? {}, body, 'body');
	return [...out, ...breaches.map((b) => `${name}: ${b}`)];
}
