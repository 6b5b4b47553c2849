/**
 * A submit whose answer was lost after the request may have reached the server: the time limit ran
 * out once it was sent, the connection closed early, or something answered 5xx or an unreadable 2xx
 * (a proxy that forwarded it, then failed). Sending it again could run (and bill) the workflow
 * twice, so its job is looked for by the request id of its tag instead: found, it is followed as if
 * the submit had answered its prompt_id; not found, the item fails saying so.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { placeOf } from '../../../../credentials/cloud-server';
import { pause } from '../../../shared/pause';
import { hostCloudServer } from '../../../shared/transport';
import { findJobByRequestId, RECENT_JOBS, type FoundJob } from './find-by-request';

/**
 * The pause before the second look. The upstream server queues a job before it answers, but a
 * server that went silent may still be taking the request in, and a distributed queue (the
 * cloud's) may list a job a moment after it took it: one more look a little later finds those, for
 * one more read. More looks would hold the item for a job that most likely never arrived.
 */
export const SECOND_LOOK_MS = 2000;

/**
 * Whether the request may have reached the server although its answer was lost: a network failure
 * once connected, a 5xx (a proxy answers so after forwarding), or a 2xx that could not be read.
 * Not a refused or never-made connection, a cancelled execution, nor a clear 4xx refusal.
 */
export function answerMayBeLost(error: unknown): error is NodeApiError {
	if (!(error instanceof NodeApiError)) return false;
	if (typeof error.context.mayHaveArrived === 'boolean') return error.context.mayHaveArrived;
	const status = Number(error.httpCode);
	return status >= 500 || (status >= 200 && status < 300);
}

/** What happened to the submit, without the advice that came with it (the advice is the node's to give now). */
const whatHappened = (lost: NodeApiError): string =>
	(typeof lost.context.failure === 'string' ? lost.context.failure : lost.message).replace(/\.$/, '');

/**
 * The job of the lost submit `requestId`, looked for twice, SECOND_LOOK_MS apart (each look one
 * queue read and, on a self-hosted server, one history read, within the transport's time limits).
 * Throws, naming the request id, when it is not found or cannot be looked for.
 */
export async function findLostSubmit(
	context: IExecuteFunctions,
	lost: NodeApiError,
	requestId: string,
	itemIndex: number,
): Promise<FoundJob> {
	const { kind } = await hostCloudServer(context, itemIndex);
	const place = placeOf(kind);
	const lookedFor = `The answer to the submit was lost (${whatHappened(lost)})`;
	const look = async () => await findJobByRequestId(context, requestId, { itemIndex, ended: kind === 'selfHosted' });
	let found: FoundJob | undefined;
	try {
		found = await look();
		if (!found) {
			await pause(SECOND_LOOK_MS, context.getExecutionCancelSignal());
			found = await look();
		}
	} catch (error) {
		if (context.getExecutionCancelSignal()?.aborted) throw lost;
		throw new NodeOperationError(
			context.getNode(),
			`${lookedFor}, and its job (request id ${requestId}) could not be looked for: ${(error as Error).message}`,
			{
				itemIndex,
				description: `The job may exist on ${place}: check the queue (Queue → Get) for a job whose extra_data.n8n.request_id is ${requestId} before running again. Nothing was sent again.`,
			},
		);
	}
	if (found) {
		context.logger?.info?.(`Host Cloud: the answer to submit ${requestId} was lost; its job ${found.promptId} was found (${found.where})`);
		return found;
	}
	const where =
		kind === 'selfHosted'
			? `in your server's queue and among the ${RECENT_JOBS} jobs that ended last`
			: "in the cloud's queue (running and pending jobs)";
	const ended =
		kind === 'selfHosted'
			? ''
			: ' The cloud lists no jobs that have ended, so a job that already ran to its end cannot be found this way: if the workflow is very short, look for it among your jobs on the cloud before running again.';
	throw new NodeOperationError(context.getNode(), `${lookedFor}, and no job with request id ${requestId} was found on ${place}`, {
		itemIndex,
		description: `The node looked for it twice, ${SECOND_LOOK_MS / 1000} seconds apart, ${where}, and did not find it: the workflow most likely never reached ${place}, and it was not sent again.${ended} With Retry On Fail, the next try looks in the queue for this job once more before it submits again.`,
	});
}
