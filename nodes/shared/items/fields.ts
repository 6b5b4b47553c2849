/**
 * One definition per body field: its parameter (what the user sees) and its check (what the spec
 * allows) come from the same place, so the editor's hints and the node's validation cannot drift.
 * Error messages name the field as shown and as the API calls it: "Creativity (creativity) ...".
 */
import type { IDataObject, IExecuteFunctions, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import {
	type CheckContext,
	booleanValue,
	httpUrl,
	integerInRange,
	invalidField,
	jsonObject,
	jsonText,
	maxCharacters,
	numberInRange,
	oneOf,
	quoted,
	requiredText,
	stringList,
} from './validation';

interface FieldBase {
	/** Parameter name in the node (camelCase). */
	name: string;
	/** Name of the field in the request body; none for settings of the node itself (how long to wait...). */
	api?: string;
	displayName: string;
	description?: string;
	placeholder?: string;
	hint?: string;
}

/** A check of a field's value: answers the value for the body, or throws naming the field by `label`. */
export type FieldCheck = (context: CheckContext, itemIndex: number, label: string, value: unknown) => unknown;

export type FieldDefinition = FieldBase &
	(
		| { kind: 'integer'; min: number; max: number; default?: number }
		| { kind: 'number'; min?: number; max?: number; default?: number }
		| { kind: 'boolean'; default?: boolean }
		| { kind: 'options'; options: INodePropertyOptions[]; default?: string | number }
		| {
				kind: 'string';
				maxChars?: number;
				rows?: number;
				default?: string;
				/** Never blank: trimmed, and refused when blank ("Name is required"), also inside a collection. */
				required?: boolean;
				/** A further rule the service sets on the text (a version number, an ID's form), run on the trimmed text. */
				check?: FieldCheck;
		  }
		| { kind: 'url'; httpsOnly?: boolean }
		| { kind: 'json' }
		/** Texts entered one per entry (or, from an expression, as an array or comma/line separated). */
		| { kind: 'stringList' }
		/** A JSON object, sent as an object (the `json` kind sends the text as typed). */
		| { kind: 'jsonObject' }
		/** A parameter of another shape (a fixedCollection...) and the check that turns its value into the body's. */
		| { kind: 'custom'; parameter: Pick<INodeProperties, 'type' | 'default' | 'typeOptions' | 'options'>; check: FieldCheck }
	);

/**
 * How values are read, where a node needs other than the default: a blank value means "not given",
 * and messages name a field as "Creativity (creativity)".
 */
export interface FieldReading {
	/** The collection's display name: messages then say where the field is, "Logo URL (in Update Fields)". */
	collection?: string;
	/**
	 * A blank value is a value: an update sends it so the service clears the field (a blank text or
	 * URL as "", a blank list as []); kinds that have no blank value (numbers, booleans, options,
	 * JSON objects) refuse it by name.
	 */
	keepBlank?: boolean;
}

/** "Creativity (creativity)": how messages name a field (a node setting by its display name alone). */
export const fieldLabel = (field: { displayName: string; api?: string }): string =>
	field.api ? `${field.displayName} (${field.api})` : field.displayName;

/** The n8n parameter of a field definition. */
export function fieldProperty(field: FieldDefinition): INodeProperties {
	const common = {
		displayName: field.displayName,
		name: field.name,
		description: field.description,
		placeholder: field.placeholder,
		hint: field.hint,
	};
	switch (field.kind) {
		case 'integer':
		case 'number':
			return { ...common, ...numberShape(field) };
		case 'boolean':
			return { ...common, type: 'boolean', default: field.default ?? false };
		case 'options':
			return { ...common, type: 'options', options: field.options, default: field.default ?? field.options[0]!.value };
		case 'string':
			return {
				...common,
				type: 'string',
				default: field.default ?? '',
				typeOptions: field.rows ? { rows: field.rows } : undefined,
				...(field.required ? { required: true } : {}),
			};
		case 'url':
			return { ...common, type: 'string', default: '' };
		case 'json':
		case 'jsonObject':
			return { ...common, type: 'json', default: '{}' };
		case 'stringList':
			return {
				...common,
				type: 'string',
				// The button adds one entry: "Add Tag" for Tags.
				typeOptions: { multipleValues: true, multipleValueButtonText: `Add ${field.displayName.replace(/s$/, '')}` },
				default: [],
			};
		case 'custom':
			return { ...common, ...field.parameter };
	}
}

/** A number field's type, default and editor bounds: an integer shows whole numbers, within the sides it has. */
function numberShape(
	field: Extract<FieldDefinition, { kind: 'integer' | 'number' }>,
): Pick<INodeProperties, 'type' | 'default' | 'typeOptions'> {
	if (field.kind === 'integer')
		return {
			type: 'number',
			default: field.default ?? Math.max(field.min, Math.min(field.max, 0)),
			typeOptions: {
				// Unbounded sides get no limit in the editor.
				...(field.min > Number.MIN_SAFE_INTEGER ? { minValue: field.min } : {}),
				...(field.max < Number.MAX_SAFE_INTEGER ? { maxValue: field.max } : {}),
				numberPrecision: 0,
			},
		};
	return {
		type: 'number',
		default: field.default ?? 0,
		// No numberPrecision: the editor would show 30 minutes as "30.00"; decimals can still be typed.
		typeOptions:
			field.min !== undefined || field.max !== undefined
				? {
						...(field.min !== undefined ? { minValue: field.min } : {}),
						...(field.max !== undefined ? { maxValue: field.max } : {}),
					}
				: undefined,
	};
}

/** Parameters for a collection, sorted by display name as n8n lists them. */
export function collectionOptions(fields: FieldDefinition[], extra: INodeProperties[] = []): INodeProperties[] {
	// A field in a collection is there only once added: "required" means it may not be left blank
	// then, which its check enforces, not that the editor must demand it.
	const options = fields.map((field) => fieldProperty(field.kind === 'string' ? { ...field, required: false } : field));
	return [...options, ...extra].sort((a, b) => a.displayName.localeCompare(b.displayName));
}

/** A collection parameter ("Additional Fields", "Update Fields"...) offering `fields`, plus `extra` parameters. */
export function collectionProperty(
	name: string,
	displayName: string,
	fields: FieldDefinition[],
	extra: INodeProperties[] = [],
): INodeProperties {
	return { displayName, name, type: 'collection', placeholder: 'Add Field', default: {}, options: collectionOptions(fields, extra) };
}

/** The "Additional Fields" collection of an operation: its optional fields, plus `extra` parameters. */
export function additionalFieldsProperty(fields: FieldDefinition[], extra: INodeProperties[] = []): INodeProperties {
	return collectionProperty('additionalFields', 'Additional Fields', fields, extra);
}

const isEmpty = (value: unknown): boolean => value === undefined || value === null || (typeof value === 'string' && value.trim() === '');

/** A text, also from a number or a boolean an expression gives; undefined for anything else. */
const asText = (value: unknown): string | undefined =>
	typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;

/** A number from a number or numeric text (expressions often give text). */
function numberValue(context: CheckContext, itemIndex: number, label: string, value: unknown): number {
	const number = typeof value === 'string' && value.trim() !== '' ? Number(value.trim()) : value;
	if (typeof number === 'number' && Number.isFinite(number)) return number;
	throw invalidField(context, itemIndex, label, `must be a number (got ${quoted(value)})`);
}

/**
 * The checked value of a field for the request body, or undefined when the user left it empty
 * (unless blanks are kept, or the field is a required text). Throws a NodeOperationError naming the field when the value is outside what the spec allows.
 */
export function checkedField(
	context: CheckContext,
	itemIndex: number,
	field: FieldDefinition,
	value: unknown,
	reading: FieldReading = {},
): unknown {
	const required = field.kind === 'string' && field.required === true;
	if (!required && (value === undefined || value === null || (isEmpty(value) && !reading.keepBlank))) return undefined;
	const label = reading.collection ? `${field.displayName} (in ${reading.collection})` : fieldLabel(field);
	switch (field.kind) {
		case 'integer':
			return integerInRange(context, itemIndex, label, value, field.min, field.max);
		case 'number':
			return field.min === undefined && field.max === undefined
				? numberValue(context, itemIndex, label, value)
				: numberInRange(context, itemIndex, label, value, field.min ?? Number.NEGATIVE_INFINITY, field.max);
		case 'boolean':
			return booleanValue(context, itemIndex, label, value);
		case 'options': {
			const allowed = field.options.map((option) => option.value);
			if (allowed.every((option) => typeof option === 'number')) {
				// A kept blank is not the number 0.
				const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
				if (allowed.includes(number as number)) return number;
				throw invalidField(context, itemIndex, label, `must be one of ${allowed.join(', ')} (got ${quoted(value)})`);
			}
			return oneOf(context, itemIndex, label, value, allowed as string[]);
		}
		case 'string': {
			const text = field.required ? requiredText(context, itemIndex, label, value) : asText(value);
			if (text === undefined) throw invalidField(context, itemIndex, label, `must be text (got ${quoted(value)})`);
			const bounded = field.maxChars === undefined ? text : maxCharacters(context, itemIndex, label, text, field.maxChars);
			return field.check ? field.check(context, itemIndex, label, bounded) : bounded;
		}
		case 'url':
			// A kept blank clears the address.
			return isEmpty(value) ? '' : httpUrl(context, itemIndex, label, value, field.httpsOnly);
		case 'json': {
			const text = jsonText(context, itemIndex, label, value);
			// An untouched JSON box ("{}") means "nothing to send".
			return text.replace(/\s+/g, '') === '{}' ? undefined : text;
		}
		case 'stringList':
			return stringList(context, itemIndex, label, value);
		case 'jsonObject':
			return jsonObject(context, itemIndex, label, value);
		case 'custom':
			return field.check(context, itemIndex, label, value);
	}
}

/** A field's checked value, or its default when the user left it empty. */
export function checkedOrDefault(context: CheckContext, itemIndex: number, field: FieldDefinition, value: unknown): unknown {
	return checkedField(context, itemIndex, field, value) ?? ('default' in field ? field.default : undefined);
}

/** Checks every field present in `values` (a collection's value) and copies it into `body`. */
export function addFields(
	context: CheckContext,
	itemIndex: number,
	fields: FieldDefinition[],
	values: IDataObject,
	body: IDataObject,
	reading: FieldReading = {},
): IDataObject {
	for (const field of fields) {
		const value = values[field.name];
		// A field not added to the collection is not checked, a required one included.
		if (value === undefined || value === null) continue;
		const checked = checkedField(context, itemIndex, field, value, reading);
		if (checked !== undefined && field.api) body[field.api] = checked as IDataObject[string];
	}
	return body;
}

/** Checks a top-level parameter and answers its value (undefined when left empty). */
export function checkedParameter(
	context: IExecuteFunctions,
	itemIndex: number,
	field: FieldDefinition,
	reading: FieldReading = {},
): unknown {
	return checkedField(context, itemIndex, field, context.getNodeParameter(field.name, itemIndex, undefined), reading);
}

/** Checks a top-level parameter and copies it into `body`. */
export function addParameter(context: IExecuteFunctions, itemIndex: number, field: FieldDefinition, body: IDataObject): unknown {
	const checked = checkedParameter(context, itemIndex, field);
	if (checked !== undefined && field.api) body[field.api] = checked as IDataObject[string];
	return checked;
}

/** The "Additional Fields" collection of an operation, as an object (empty when none were added). */
export function additionalFields(context: IExecuteFunctions, itemIndex: number, name = 'additionalFields'): IDataObject {
	const value = context.getNodeParameter(name, itemIndex, {}) as unknown;
	return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as IDataObject) : {};
}
