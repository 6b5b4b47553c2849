import type { INodeProperties } from 'n8n-workflow';

/**
 * The one setting that lengthens the package's time limits, for a slow proxy in between: every
 * request ends after this long without a byte, and a read with its retries after three times it.
 * The transport reads it (`timeLimitsFor`); it can only raise the defaults.
 */
export const timeLimitProperty: INodeProperties = {
	displayName: 'Time Limit (Seconds)',
	name: 'timeLimitSeconds',
	type: 'number',
	typeOptions: { minValue: 60, maxValue: 600 },
	default: 60,
	description:
		'How long a request may go without a byte before it fails. A read, with its retries, ends within three times this. Raise it only when a slow proxy sits between n8n and the service.',
};
