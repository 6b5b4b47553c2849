/**
 * What the service says went wrong in a job, in words a no-code user can act on: its
 * `execution_error` types (OOMError, InsufficientFundsError...) with a summary and a hint. Every
 * text names where the job ran (`place`: "the cloud", or "your server" for a self-hosted one).
 * Execute's watcher, Get History and the trigger describe a failed job alike.
 */
import { placeOf } from '../../../../credentials/cloud-server';

export interface ExecutionErrorInfo {
	exception_type: string;
	exception_message: string;
	node_id?: string;
	node_type?: string;
}

const capitalised = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** Plain words for the service's execution error types ("{place}": where the job ran). */
const EXECUTION_ERRORS: Record<string, { summary: string; hint: string }> = {
	OOMError: {
		summary: '{place} ran out of GPU memory',
		hint: 'Use a smaller image size or batch size, fewer frames, or a lighter model, then run again.',
	},
	InsufficientFundsError: {
		summary: 'the account balance is too low to pay for a partner node',
		hint: 'Top up the account balance, then run again.',
	},
	InactiveSubscriptionError: {
		summary: 'the subscription is not active',
		hint: 'Running workflows needs an active subscription. Check the account’s subscription.',
	},
	ValidationError: {
		summary: 'the workflow or one of its inputs is invalid',
		hint: 'Check the node and input named in the message (Get Node Definitions lists what each node accepts).',
	},
	ModelDownloadError: {
		summary: 'a model the workflow needs is not available or could not be downloaded',
		hint: 'Check the model names in the workflow (for example ckpt_name) against Get Node Definitions.',
	},
	ImageDownloadError: {
		summary: 'an input image could not be downloaded from its URL',
		hint: 'Check that the image URL is public and reachable, or upload the image instead.',
	},
};

/** A job's failure: the message, and what the user can do about it. */
export interface JobFailureMessage {
	message: string;
	description?: string;
	/** Only the wait ended (Max Wait): the job goes on running where it was submitted. */
	stillRunning?: boolean;
	/** The node cancelled the job itself: a retry must not take it over (it may be listed a moment longer). */
	cancelledByNode?: boolean;
}

/** A failure message and hint for an execution_error, in words a user can act on. */
export function describeExecutionError(promptId: string, error: ExecutionErrorInfo, place = placeOf('cloud')): JobFailureMessage {
	const known = EXECUTION_ERRORS[error.exception_type];
	const at = error.node_id ? ` at node ${error.node_id}${error.node_type ? ` (${error.node_type})` : ''}` : '';
	const said = error.exception_message ? `: ${error.exception_message}` : '';
	if (known) {
		return {
			message: `Job ${promptId} failed${at}: ${known.summary.replace('{place}', place)} (${error.exception_type}${said})`,
			description: known.hint,
		};
	}
	return {
		message: `Job ${promptId} failed${at}: ${error.exception_type || 'execution error'}${said}`,
		description: `${capitalised(place)} reported this error while running the workflow. Check the node named in the message.`,
	};
}

/** Longest exception text kept: a server may put a whole log in it. */
const LONGEST_EXCEPTION_MESSAGE = 1000;

/** The server's text, trimmed (upstream ends every exception_message with a newline) and cut when long. */
function exceptionText(value: unknown): string {
	if (typeof value !== 'string') return '';
	const text = value.trim();
	return text.length > LONGEST_EXCEPTION_MESSAGE ? `${text.slice(0, LONGEST_EXCEPTION_MESSAGE)}…` : text;
}

export function errorInfoFrom(data: Record<string, unknown>): ExecutionErrorInfo {
	return {
		exception_type: exceptionText(data.exception_type),
		exception_message: exceptionText(data.exception_message),
		...(data.node_id !== undefined && data.node_id !== null ? { node_id: String(data.node_id) } : {}),
		...(typeof data.node_type === 'string' ? { node_type: data.node_type } : {}),
	};
}
