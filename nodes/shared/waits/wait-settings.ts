/**
 * How long and how often a node waits, named and placed alike in Host Cloud and Host Media (from
 * node version 2): a "Wait Options" collection with "Max Wait (Minutes)" and "Poll Interval
 * (Seconds)", plus each node's own settings. Version 1 of each node keeps its saved layout.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { checkedOrDefault, type FieldDefinition } from '../items/fields';

export const WAIT_OPTIONS_NAME = 'waitOptions';

/** Node versions that read "Wait Options" (earlier ones keep their own layout). */
export const WAIT_OPTIONS_SINCE_VERSION = 2;

/** Display conditions: shown from the version with "Wait Options" on, or only before it (saved layouts). */
export const SINCE_WAIT_OPTIONS = { '@version': [{ _cnd: { gte: WAIT_OPTIONS_SINCE_VERSION } }] };
export const BEFORE_WAIT_OPTIONS = { '@version': [1] };

export const hasWaitOptions = (context: IExecuteFunctions): boolean => context.getNode().typeVersion >= WAIT_OPTIONS_SINCE_VERSION;

/**
 * The longest wait a node accepts: 30 days. A larger Max Wait would outlive any job or task, and far
 * beyond it the time to resume at is no longer a date at all.
 */
export const LONGEST_WAIT_MINUTES = 43_200;
/** The longest pause between two status checks (and of silence before one): an hour. */
export const LONGEST_PAUSE_SECONDS = 3_600;

/** Each field's checked value from the "Wait Options" of item `itemIndex`, or its default when left out. */
export function readWaitOptions(context: IExecuteFunctions, itemIndex: number, fields: FieldDefinition[]): Record<string, unknown> {
	const value = context.getNodeParameter(WAIT_OPTIONS_NAME, itemIndex, {}) as unknown;
	const values = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as IDataObject) : {};
	const out: Record<string, unknown> = {};
	for (const field of fields) out[field.name] = checkedOrDefault(context, itemIndex, field, values[field.name]);
	return out;
}
