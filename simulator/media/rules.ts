/**
 * The building blocks of media proxy request validation: field checks (types, bounds, enums,
 * lengths, URLs, Base64 images), schemas of them, and validators that run a schema and then
 * cross-field rules. Each check answers with the field's path and a sentence saying what is allowed.
 */

export interface Invalid {
	/** Path of the offending field, e.g. `image_settings[2].duration`. */
	field: string;
	message: string;
}

export type Body = Record<string, unknown>;
export type BodyValidator = (body: Body) => Invalid | undefined;

export type Check = (value: unknown, field: string) => Invalid | undefined;

interface FieldRule {
	required?: boolean;
	/** What the field takes, used in the "is required" message. */
	expects?: string;
	check: Check;
}

type Schema = Record<string, FieldRule>;

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

export const fail = (field: string, message: string): Invalid => ({ field, message });

export const shown = (value: unknown): string => {
	const text = JSON.stringify(value) ?? String(value);
	return text.length > 60 ? `${text.slice(0, 57)}...` : text;
};

/** Characters as the spec counts them: code points, so an emoji is one character, not two. */
export function charCount(text: string): number {
	let surrogatePairs = 0;
	for (let i = 0; i < text.length; i++) {
		const code = text.charCodeAt(i);
		if (code >= 0xd800 && code <= 0xdbff) {
			const next = text.charCodeAt(i + 1);
			if (next >= 0xdc00 && next <= 0xdfff) {
				surrogatePairs++;
				i++;
			}
		}
	}
	return text.length - surrogatePairs;
}

export function integer(min: number, max: number, wording = `an integer from ${min} to ${max}`): Check {
	return (value, field) =>
		typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max
			? undefined
			: fail(field, `${field} must be ${wording}; got ${shown(value)}.`);
}

export const int32: Check = integer(INT32_MIN, INT32_MAX, 'a whole number (32-bit integer)');

/** Durations the spec types as integer without a range: only the form is checked. */
export const wholeNumber: Check = integer(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, 'a whole number');

export const finiteNumber: Check = (value, field) =>
	typeof value === 'number' && Number.isFinite(value) ? undefined : fail(field, `${field} must be a number; got ${shown(value)}.`);

export const boolean: Check = (value, field) =>
	typeof value === 'boolean' ? undefined : fail(field, `${field} must be true or false; got ${shown(value)}.`);

export function oneOf(values: readonly string[]): Check {
	return (value, field) =>
		typeof value === 'string' && values.includes(value)
			? undefined
			: fail(field, `${field} must be one of ${values.join(', ')}; got ${shown(value)}.`);
}

export function text(maxChars?: number, nonEmpty = false): Check {
	return (value, field) => {
		if (typeof value !== 'string') return fail(field, `${field} must be a string; got ${shown(value)}.`);
		if (nonEmpty && value.trim() === '') return fail(field, `${field} must not be empty.`);
		if (maxChars !== undefined) {
			const count = charCount(value);
			if (count > maxChars) return fail(field, `${field} must be at most ${maxChars} characters; got ${count}.`);
		}
		return undefined;
	};
}

function isHttpUrl(value: string, httpsOnly = false): boolean {
	try {
		const url = new URL(value);
		return url.protocol === 'https:' || (!httpsOnly && url.protocol === 'http:');
	} catch {
		return false;
	}
}

const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;
const DATA_URL = /^data:[\w.+-]+\/[\w.+-]+(?:;[\w-]+=[\w.-]+)*;base64,/i;

/** Base64 text (optionally a data: URL) or undefined when `value` is not Base64 at all. */
export function decodeBase64Image(value: string): Buffer | undefined {
	const bare = value.replace(DATA_URL, '').replace(/\s+/g, '');
	// A length of 4n+1 can never be Base64; padding only ever completes a group of four.
	if (bare.length < 4 || !BASE64.test(bare) || bare.length % 4 === 1 || (bare.includes('=') && bare.length % 4 !== 0)) return undefined;
	return Buffer.from(bare, bare.includes('-') || bare.includes('_') ? 'base64url' : 'base64');
}

