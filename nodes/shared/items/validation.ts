/**
 * Input checks shared by the nodes. Each one runs before any request is sent and fails with a
 * NodeOperationError whose message starts with the field's display name and says what is allowed,
 * so a no-code user knows which box to fix. Values may come from expressions, so every check
 * accepts loosely typed input (numbers as text, lists as comma-separated text, JSON as text).
 */
import type { IDataObject, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { JSON_LIMITS, jsonValueProblem, readJson } from '../transport/json-reader';
import { pathSegmentProblem } from './path-segment';

/** The part of an n8n context the checks need (any execute or load-options context fits). */
export interface CheckContext {
	getNode(): INode;
}

/** A plain JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The value a record holds under `key` itself, never one every object inherits: a name from outside
 * (`__proto__`, `constructor`, `toString`) is then an unknown name like any other.
 */
export function ownValue<T>(record: Record<string, T>, key: string): T | undefined {
	return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Sets `record[key]` as its own property: assigning a name from outside such as `__proto__` would replace the record's prototype instead. */
export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
	Object.defineProperty(record, key, { value, writable: true, enumerable: true, configurable: true });
}

/** An id typed into `field` that goes into a URL path as one segment (see `path-segment.ts`). */
export function pathSegmentText(context: CheckContext, itemIndex: number, field: string, value: unknown): string {
	const id = requiredText(context, itemIndex, field, value);
	const problem = pathSegmentProblem(id);
	if (problem) throw invalidField(context, itemIndex, field, `${problem} (got ${quoted(id)})`);
	return id;
}

/** A plain object (a parsed JSON object, an object literal): not a Buffer, stream or other class instance. */
export function isPlainObject(value: unknown): value is IDataObject {
	if (!isRecord(value)) return false;
	const proto = Object.getPrototypeOf(value) as object | null;
	return proto === Object.prototype || proto === null;
}

/** A bad-input error for one field of one item. */
export function invalidField(context: CheckContext, itemIndex: number, field: string, problem: string, hint?: string): NodeOperationError {
	return new NodeOperationError(context.getNode(), `${field} ${problem}`, { itemIndex, description: hint });
}

/** Shows a value in a message without flooding it. */
export function quoted(value: unknown): string {
	const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
	return `"${text.length > 80 ? `${text.slice(0, 77)}...` : text}"`;
}

/** A non-empty text, trimmed; a number or boolean from an expression is taken as its text. */
export function requiredText(context: CheckContext, itemIndex: number, field: string, value: unknown): string {
	// A list or object from an expression has no text form: String() would send "[object Object]".
	if (typeof value === 'object' && value !== null) throw invalidField(context, itemIndex, field, `must be text (got ${quoted(value)})`);
	const text = value === undefined || value === null ? '' : typeof value === 'string' ? value.trim() : String(value).trim();
	if (text === '') throw invalidField(context, itemIndex, field, 'is required', `Enter a value for ${field}.`);
	return text;
}

/**
 * The name of a binary field files are written to. `__proto__` is refused by name: assigning it
 * would replace the item's binary object's prototype instead of adding a field, and the file would be lost.
 */
export function binaryFieldName(context: CheckContext, itemIndex: number, field: string, value: unknown): string {
	const name = requiredText(context, itemIndex, field, value);
	if (name === '__proto__') throw invalidField(context, itemIndex, field, 'cannot be "__proto__": choose another name, such as "data"');
	return name;
}

/** An optional text, trimmed ('' when not given); a number or boolean from an expression is taken as its text. */
export function optionalText(context: CheckContext, itemIndex: number, field: string, value: unknown): string {
	if (value === undefined || value === null) return '';
	if (typeof value === 'object') throw invalidField(context, itemIndex, field, `must be text (got ${quoted(value)})`);
	return String(value).trim();
}

/** A whole number between `min` and `max` (inclusive); text holding a whole number is accepted. */
export function integerInRange(context: CheckContext, itemIndex: number, field: string, value: unknown, min: number, max: number): number {
	const number = typeof value === 'string' && value.trim() !== '' ? Number(value.trim()) : value;
	if (typeof number !== 'number' || !Number.isInteger(number) || number < min || number > max) {
		const range = min === Number.MIN_SAFE_INTEGER ? '' : max === Number.MAX_SAFE_INTEGER ? ` ${min} or more` : ` from ${min} to ${max}`;
		throw invalidField(context, itemIndex, field, `must be a whole number${range} (got ${quoted(value)})`);
	}
	return number;
}

/** A number between `min` and `max` (inclusive), fractions allowed; text holding a number is accepted. */
export function numberInRange(
	context: CheckContext,
	itemIndex: number,
	field: string,
	value: unknown,
	min: number,
	max = Number.POSITIVE_INFINITY,
): number {
	const number = typeof value === 'string' && value.trim() !== '' ? Number(value.trim()) : value;
	if (typeof number !== 'number' || !Number.isFinite(number) || number < min || number > max) {
		const range = max === Number.POSITIVE_INFINITY ? `${min} or more` : `from ${min} to ${max}`;
		throw invalidField(context, itemIndex, field, `must be a number ${range} (got ${quoted(value)})`);
	}
	return number;
}

/** One of the allowed values, compared exactly. */
export function oneOf<T extends string>(context: CheckContext, itemIndex: number, field: string, value: unknown, allowed: readonly T[]): T {
	if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
	throw invalidField(context, itemIndex, field, `must be one of ${allowed.join(', ')} (got ${quoted(value)})`);
}

/**
 * A list of texts. Accepts what the list box gives (an array), an array from an expression, or
 * one text with the entries separated by commas or new lines. Blank entries are dropped.
 */
export function stringList(context: CheckContext, itemIndex: number, field: string, value: unknown): string[] {
	if (value === undefined || value === null || value === '') return [];
	const entries = Array.isArray(value) ? value : typeof value === 'string' ? value.split(/[,\n]/) : undefined;
	if (!entries) throw invalidField(context, itemIndex, field, `must be a list of texts (got ${quoted(value)})`);
	return entries
		.map((entry, index) => {
			if (typeof entry === 'number' || typeof entry === 'boolean') return String(entry);
			if (typeof entry !== 'string') {
				throw invalidField(context, itemIndex, field, `must be a list of texts; entry ${index + 1} is ${quoted(entry)}`);
			}
			return entry.trim();
		})
		.filter((entry) => entry !== '');
}

/**
 * A JSON value given in `field` as JSON text or as a value (from an expression), read within the
 * bounds of pasted JSON (size, depth): what walks it later must not run out of stack.
 */
export function jsonField(
	context: CheckContext,
	itemIndex: number,
	field: string,
	value: unknown,
	hint: string,
	invalid = 'is not valid JSON',
): unknown {
	if (typeof value !== 'string') {
		const problem = jsonValueProblem(value, JSON_LIMITS.pasted);
		if (problem) throw invalidField(context, itemIndex, field, problem, hint);
		return value;
	}
	const reading = readJson(value, JSON_LIMITS.pasted);
	if ('value' in reading) return reading.value;
	throw invalidField(context, itemIndex, field, reading.bound ? reading.problem : invalid, hint);
}

/** A JSON object, given as an object or as JSON text. */
export function jsonObject(context: CheckContext, itemIndex: number, field: string, value: unknown): IDataObject {
	const parsed = jsonField(context, itemIndex, field, value, 'Enter a JSON object such as {"key": "value"}.');
	if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
		throw invalidField(
			context,
			itemIndex,
			field,
			`must be a JSON object (got ${quoted(value)})`,
			'Enter a JSON object such as {"key": "value"}.',
		);
	}
	return parsed as IDataObject;
}

