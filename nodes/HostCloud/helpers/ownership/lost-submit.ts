/**
 * A submit whose answer was lost after the request may have reached the server: the time limit ran
 * out once it was sent, the connection closed early, or something answered 5xx or an unreadable 2xx
 * (a proxy that forwarded it, then failed). Sending it again could run (and bill) the workflow
 * twice, so its job is looked for by the request id of its tag instead: found, it is followed as if
 * the submit had answered its prompt_id; not found, the item fails saying so, and its entry is kept
 * flagged for the retry (`item-submits.ts`) and for Execute's last look (`lostJobsThatAppeared`).
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { placeOf } from '../../../../credentials/cloud-server';
import { pause } from '../../../shared/waits/pause';
import { hostCloudServer } from '../../transport/cloud-service';
import { readQueue } from '../../transport/cloud-api';
import { findJobByRequestId, queuedByRequestId, queuedJobOf, RECENT_JOBS, type FoundJob, type SubmitToFind } from './find-by-request';
import { forgetSubmit, lostSubmitOf, submitAnswered, submitLost } from './item-submits';

/**
 * The pause before the second look. The upstream server queues a job before it answers, but a
 * server that went silent may still be taking the request in, and a distributed queue (the
 * cloud's) may list a job a moment after it took it: one more look a little later finds those, for
 * one more read. More looks would hold the item longer: Execute makes one more as its run ends
 * (`lostJobsThatAppeared`), once the item has failed.
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
 * The job of the lost submit, looked for twice, SECOND_LOOK_MS apart (each look one queue read
 * and, on a self-hosted server, one history read, each read once within the transport's time
 * limit). Throws, naming the request id, when it is not found or cannot be looked for.
 * `looksAgain`: Execute looks once more as its run ends (`lostJobsThatAppeared`).
 */
export async function findLostSubmit(
	context: IExecuteFunctions,
	lost: NodeApiError,
	submit: SubmitToFind,
	looksAgain: boolean,
): Promise<FoundJob> {
	const { requestId, itemIndex } = submit;
	const lostAt = Date.now();
	const { kind } = await hostCloudServer(context, itemIndex);
	const place = placeOf(kind);
	const lookedFor = `The answer to the submit was lost (${whatHappened(lost)})`;
	const look = async () => await findJobByRequestId(context, submit, { ended: kind === 'selfHosted' });
	const lastLook = looksAgain ? ` When this run ends, the node looks for it once more and cancels it if it is there.` : '';
	let found: FoundJob | undefined;
	try {
		found = await look();
		if (!found) {
			await pause(SECOND_LOOK_MS, context.getExecutionCancelSignal());
			found = await look();
		}
	} catch (error) {
		submitLost(context, itemIndex, lostAt);
		// Stopped: Execute's last look still comes when it would have (`lostJobsThatAppeared`).
		if (context.getExecutionCancelSignal()?.aborted) throw lost;
		throw new NodeOperationError(
			context.getNode(),
			`${lookedFor}, and its job (request id ${requestId}) could not be looked for (${error instanceof NodeApiError ? whatHappened(error) : (error as Error).message})`,
			{
				itemIndex,
				description: `The job may exist on ${place}: check the queue (Queue → Get) for a job whose extra_data.n8n.request_id is ${requestId} before running again. Nothing was sent again.${lastLook}`,
			},
		);
	}
	if (found) {
		context.logger?.info?.(`Host Cloud: the answer to submit ${requestId} was lost; its job ${found.promptId} was found (${found.where})`);
		submitAnswered(context, itemIndex, found.promptId);
		return found;
	}
	submitLost(context, itemIndex, lostAt);
	const where =
		kind === 'selfHosted'
			? `in your server's queue and among the ${RECENT_JOBS} jobs that ended last`
			: "in the cloud's queue (running and pending jobs)";
	const ended =
		kind === 'selfHosted'
			? ' With Retry On Fail, the next try looks for it once more, and submits again only when it is still not there.'
			: ' The cloud lists no jobs that have ended, so a job that already ran to its end cannot be found this way: look for it among your jobs on the cloud before running again. With Retry On Fail, the next try follows the job if the queue lists it by then, and otherwise fails without submitting.';
	throw new NodeOperationError(context.getNode(), `${lookedFor}, and no job with request id ${requestId} was found on ${place}`, {
		itemIndex,
		description: `The node looked for it twice, ${SECOND_LOOK_MS / 1000} seconds apart, ${where}, and did not find it. It was not sent again: the workflow may never have reached ${place}, or ${place} may list its job late.${lastLook}${ended}`,
	});
}

/**
 * Execute's last look for the lost submits of these items that were not found: a queue may list a
 * job late, and a failed read proves nothing, so such a job would otherwise run (and bill) unseen.
 * Bounded: one queue read, no earlier than SECOND_LOOK_MS after `lastFailedAt` nor than twice that
 * after the last of those answers was lost, where a lookup that was not cut short would have made
 * it. A Stop does not end this wait (at most 4 s, a clean-up made because of it, like the read);
 * a stopped lookup would otherwise look at once, before the queue lists the job. The jobs found
 * (item → prompt_id) are for the caller to cancel, and their entries are forgotten so a retry
 * submits anew. A job listed later still is not seen; a failed read is logged.
 */
export async function lostJobsThatAppeared(
	context: IExecuteFunctions,
	itemIndices: number[],
	lastFailedAt: number,
): Promise<Map<number, string>> {
	const appeared = new Map<number, string>();
	const lostOnes = itemIndices.flatMap((itemIndex) => lostSubmitOf(context, itemIndex) ?? []);
	if (lostOnes.length === 0) return appeared;
	try {
		const lookAt = Math.max(lastFailedAt + SECOND_LOOK_MS, ...lostOnes.map((submit) => submit.lostAt + 2 * SECOND_LOOK_MS));
		if (lookAt > Date.now()) await pause(lookAt - Date.now());
		const action = 'looking once more for the jobs of lost submits';
		const queued = queuedByRequestId(await readQueue(context, { cleanup: true, itemIndex: lostOnes[0]!.itemIndex, action }));
		for (const submit of lostOnes) {
			const job = queuedJobOf(context, queued, submit);
			if (!job) continue;
			appeared.set(submit.itemIndex, job.promptId);
			forgetSubmit(context, submit.itemIndex);
		}
	} catch (error) {
		context.logger?.warn?.(`Host Cloud: could not look once more for the jobs of lost submits: ${(error as Error).message}`);
	}
	return appeared;
}
