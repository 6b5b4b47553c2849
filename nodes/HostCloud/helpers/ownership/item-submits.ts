/**
 * The last submit of each item whose job may still be queued or running, so that a Retry On Fail
 * follows that job instead of paying for a second one.
 *
 * What this rests on, in n8n-core's WorkflowExecute (2.41, `processRunExecutionData` and
 * `getRetryParams`): Retry On Fail calls the node again in a loop, in the same process, execution
 * and run index, with the same items; it tries 2 to 5 times, 0 to 5 s apart; a try fails when the
 * node throws or, with Continue On Fail, when its first output item is an error (then every item
 * runs again). So a submit is remembered in this process's memory under (execution id, node name,
 * run index, item index), and is needed only seconds after its try failed. After a cancelled
 * execution there is nothing to take over: the node cancelled its own jobs, and a try that follows
 * refuses to submit.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { readQueue } from '../../transport/cloud-api';
import { queuedByRequestId } from './find-by-request';

interface ItemSubmit {
	requestId: string;
	/** When it was last written (submitted, or its wait failed). */
	at: number;
}

/** Bounds of the memory: an entry is kept an hour after it was last written, and the oldest go first beyond this many. */
const KEPT_FOR_MS = 60 * 60_000;
const MOST_KEPT = 10_000;

const submits = new Map<string, ItemSubmit>();

/** Each node run's part of the key (execution, node, run), read once per run: a data proxy is not free. */
const runKeys = new WeakMap<IExecuteFunctions, string | null>();

function runKeyOf(context: IExecuteFunctions): string | null {
	try {
		const executionId = context.getExecutionId();
		const runIndex = context.getWorkflowDataProxy(0).$runIndex as unknown;
		if (typeof executionId !== 'string' || executionId === '' || typeof runIndex !== 'number') return null;
		return JSON.stringify([executionId, context.getNode().name, runIndex]);
	} catch {
		// A context without an execution (a test run of an older n8n): nothing to key a retry on.
		return null;
	}
}

/** The item's key: undefined where n8n gives no execution or run (then nothing is remembered). */
function keyOf(context: IExecuteFunctions, itemIndex: number): string | undefined {
	if (!runKeys.has(context)) runKeys.set(context, runKeyOf(context));
	const run = runKeys.get(context);
	return run ? `${run}#${itemIndex}` : undefined;
}

function prune(now: number): void {
	for (const [key, submit] of submits) {
		if (submits.size <= MOST_KEPT && now - submit.at < KEPT_FOR_MS) return;
		submits.delete(key);
	}
}

/** Remembers the item's submit `requestId` (made, or about to be), in place of any earlier one. */
export function rememberSubmit(context: IExecuteFunctions, itemIndex: number, requestId: string): void {
	const key = keyOf(context, itemIndex);
	if (key === undefined) return;
	const now = Date.now();
	submits.delete(key); // re-inserted last: the map stays in the order entries were written
	submits.set(key, { requestId, at: now });
	prune(now);
}

/** The item's wait failed: its job may still run, and the retry that may follow needs the entry. */
export function keepSubmit(context: IExecuteFunctions, itemIndex: number): void {
	const key = keyOf(context, itemIndex);
	const submit = key === undefined ? undefined : submits.get(key);
	if (submit) rememberSubmit(context, itemIndex, submit.requestId);
}

/** The item's job ended (or none was made): nothing to take over. */
export function forgetSubmit(context: IExecuteFunctions, itemIndex: number): void {
	const key = keyOf(context, itemIndex);
	if (key !== undefined) submits.delete(key);
}

/** The request id of the item's earlier submit, if one is remembered. */
function earlierSubmit(context: IExecuteFunctions, itemIndex: number): string | undefined {
	const key = keyOf(context, itemIndex);
	const submit = key === undefined ? undefined : submits.get(key);
	if (!submit || Date.now() - submit.at >= KEPT_FOR_MS) return undefined;
	return submit.requestId;
}

/**
 * The jobs that earlier tries of these items submitted and that are still queued or running
 * (item → prompt_id), found by their request ids with one queue read, made only when one of the
 * items has an earlier submit. An item whose earlier job is not queued (it ended) is forgotten,
 * and submits anew. When the queue cannot be read, those items fail rather than risk a second job.
 */
export async function jobsToTakeOver(context: IExecuteFunctions, itemIndices: number[]): Promise<Map<number, string>> {
	const earlier = new Map<number, string>();
	for (const itemIndex of itemIndices) {
		const requestId = earlierSubmit(context, itemIndex);
		if (requestId) earlier.set(itemIndex, requestId);
	}
	const takeOver = new Map<number, string>();
	if (earlier.size === 0) return takeOver;
	const [first, requestId] = [...earlier][0]!;
	let queued: ReturnType<typeof queuedByRequestId>;
	try {
		queued = queuedByRequestId(
			await readQueue(context, { itemIndex: first, retry: true, action: 'looking for the jobs of earlier tries' }),
		);
	} catch (error) {
		throw new NodeOperationError(
			context.getNode(),
			`An earlier try of this node submitted the workflow (request id ${requestId}), and the queue could not be read to see whether that job still runs: ${(error as Error).message}`,
			{
				itemIndex: first,
				description: 'Nothing was submitted again, so the job cannot run twice. Check the queue (Queue → Get), then run again.',
			},
		);
	}
	for (const [itemIndex, id] of earlier) {
		const job = queued.get(id);
		if (job) takeOver.set(itemIndex, job.promptId);
		else forgetSubmit(context, itemIndex);
	}
	return takeOver;
}