/** The image fields: Base64 data or a URL (only an HTTPS URL where the spec says so). URLs are never fetched. */
export function imageSource(httpsOnly = false): Check {
	const allowed = httpsOnly ? 'Base64 image data or a public HTTPS URL' : 'Base64 image data or a URL';
	return (value, field) => {
		if (typeof value !== 'string' || value.trim() === '') return fail(field, `${field} must be ${allowed}.`);
		if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
			return isHttpUrl(value, httpsOnly)
				? undefined
				: fail(field, `${field} must be ${allowed}; got a URL that is not ${httpsOnly ? 'HTTPS' : 'HTTP(S)'}.`);
		}
		return decodeBase64Image(value) ? undefined : fail(field, `${field} must be ${allowed}; the value is neither valid Base64 nor a URL.`);
	};
}

/** webhook_url, callback_url, video_url, wm_url: an absolute HTTP(S) URL. */
export const httpUrl: Check = (value, field) =>
	typeof value === 'string' && isHttpUrl(value)
		? undefined
		: fail(field, `${field} must be an absolute http:// or https:// URL; got ${shown(value)}.`);

export const jsonText: Check = (value, field) => {
	if (typeof value !== 'string') return fail(field, `${field} must be a string holding JSON; got ${shown(value)}.`);
	try {
		JSON.parse(value);
		return undefined;
	} catch {
		return fail(field, `${field} must be a JSON-format string (e.g. "{\\"key\\":\\"value\\"}"); it does not parse as JSON.`);
	}
};

export function isPlainObject(value: unknown): value is Body {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function object(schema: Schema): Check {
	return (value, field) =>
		isPlainObject(value) ? checkSchema(value, schema, `${field}.`) : fail(field, `${field} must be an object; got ${shown(value)}.`);
}

export function list(item: Check, count: { min: number; max: number }, itemWording: string): Check {
	const wording = count.min === count.max ? `exactly ${count.min}` : `${count.min} to ${count.max}`;
	return (value, field) => {
		if (!Array.isArray(value)) return fail(field, `${field} must be a list of ${wording} ${itemWording}; got ${shown(value)}.`);
		if (value.length < count.min || value.length > count.max) {
			return fail(field, `${field} must hold ${wording} ${itemWording}; got ${value.length}.`);
		}
		for (let i = 0; i < value.length; i++) {
			const problem = item(value[i], `${field}[${i}]`);
			if (problem) return problem;
		}
		return undefined;
	};
}

/** Absent means undefined or null: clients often send null for an unset optional field. */
export const absent = (value: unknown): boolean => value === undefined || value === null;

function checkSchema(body: Body, schema: Schema, prefix = ''): Invalid | undefined {
	for (const [name, rule] of Object.entries(schema)) {
		const field = `${prefix}${name}`;
		const value = body[name];
		if (absent(value)) {
			if (rule.required) return fail(field, `${field} is required${rule.expects ? ` (${rule.expects})` : ''}.`);
			continue;
		}
		const problem = rule.check(value, field);
		if (problem) return problem;
	}
	return undefined;
}

/** Runs the schema, then the cross-field rules, stopping at the first problem. */
export function validator(schema: Schema, ...crossChecks: BodyValidator[]): BodyValidator {
	return (body) => {
		const problem = checkSchema(body, schema);
		if (problem) return problem;
		for (const cross of crossChecks) {
			const crossProblem = cross(body);
			if (crossProblem) return crossProblem;
		}
		return undefined;
	};
}

export const optional = (check: Check): FieldRule => ({ check });
export const required = (check: Check, expects: string): FieldRule => ({ required: true, expects, check });

export function isInvalid(value: object): value is Invalid {
	return 'field' in value && 'message' in value;
}
