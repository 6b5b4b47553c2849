/** The prompt_id parameter of operations about one job, and reading it safely. */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { invalidField, pathSegmentText, quoted, requiredText } from '../../../shared/validation';

export const PROMPT_ID_FIELD = 'Prompt ID';

export const promptIdProperty: INodeProperties = {
	displayName: PROMPT_ID_FIELD,
	name: 'promptId',
	type: 'string',
	default: '',
	required: true,
	placeholder: 'e.g. 6f1c2a9e-0b7d-4c52-9a57-2f0c3d1e8b44',
	description: 'The prompt_id returned when the workflow was submitted (drag it in from the output of Submit)',
};

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
