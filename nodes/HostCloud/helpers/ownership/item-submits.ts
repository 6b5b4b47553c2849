/**
 * The last submit of each item whose job may still be queued or running, so that a Retry On Fail
 * follows that job instead of paying for a second one.
 *
 * What this rests on, in n8n-core's WorkflowExecute (2.41, `processRunExecutionData` and
 * `getRetryParams`): Retry On Fail calls the node again in a loop, in the same process, execution
 * and run index, with the same items; it tries 2 to 5 times, 0 to 5 s apart; a try fails when the
 * node throws or, with Continue On Fail, when its first output item is an error (then every item
 * runs again). So a submit is remembered in this process's memory under (execution id, node name,
 * run index, item index), and is needed only seconds after its try failed. A tool the MCP Server
 * Trigger calls is retried by n8n-core instead (`makeHandleToolInvocation`), each try in a new
 * supply-data context with the next run index, but each given the same arguments object: there
 * the call's arguments object, by identity, stands for the run index, so two calls (even with equal
 * arguments) never share an entry. After a cancelled
 * execution there is nothing to take over: the node cancelled its own jobs, and a try that follows
 * refuses to submit.
 *
 * An entry also says what became of the submit: its prompt_id once answered (Submit answers it
 * again rather than paying twice), and whether its answer was lost and its job not found (on the
 * cloud, which lists no ended jobs, a retry then cannot tell "never arrived" from "already ran").
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { hostCloudServer } from '../../transport/cloud-service';
import { readQueue, readRecentHistory } from '../../transport/cloud-api';
import { endedJobOf, queuedByRequestId, queuedJobOf, RECENT_JOBS, type SubmitToFind } from './find-by-request';
import { thisExecutionId } from './job-tag';

interface ItemSubmit {
	requestId: string;
	/** The client id it was sent with (Execute's), which its queue entry may show. */
	clientId?: string;
	/** Its prompt_id, once the submit answered or its job was found. */
	promptId?: string;
	/** Its answer was lost and its job was not found: it may never have arrived, or already ended. */
	lost?: boolean;
	/** When its answer was lost (when the lookup began). */
	lostAt?: number;
	/** When it was last written (submitted, or its wait failed). */
	at: number;
}

/** Bounds of the memory: an entry is kept an hour after it was last written, and the oldest go first beyond this many. */
const KEPT_FOR_MS = 60 * 60_000;
const MOST_KEPT = 10_000;

const submits = new Map<string, ItemSubmit>();

/** Each node run's part of the key (execution, node, run), read once per run: a data proxy is not free. */
const runKeys = new WeakMap<IExecuteFunctions, string | null>();

/** A number for each tool call's arguments object, kept only while n8n holds that object. */
const toolCalls = new WeakMap<object, number>();
let toolCallsSeen = 0;

/** The tool call of a supply-data run (the MCP Server Trigger's): the arguments object every try of it is given. */
function toolCallOf(context: IExecuteFunctions): number | undefined {
	if (context.isToolExecution?.() !== true) return undefined;
	const args: unknown = context.getInputData()[0]?.json;
	if (typeof args !== 'object' || args === null) return undefined;
	if (!toolCalls.has(args)) toolCalls.set(args, ++toolCallsSeen);
	return toolCalls.get(args);
}

