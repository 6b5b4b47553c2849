/**
 * One definition per body field: its parameter (what the user sees) and its check (what the spec
 * allows) come from the same place, so the editor's hints and the node's validation cannot drift.
 * Error messages name the field as shown and as the API calls it: "Creativity (creativity) ...".
 */
import type { IDataObject, IExecuteFunctions, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { booleanValue, httpUrl, integerInRange, invalidField, jsonText, maxCharacters, numberInRange, oneOf, quoted } from './validation';

interface FieldBase {
	/** Parameter name in the node (camelCase). */
	name: string;
	/** Name of the field in the request body; none for settings of the node itself (how long to wait...). */
	api?: string;
	displayName: string;
	description: string;
	placeholder?: string;
}

export type FieldDefinition = FieldBase &
	(
		| { kind: 'integer'; min: number; max: number; default?: number }
		| { kind: 'number'; min?: number; max?: number; precision?: number; default?: number }
		| { kind: 'boolean'; default?: boolean }
		| { kind: 'options'; options: INodePropertyOptions[]; default?: string | number }
		| { kind: 'string'; maxChars?: number; rows?: number; default?: string }
		| { kind: 'url'; httpsOnly?: boolean }
		| { kind: 'json' }
	);

/** "Creativity (creativity)": how messages name a field (a node setting by its display name alone). */
export const fieldLabel = (field: { displayName: string; api?: string }): string =>
	field.api ? `${field.displayName} (${field.api})` : field.displayName;

/** The n8n parameter of a field definition. */
export function fieldProperty(field: FieldDefinition): INodeProperties {
	const common = { displayName: field.displayName, name: field.name, description: field.description, placeholder: field.placeholder };
	switch (field.kind) {
		case 'integer':
			return {
				...common,
				type: 'number',
				default: field.default ?? Math.max(field.min, Math.min(field.max, 0)),
				typeOptions: {
					// Unbounded sides get no limit in the editor.
					...(field.min > Number.MIN_SAFE_INTEGER ? { minValue: field.min } : {}),
					...(field.max < Number.MAX_SAFE_INTEGER ? { maxValue: field.max } : {}),
					numberPrecision: 0,
				},
			};
		case 'number':
			return {
				...common,
				type: 'number',
				default: field.default ?? 0,
				typeOptions:
					field.min !== undefined || field.max !== undefined || field.precision !== undefined
						? {
								...(field.min !== undefined ? { minValue: field.min } : {}),
								...(field.max !== undefined ? { maxValue: field.max } : {}),
								...(field.precision !== undefined ? { numberPrecision: field.precision } : {}),
							}
						: undefined,
			};
		case 'boolean':
			return { ...common, type: 'boolean', default: field.default ?? false };
		case 'options':
			return { ...common, type: 'options', options: field.options, default: field.default ?? field.options[0]!.value };
		case 'string':
			return { ...common, type: 'string', default: field.default ?? '', typeOptions: field.rows ? { rows: field.rows } : undefined };
		case 'url':
			return { ...common, type: 'string', default: '' };
		case 'json':
			return { ...common, type: 'json', default: '{}' };
	}
}

/** Parameters for a collection, sorted by display name as n8n lists them. */
export function collectionOptions(fields: FieldDefinition[], extra: INodeProperties[] = []): INodeProperties[] {
	return [...fields.map(fieldProperty), ...extra].sort((a, b) => a.displayName.localeCompare(b.displayName));
}

/** The "Additional Fields" collection of an operation: its optional fields, plus `extra` parameters. */
export function additionalFieldsProperty(fields: FieldDefinition[], extra: INodeProperties[] = []): INodeProperties {
	return {
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: collectionOptions(fields, extra),
	};
}

/** Where an image task notifies its status changes (video tasks use `callback_url`). */
export const WEBHOOK_URL_FIELD: FieldDefinition = {
	name: 'webhookUrl',
	api: 'webhook_url',
	displayName: 'Webhook URL',
	kind: 'url',
	description: 'Address notified on each status change of the task, e.g. a Host Task Trigger URL',
};

const isEmpty = (value: unknown): boolean => value === undefined || value === null || (typeof value === 'string' && value.trim() === '');

/** A number from a number or numeric text (expressions often give text). */
function numberValue(context: IExecuteFunctions, itemIndex: number, label: string, value: unknown): number {
	const number = typeof value === 'string' && value.trim() !== '' ? Number(value.trim()) : value;
	if (typeof number === 'number' && Number.isFinite(number)) return number;
	throw invalidField(context, itemIndex, label, `must be a number (got ${quoted(value)})`);
}

/**
 * The checked value of a field for the request body, or undefined when the user left it empty.
 * Throws a NodeOperationError naming the field when the value is outside what the spec allows.
 */
export function checkedField(context: IExecuteFunctions, itemIndex: number, field: FieldDefinition, value: unknown): unknown {
	if (isEmpty(value)) return undefined;
	const label = fieldLabel(field);
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
				const number = typeof value === 'string' ? Number(value) : value;
				if (allowed.includes(number as number)) return number;
				throw invalidField(context, itemIndex, label, `must be one of ${allowed.join(', ')} (got ${quoted(value)})`);
			}
			return oneOf(context, itemIndex, label, value, allowed as string[]);
		}
		case 'string': {
			const text = typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
			if (text === undefined) throw invalidField(context, itemIndex, label, `must be text (got ${quoted(value)})`);
			return field.maxChars === undefined ? text : maxCharacters(context, itemIndex, label, text, field.maxChars);
		}
		case 'url':
			return httpUrl(context, itemIndex, label, value, field.httpsOnly);
		case 'json': {
			const text = jsonText(context, itemIndex, label, value);
			// An untouched JSON box ("{}") means "nothing to send".
			return text.replace(/\s+/g, '') === '{}' ? undefined : text;
		}
	}
}

/** Checks every field present in `values` (a collection's value) and copies it into `body`. */
export function addFields(
	context: IExecuteFunctions,
	itemIndex: number,
	fields: FieldDefinition[],
	values: IDataObject,
	body: IDataObject,
): IDataObject {
	for (const field of fields) {
		const checked = checkedField(context, itemIndex, field, values[field.name]);
		if (checked !== undefined && field.api) body[field.api] = checked as IDataObject[string];
	}
	return body;
}

/** Checks a top-level parameter and copies it into `body`. */
export function addParameter(context: IExecuteFunctions, itemIndex: number, field: FieldDefinition, body: IDataObject): unknown {
	const checked = checkedField(context, itemIndex, field, context.getNodeParameter(field.name, itemIndex, undefined));
	if (checked !== undefined && field.api) body[field.api] = checked as IDataObject[string];
	return checked;
}

/** The "Additional Fields" collection of an operation, as an object (empty when none were added). */
export function additionalFields(context: IExecuteFunctions, itemIndex: number, name = 'additionalFields'): IDataObject {
	const value = context.getNodeParameter(name, itemIndex, {}) as unknown;
	return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as IDataObject) : {};
}