/** A boolean, also from the texts "true" and "false" an expression may give. */
export function booleanValue(context: CheckContext, itemIndex: number, field: string, value: unknown): boolean {
	if (typeof value === 'boolean') return value;
	if (typeof value === 'string' && /^(true|false)$/i.test(value.trim())) return value.trim().toLowerCase() === 'true';
	throw invalidField(context, itemIndex, field, `must be true or false (got ${quoted(value)})`);
}

/** Characters as a person counts them (code points): an emoji is one character, not two. */
export function charCount(text: string): number {
	let pairs = 0;
	for (let i = 0; i < text.length - 1; i++) {
		const code = text.charCodeAt(i);
		if (code >= 0xd800 && code <= 0xdbff) {
			const next = text.charCodeAt(i + 1);
			if (next >= 0xdc00 && next <= 0xdfff) {
				pairs++;
				i++;
			}
		}
	}
	return text.length - pairs;
}

/** A text of at most `max` characters, counted as code points (how the media service counts them). */
export function maxCharacters(context: CheckContext, itemIndex: number, field: string, value: string, max: number): string {
	const count = charCount(value);
	if (count > max) {
		throw invalidField(context, itemIndex, field, `must be at most ${max} characters (it has ${count})`, `Shorten ${field}.`);
	}
	return value;
}

/** An absolute http(s) URL (only https when `httpsOnly`). */
export function httpUrl(context: CheckContext, itemIndex: number, field: string, value: unknown, httpsOnly = false): string {
	const text = typeof value === 'string' ? value.trim() : '';
	let protocol = '';
	try {
		protocol = new URL(text).protocol;
	} catch {
		protocol = '';
	}
	if (protocol === 'https:' || (!httpsOnly && protocol === 'http:')) return text;
	throw invalidField(
		context,
		itemIndex,
		field,
		`must be a full ${httpsOnly ? 'https://' : 'http:// or https://'} URL (got ${quoted(value)})`,
		httpsOnly ? 'The service only fetches this from a public HTTPS address.' : undefined,
	);
}

/** A text that holds valid JSON (any JSON value); answered unchanged. */
export function jsonText(context: CheckContext, itemIndex: number, field: string, value: unknown): string {
	const hint = 'Enter JSON such as {"campaign": "spring"}.';
	// Checked before stringifying: a value too deep for the bounds would overflow JSON.stringify.
	const checked = jsonField(context, itemIndex, field, value, hint, 'must be JSON text');
	const text = typeof value === 'string' ? value : JSON.stringify(checked);
	if (typeof text !== 'string') throw invalidField(context, itemIndex, field, 'must be JSON text', hint);
	return text;
}
