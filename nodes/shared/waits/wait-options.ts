/**
 * How long and how often a node waits, named and placed alike in Host Cloud and Host Media (from
 * node version 2): a "Wait Options" collection with "Max Wait (Minutes)" and "Poll Interval
 * (Seconds)", plus each node's own settings. Version 1 of each node keeps its saved layout.
 */
import type { IDataObject, IDisplayOptions, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { checkedOrDefault, collectionOptions, type FieldDefinition } from '../items/fields';

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

/** "Max Wait (Minutes)"; `noLimit`: 0 means wait without limit. */
export function maxWaitMinutesField(defaultMinutes: number, description: string, noLimit = false): FieldDefinition {
	return {
		name: 'maxWaitMinutes',
		displayName: 'Max Wait (Minutes)',
		kind: 'number',
		min: noLimit ? 0 : 0.01,
		max: LONGEST_WAIT_MINUTES,
		default: defaultMinutes,
		description,
	};
}

/** "Poll Interval (Seconds)". */
export function pollIntervalSecondsField(defaultSeconds: number, description: string): FieldDefinition {
	return {
		name: 'pollIntervalSeconds',
		displayName: 'Poll Interval (Seconds)',
		kind: 'number',
		min: 0.01,
		max: LONGEST_PAUSE_SECONDS,
		default: defaultSeconds,
		description,
	};
}

/** The "Wait Options" collection of an operation (shown where `show` says, for version 2 on). */
export function waitOptionsProperty(
	fields: FieldDefinition[],
	show: NonNullable<IDisplayOptions['show']> = {},
	extra: INodeProperties[] = [],
): INodeProperties {
	return {
		displayName: 'Wait Options',
		name: WAIT_OPTIONS_NAME,
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show: { ...show, ...SINCE_WAIT_OPTIONS } },
		options: collectionOptions(fields, extra),
	};
}

/** Each field's checked value from the "Wait Options" of item `itemIndex`, or its default when left out. */
export function readWaitOptions(context: IExecuteFunctions, itemIndex: number, fields: FieldDefinition[]): Record<string, unknown> {
	const value = context.getNodeParameter(WAIT_OPTIONS_NAME, itemIndex, {}) as unknown;
	const values = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as IDataObject) : {};
	const out: Record<string, unknown> = {};
	for (const field of fields) out[field.name] = checkedOrDefault(context, itemIndex, field, values[field.name]);
	return out;
}
