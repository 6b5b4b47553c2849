/**
 * A refused workflow in the user's terms. The server answers 400 with `node_errors`: per node id,
 * its `class_type` and `errors[]`, each with a `type`, a `message` that names only the kind of
 * error ("Value not in list"), and the facts in `details` and `extra_info` (`input_name`,
 * `received_value`, `input_config` with the allowed values or bounds). These lines say, per
 * refused node: which node, which input, the value given and what the server allows, with long
 * lists of allowed values cut to a few and a count. The v2 API's `422 invalid_workflow` lists, per
 * node id, `[{field, reason, message?}]` under `error.details.node_errors`: said the same way.
 */

import { isRecord } from '../../shared/items/validation';

const SHOWN_CHOICES = 5;
const SHOWN_NODES = 8;
const LONGEST_VALUE = 80;

/** A value as the user typed it: text in quotes, cut when long. */
function shown(value: unknown): string {
	let text: string;
	try {
		text = typeof value === 'string' ? `'${value}'` : (JSON.stringify(value) ?? String(value));
	} catch {
		text = String(value);
	}
	return text.length > LONGEST_VALUE ? `${text.slice(0, LONGEST_VALUE)}…` : text;
}

/** What an input's spec allows: a combo's first values and how many more, or the number bounds. */
function allowed(config: unknown): string | undefined {
	if (!Array.isArray(config)) return undefined;
	const [kind, options] = config as [unknown, unknown];
	if (Array.isArray(kind)) {
		if (kind.length === 0) return 'the server lists no values for it';
		const first = kind.slice(0, SHOWN_CHOICES).map(shown).join(', ');
		return `allowed: ${first}${kind.length > SHOWN_CHOICES ? ` and ${kind.length - SHOWN_CHOICES} more` : ''}`;
	}
	if (!isRecord(options)) return undefined;
	const { min, max } = options;
	if (typeof min === 'number' && typeof max === 'number') return `allowed: ${min} to ${max}`;
	if (typeof min === 'number') return `allowed: ${min} or more`;
	if (typeof max === 'number') return `allowed: up to ${max}`;
	return undefined;
}

/** One error of one node, as a reason: the input, what was given, what is allowed. */
function errorReason(error: Record<string, unknown>): string | undefined {
	const info = isRecord(error.extra_info) ? error.extra_info : {};
	const message = typeof error.message === 'string' ? error.message.trim().replace(/\.$/, '') : '';
	const details = typeof error.details === 'string' ? error.details.trim() : '';
	const input = typeof info.input_name === 'string' ? info.input_name : undefined;
	const given = 'received_value' in info ? shown(info.received_value) : undefined;
	const bounds = allowed(info.input_config);
	// v2's shape (its contract's example): the input as `field`, what is wrong as `reason`, maybe a `message`.
	if (typeof error.field === 'string' && error.type === undefined) {
		const reason = typeof error.reason === 'string' ? error.reason.replace(/_/g, ' ') : '';
		const said = message || reason;
		return said ? `input ${error.field}: ${said}` : `input ${error.field} was refused`;
	}
	switch (error.type) {
		case 'value_not_in_list':
		case 'value_bigger_than_max':
		case 'value_smaller_than_min':
			if (input && given !== undefined) {
				const verdict = {
					value_not_in_list: 'is not in the list',
					value_bigger_than_max: 'is too large',
					value_smaller_than_min: 'is too small',
				}[error.type];
				return `input ${input}: ${given} ${verdict}${bounds ? ` (${bounds})` : ''}`;
			}
			break;
		case 'required_input_missing':
			if (input) return `required input ${input} is missing`;
			break;
		case 'invalid_input_type':
			if (input && given !== undefined) {
				const why = typeof info.exception_message === 'string' ? `: ${info.exception_message}` : '';
				return `input ${input}: ${given} is not valid (${message.toLowerCase()}${why})`;
			}
			break;
		case 'return_type_mismatch':
			if (input && typeof info.received_type === 'string') {
				const wanted = Array.isArray(info.input_config) ? info.input_config[0] : undefined;
				return `input ${input} is linked to a ${info.received_type} output${typeof wanted === 'string' ? `, but takes ${wanted}` : ''}`;
			}
			break;
		case 'custom_validation_failed':
			// The node's own check: details are "input - what is wrong".
			if (input && details) return `input ${input}: ${details.startsWith(`${input} - `) ? details.slice(input.length + 3) : details}`;
			break;
		case 'exception_during_validation': {
			const exception = typeof info.exception_type === 'string' ? info.exception_type : 'an error';
			return `the server could not check it (${exception}${details ? `: ${details}` : ''}); check its links and inputs`;
		}
	}
	// Another kind, or a server that words it differently: its own message and details.
	const reason = [message, details && !message.includes(details) ? details : ''].filter(Boolean).join(': ');
	return reason || undefined;
}

/** One line per refused node: `Node 4 (CheckpointLoaderSimple): input ckpt_name: 'x' is not in the list (allowed: ...)`. */
export function refusedNodeLines(nodeErrors: unknown): string[] {
	if (!isRecord(nodeErrors)) return [];
	const lines: string[] = [];
	for (const [nodeId, entry] of Object.entries(nodeErrors)) {
		if (!isRecord(entry) && !Array.isArray(entry)) continue;
		// v1 lists a node's errors under `errors`, with its class_type; v2 gives the list itself.
		const errors = (Array.isArray(entry) ? entry : Array.isArray(entry.errors) ? entry.errors : []).filter(isRecord);
		const reasons = errors.map(errorReason).filter((text): text is string => !!text);
		if (!reasons.length) continue;
		const classType = isRecord(entry) && typeof entry.class_type === 'string' ? ` (${entry.class_type})` : '';
		// A server that already names the node in its message is not named twice.
		const said = reasons.join('; ');
		lines.push(said.includes(`Node ${nodeId}`) ? said : `Node ${nodeId}${classType}: ${said}`);
	}
	if (lines.length > SHOWN_NODES) return [...lines.slice(0, SHOWN_NODES), `and ${lines.length - SHOWN_NODES} more nodes`];
	return lines;
}
