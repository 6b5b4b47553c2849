/** Reading the prompt_id parameters of operations about jobs safely (declared in actions/common.descriptions.ts). */
import type { IExecuteFunctions } from 'n8n-workflow';

import { invalidField, pathSegmentText, quoted, requiredText, stringList } from '../../../shared/items/validation';

export const PROMPT_ID_FIELD = 'Prompt ID';

/** A prompt_id is one id: letters, digits, dashes (it goes into a URL path). */
export const PROMPT_ID_PATTERN = /^[A-Za-z0-9._:-]+$/;

/** Reads the prompt_id: a single non-empty id. */
export function readPromptId(context: IExecuteFunctions, itemIndex: number): string {
	const promptId = requiredText(context, itemIndex, PROMPT_ID_FIELD, context.getNodeParameter('promptId', itemIndex, ''));
	if (!PROMPT_ID_PATTERN.test(promptId)) {
		throw invalidField(
			context,
			itemIndex,
			PROMPT_ID_FIELD,
			`must be a single prompt_id (got ${quoted(promptId)})`,
			'A prompt_id is made of letters, digits and dashes, like 6f1c2a9e-0b7d-4c52-9a57-2f0c3d1e8b44. Submit answers it as prompt_id.',
		);
	}
	// The pattern lets "." and ".." through: they would name another path.
	return pathSegmentText(context, itemIndex, PROMPT_ID_FIELD, promptId);
}

/** A list of prompt_ids in one field (Cancel Jobs, Get History, Delete History). */
export interface PromptIdList {
	/** The parameter's name. */
	name: string;
	/** Its label, as messages name it. */
	field: string;
	/** Where the user finds ids, for the message when there is none ("Queue → Get lists…"). */
	whereToFind: string;
	/** The most ids one item may name. */
	max?: number;
}

/**
 * Reads a list of prompt_ids: separated by commas, spaces or new lines, or a list from an
 * expression; each once, each a single id; at least one, at most `max`.
 */
export function readPromptIdList(context: IExecuteFunctions, itemIndex: number, list: PromptIdList): string[] {
	const raw = context.getNodeParameter(list.name, itemIndex, '') as unknown;
	const entries = stringList(context, itemIndex, list.field, typeof raw === 'string' ? raw.replace(/\s+/g, ',') : raw);
	const ids = [...new Set(entries)];
	if (ids.length === 0)
		throw invalidField(context, itemIndex, list.field, 'is required', `Enter at least one prompt_id. ${list.whereToFind}`);
	if (list.max !== undefined && ids.length > list.max) {
		throw invalidField(
			context,
			itemIndex,
			list.field,
			`names ${ids.length} prompt_ids; at most ${list.max} are allowed`,
			'Split them over several items.',
		);
	}
	const bad = ids.find((id) => !PROMPT_ID_PATTERN.test(id));
	if (bad !== undefined) {
		throw invalidField(
			context,
			itemIndex,
			list.field,
			`holds ${quoted(bad)}, which is not a prompt_id`,
			'A prompt_id is made of letters, digits and dashes. Separate several with commas.',
		);
	}
	// Each goes into a URL path or names a job: "." and ".." would name another path.
	return ids.map((id) => pathSegmentText(context, itemIndex, list.field, id));
}
