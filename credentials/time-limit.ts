import type { INodeProperties } from 'n8n-workflow';

/**
 * The bounds of every exchange: an answer (its headers, then each part of its body) that stays
 * silent for `ms` ends the request; a read, with all its retries and their pauses, ends within
 * `readMs`. A credential's Time Limit raises both (a slow proxy). Streams bound their own reading
 * (music) but wait no longer than `ms` for the headers. The transport applies them
 * (`nodes/shared/transport/transport.ts`). A credential test is n8n's own request: n8n ends it after 5
 * minutes of silence, whatever the credential says. Tests shorten them; the nodes never change them.
 */
export const REQUEST_TIME_LIMIT = { ms: 60_000, readMs: 180_000 };

/** The credential's Time Limit when left alone: the idle limit above, in seconds. */
export const DEFAULT_TIME_LIMIT_SECONDS = 60;

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
	default: DEFAULT_TIME_LIMIT_SECONDS,
	description:
		'How long a request may go without a byte before it fails. A read, with its retries, ends within three times this. Raise it only when a slow proxy sits between n8n and the service.',
};