function runKeyOf(context: IExecuteFunctions): string | null {
	const executionId = thisExecutionId(context);
	try {
		const toolCall = toolCallOf(context);
		if (executionId !== undefined && toolCall !== undefined)
			return JSON.stringify([executionId, context.getNode().name, 'tool call', toolCall]);
		const runIndex = context.getWorkflowDataProxy(0).$runIndex as unknown;
		if (executionId === undefined || typeof runIndex !== 'number') return null;
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

/** The item's entry, if one is remembered and not expired. */
function entryOf(context: IExecuteFunctions, itemIndex: number): ItemSubmit | undefined {
	const key = keyOf(context, itemIndex);
	const submit = key === undefined ? undefined : submits.get(key);
	return submit && Date.now() - submit.at < KEPT_FOR_MS ? submit : undefined;
}

/** Writes the item's entry, in place of any earlier one. */
function write(context: IExecuteFunctions, itemIndex: number, submit: Omit<ItemSubmit, 'at'>): void {
	const key = keyOf(context, itemIndex);
	if (key === undefined) return;
	const now = Date.now();
	submits.delete(key); // re-inserted last: the map stays in the order entries were written
	submits.set(key, { ...submit, at: now });
	prune(now);
}

/** Remembers the item's submit `requestId` (made, or about to be, with `clientId` when Execute's), in place of any earlier one. */
export function rememberSubmit(context: IExecuteFunctions, itemIndex: number, requestId: string, clientId?: string): void {
	write(context, itemIndex, { requestId, ...(clientId ? { clientId } : {}) });
}

/** The item's submit answered (or its job was found): a retry of Submit answers this prompt_id again. */
export function submitAnswered(context: IExecuteFunctions, itemIndex: number, promptId: string): void {
	const submit = entryOf(context, itemIndex);
	if (submit) write(context, itemIndex, { ...submit, promptId, lost: undefined, lostAt: undefined });
}

/** The item's submit lost its answer at `lostAt` and its job was not found: a retry looks for it before anything else. */
export function submitLost(context: IExecuteFunctions, itemIndex: number, lostAt: number): void {
	const submit = entryOf(context, itemIndex);
	if (submit) write(context, itemIndex, { ...submit, lost: true, lostAt });
}

/** The item's wait failed: its job may still run, and the retry that may follow needs the entry. */
export function keepSubmit(context: IExecuteFunctions, itemIndex: number): void {
	const submit = entryOf(context, itemIndex);
	if (submit) write(context, itemIndex, submit);
}

/** The item's job ended, was cancelled by the node, or none was made: nothing to take over. */
export function forgetSubmit(context: IExecuteFunctions, itemIndex: number): void {
	const key = keyOf(context, itemIndex);
	if (key !== undefined) submits.delete(key);
}

/** The item's remembered submit (its key, and its job once answered): a v2 retry sends the same key, or follows that job. */
export function earlierSubmitOf(context: IExecuteFunctions, itemIndex: number): { requestId: string; promptId?: string } | undefined {
	const submit = entryOf(context, itemIndex);
	return submit ? { requestId: submit.requestId, ...(submit.promptId ? { promptId: submit.promptId } : {}) } : undefined;
}

/** The lost submit of an item and when its answer was lost, to look for once more (Execute's clean-up): undefined when none is remembered. */
export function lostSubmitOf(context: IExecuteFunctions, itemIndex: number): (SubmitToFind & { lostAt: number }) | undefined {
	const submit = entryOf(context, itemIndex);
	return submit?.lost
		? { requestId: submit.requestId, itemIndex, clientId: submit.clientId, lostAt: submit.lostAt ?? submit.at }
		: undefined;
}

/** What a retry does with an item: follow (or answer) an earlier try's job, or fail without submitting. */
export type EarlierTry = { promptId: string } | { error: NodeOperationError };

/** Said when a retry meets a lost submit the cloud cannot show: it may have run already, so nothing is sent again. */
function mayHaveRunAlready(context: IExecuteFunctions, itemIndex: number, requestId: string): NodeOperationError {
	return new NodeOperationError(
		context.getNode(),
		`An earlier try of this node lost the answer to its submit (request id ${requestId}), and its job is not in the cloud's queue: it may never have arrived, or already ended`,
		{
			itemIndex,
			description: `The cloud lists no jobs that have ended, so a job that already ran cannot be told from one that never arrived, and submitting again could run (and bill) the workflow twice: the retry sent nothing. Look among your jobs on the cloud (or in Queue → Get) for one whose extra_data.n8n.request_id is ${requestId}, then run again if it is not there.`,
		},
	);
}

/**
 * What earlier tries of these items left to take over (item → job, or an error), found with at
 * most one queue read (and, on a self-hosted server when a lost submit is among them, one history
 * read). Submit answers an answered earlier submit's prompt_id without reading anything: that job
 * was paid for, whether or not it ended. Otherwise an item whose earlier job is queued or running
 * follows it; one whose job ended is forgotten and submits anew, except a lost submit on the
 * cloud, which may have run unseen. When the queue cannot be read, the items with an earlier
 * submit fail, each naming its own, rather than risk a second job; the others submit.
 */
export async function jobsToTakeOver(
	context: IExecuteFunctions,
	itemIndices: number[],
	options: { answered: boolean },
): Promise<Map<number, EarlierTry>> {
	const takeOver = new Map<number, EarlierTry>();
	const toFind: Array<SubmitToFind & { lost: boolean }> = [];
	for (const itemIndex of itemIndices) {
		const submit = entryOf(context, itemIndex);
		if (!submit) continue;
		if (options.answered && submit.promptId) takeOver.set(itemIndex, { promptId: submit.promptId });
		else toFind.push({ requestId: submit.requestId, itemIndex, clientId: submit.clientId, lost: submit.lost === true });
	}
	if (toFind.length === 0) return takeOver;
	const { kind } = await hostCloudServer(context, toFind[0]!.itemIndex);
	const read = { itemIndex: toFind[0]!.itemIndex, retry: true, action: 'looking for the jobs of earlier tries' };
	let queued: ReturnType<typeof queuedByRequestId>;
	let history: unknown;
	try {
		queued = queuedByRequestId(await readQueue(context, read));
		// A lost submit's short job may have ended already: a self-hosted server's history shows it.
		const lostOnes = toFind.filter((submit) => submit.lost && !queuedJobOf(context, queued, submit));
		if (kind === 'selfHosted' && lostOnes.length > 0) history = await readRecentHistory(context, RECENT_JOBS, read);
	} catch (error) {
		for (const { itemIndex, requestId } of toFind) {
			const words = `An earlier try of this node submitted the workflow (request id ${requestId}), and the queue could not be read to see whether that job still runs: ${(error as Error).message}`;
			const description = 'Nothing was submitted again, so the job cannot run twice. Check the queue (Queue → Get), then run again.';
			takeOver.set(itemIndex, { error: new NodeOperationError(context.getNode(), words, { itemIndex, description }) });
		}
		return takeOver;
	}
	for (const submit of toFind) {
		const job = queuedJobOf(context, queued, submit) ?? (submit.lost ? endedJobOf(context, history, submit) : undefined);
		if (job) {
			submitAnswered(context, submit.itemIndex, job.promptId);
			takeOver.set(submit.itemIndex, { promptId: job.promptId });
		} else if (submit.lost && kind !== 'selfHosted')
			takeOver.set(submit.itemIndex, { error: mayHaveRunAlready(context, submit.itemIndex, submit.requestId) });
		else forgetSubmit(context, submit.itemIndex);
	}
	return takeOver;
}
