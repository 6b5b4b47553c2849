/** The wait parameters Host Cloud and Host Media share (read by `../waits/wait-settings.ts`): the "Wait Options" collection and its two common fields. */
import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';

import { collectionOptions, type FieldDefinition } from '../items/fields';
import { LONGEST_PAUSE_SECONDS, LONGEST_WAIT_MINUTES, SINCE_WAIT_OPTIONS, WAIT_OPTIONS_NAME } from '../waits/wait-settings';

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
