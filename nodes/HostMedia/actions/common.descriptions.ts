/**
 * Body fields the three video endpoints share: the pass-through payload, the callback URL and a
 * prompt of at most 2000 characters.
 */
import type { FieldDefinition } from '../../../shared/fields';
import { optionsOf, PAYLOAD_MAX_CHARS, VIDEO_PROMPT_MAX_CHARS } from '../../transport/spec';

export const PAYLOAD_FIELD: FieldDefinition = {
	name: 'payload',
	api: 'payload',
	displayName: 'Payload',
	kind: 'string',
	maxChars: PAYLOAD_MAX_CHARS,
	rows: 2,
	description:
		'Your own text (e.g. an order ID) passed through unchanged and sent back with the task notifications; at most 1,048,576 characters',
};

export const CALLBACK_URL_FIELD: FieldDefinition = {
	name: 'callbackUrl',
	api: 'callback_url',
	displayName: 'Callback URL',
	kind: 'url',
	description: 'Address notified on each status change of the task, e.g. a Host Task Trigger URL',
};

export const VIDEO_PROMPT_FIELD: FieldDefinition = {
	name: 'prompt',
	api: 'prompt',
	displayName: 'Prompt',
	kind: 'string',
	maxChars: VIDEO_PROMPT_MAX_CHARS,
	rows: 3,
	description: 'Describes the video; at most 2000 characters',
};

export function resolutionField(values: readonly string[], description: string): FieldDefinition {
	return {
		name: 'resolution',
		api: 'resolution',
		displayName: 'Resolution',
		kind: 'options',
		options: optionsOf(values),
		default: values.includes('720p') ? '720p' : values[0]!,
		description,
	};
}
