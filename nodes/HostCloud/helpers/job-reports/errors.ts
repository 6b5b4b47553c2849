/**
 * The node's errors for a job: each names the job and where it ran (the cloud or a self-hosted
 * server), with a hint, and marks in its context what the wait did (left it running, cancelled it).
 */
import type { INode } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { placeOf, type ServerKind } from '../../../../credentials/cloud-server';
import { redact } from '../../../shared/transport/redaction';
import { describeExecutionError, type ExecutionErrorInfo, type JobFailureMessage } from './execution-errors';

/** The name of Wait for Completion's setting that lets Max Wait cancel a job this execution did not submit. */
export const CANCEL_STARTED_ELSEWHERE = 'Cancel Jobs Started Elsewhere at Max Wait';

/** The failure of a job the service reported failed (`execution_error`, or the record's error), with its exception type and node. */
export function executionFailure(
	node: INode,
	job: { promptId: string; itemIndex: number; error?: ExecutionErrorInfo },
	place: string,
	secrets: string[],
): NodeOperationError {
	const error = job.error ?? { exception_type: '', exception_message: '' };
	const failure = jobFailure(node, job, describeExecutionError(job.promptId, error, place), secrets);
	failure.context.exception_type = error.exception_type;
	if (error.node_id) failure.context.node_id = error.node_id;
	return failure;
}

/** What the wait knew of a job when Max Wait ended it. */
export interface TimeoutFacts {
	maxWaitMs: number;
	lastStatus?: string;
	lastProblem?: string;
}

/** What Max Wait did to the job: cancelled it, left it running as On Timeout says, or left it because this execution did not submit it. */
type TimeoutFate = 'cancelled' | 'leftRunning' | 'startedElsewhere';

function timedOutMessage(place: string, promptId: string, timeout: TimeoutFacts, fate: TimeoutFate): JobFailureMessage {
	const status = timeout.lastStatus ? ` Its last known status was "${timeout.lastStatus}".` : '';
	const last = timeout.lastProblem ? `${status} ${timeout.lastProblem}.` : status;
	const seconds = Math.round(timeout.maxWaitMs / 100) / 10;
	if (fate === 'cancelled')
		return {
			message: `Job ${promptId} did not finish within ${seconds} seconds (Max Wait), so it was cancelled on ${place}`,
			description: `${last} Raise Max Wait in the wait settings for longer jobs, or set "On Timeout" to leave jobs running.`.trim(),
			cancelledByNode: true,
		};
	const elsewhere =
		fate === 'startedElsewhere'
			? ` This execution did not submit it, so it was not cancelled: turn on "${CANCEL_STARTED_ELSEWHERE}" to cancel such a job at Max Wait.`
			: '';
	return {
		message: `Job ${promptId} did not finish within ${seconds} seconds (Max Wait); it is still running on ${place}`,
		description: `${last} Use Workflow → Wait for Completion with this prompt_id to collect its outputs later.${elsewhere}`.trim(),
		stillRunning: true,
	};
}

function abandonedMessage(place: string, promptId: string, cancelled: boolean, owned: boolean): JobFailureMessage {
	const fate = owned ? `the job was stopped on ${place}` : 'the job itself was left running';
	// "canceled" is the word n8n looks for to mark the execution canceled rather than failed.
	return cancelled
		? { message: `The execution was canceled while waiting for job ${promptId}; ${fate}`, cancelledByNode: owned }
		: {
				message: `Stopped waiting for job ${promptId} because another item failed; ${fate}`,
				description: 'Turn on "Continue On Fail" to let the other items finish.',
				cancelledByNode: owned,
			};
}

/** The messages of a job's failures where it ran (the cloud or a self-hosted server), each with its hint; each names the job. */
export function jobFailureMessages(kind: ServerKind) {
	const place = placeOf(kind);
	return {
		kind,
		place,
		// A caching proxy or a faulty service can answer one prompt_id for two submits.
		sharedPromptId: (promptId: string, first: number, second: number): JobFailureMessage => ({
			message: `The service answered prompt_id ${promptId} for two different submits (items ${first} and ${second}), so their results cannot be told apart; neither item uses them`,
			description: `A caching proxy in front of ${place}, or a fault of ${place}, can do this. Check the queue (Queue → Get): both workflows may be running.`,
		}),
		cancelledByService: (promptId: string): JobFailureMessage => ({
			message: `Job ${promptId} was cancelled on ${place} before it finished`,
			description:
				'Someone cancelled it in the queue or interrupted the running job (Queue → Cancel Jobs or Interrupt Running, or the same in the editor). Run again to get its outputs.',
		}),
		outputsIncomplete: (promptId: string): JobFailureMessage => ({
			message: `Job ${promptId} finished, but the progress connection was interrupted while it ran and ${kind === 'selfHosted' ? "the server's history" : "the service's job record"} does not list its outputs, so the outputs may be incomplete`,
			description: `The node does not return a partial list of files. Run the workflow again; if this keeps happening, check the network between n8n and ${place} (WebSocket connections must stay open).`,
		}),
		notFound: (promptId: string): JobFailureMessage =>
			kind === 'selfHosted'
				? {
						message: `Your server has no job ${promptId}: it is neither in its queue nor in its history`,
						description:
							'It was deleted from the queue, or the history was cleared (or restarted). Check the prompt_id: it must come from a submit to this server.',
					}
				: {
						message: `The cloud has no job ${promptId} (HTTP 404)`,
						description: 'Check the prompt_id: it must come from a submit made with the same API key.',
					},
		/** `fate`: cancelled; left running as On Timeout says; or left running because this execution did not submit it. */
		timedOut: (promptId: string, timeout: TimeoutFacts, fate: TimeoutFate): JobFailureMessage =>
			timedOutMessage(place, promptId, timeout, fate),
		/** `cancelled`: the execution was stopped (else another item failed); `owned`: the node started the job. */
		abandoned: (promptId: string, cancelled: boolean, owned: boolean): JobFailureMessage =>
			abandonedMessage(place, promptId, cancelled, owned),
	};
}

/** The error of one job's item: its message (secrets blanked out), with the job's prompt_id in its context. */
export function jobFailure(
	node: INode,
	job: { promptId: string; itemIndex: number },
	failure: JobFailureMessage,
	secrets: string[],
): NodeOperationError {
	const error = new NodeOperationError(node, redact(failure.message, secrets), {
		itemIndex: job.itemIndex,
		...(failure.description ? { description: redact(failure.description, secrets) } : {}),
	});
	error.context.prompt_id = job.promptId;
	if (failure.stillRunning) error.context.still_running = true;
	if (failure.cancelledByNode) error.context.cancelled_by_node = true;
	return error;
}

/** Whether an error only ended the wait for a job that goes on running (see `stillRunning`). */
export const isStillRunning = (error: unknown): boolean =>
	error instanceof NodeOperationError && error.context.still_running === true && typeof error.context.prompt_id === 'string';

/** Whether an error says the node cancelled the item's job itself (at Max Wait, or abandoning the run). */
export const isCancelledByNode = (error: unknown): boolean =>
	error instanceof NodeOperationError && error.context.cancelled_by_node === true;

/** Any error met while waiting for a job, as that job's error. */
export function asJobFailure(node: INode, job: { promptId: string; itemIndex: number }, error: unknown, secrets: string[]): Error {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		error.context.prompt_id = job.promptId;
		return error;
	}
	return jobFailure(node, job, { message: `Waiting for job ${job.promptId} failed: ${(error as Error).message}` }, secrets);
}
