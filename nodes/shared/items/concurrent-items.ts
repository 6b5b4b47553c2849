/**
 * Runs an operation for several items at once (up to a limit), for operations that mostly wait
 * on the service. Results keep item order and their pairedItem; "Continue On Fail" is honoured
 * per item. Without it, the first failure stops new items from starting, `stop` fires so running
 * ones can give up, and that failure is thrown with its item index (or, when the execution was
 * canceled, one "canceled" error).
 */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { errorForItem, failedItem, paired } from './items';

export type ConcurrentItemOperation = (itemIndex: number, stop: AbortSignal) => Promise<INodeExecutionData[]>;

export interface ConcurrentRunOptions {
	/** The output item of a failed item under "Continue On Fail" (default: `failedItem`). */
	failed?: (context: IExecuteFunctions, error: unknown, itemIndex: number) => INodeExecutionData;
	/** Called once when an item fails without "Continue On Fail", before the others are awaited. */
	onFatal?: (error: unknown, itemIndex: number) => void;
}

export async function runItemsConcurrently(
	context: IExecuteFunctions,
	itemIndexes: number[],
	limit: number,
	operation: ConcurrentItemOperation,
	options: ConcurrentRunOptions = {},
): Promise<INodeExecutionData[]> {
	const results: INodeExecutionData[][] = new Array<INodeExecutionData[]>(itemIndexes.length);
	const stop = new AbortController();
	const continueOnFail = context.continueOnFail();
	let fatal: { error: unknown; itemIndex: number } | undefined;
	let next = 0;

	const worker = async (): Promise<void> => {
		while (!fatal && next < itemIndexes.length) {
			const position = next++;
			const itemIndex = itemIndexes[position];
			try {
				results[position] = paired(await operation(itemIndex, stop.signal), itemIndex);
			} catch (error) {
				if (continueOnFail) {
					results[position] = [(options.failed ?? failedItem)(context, error, itemIndex)];
				} else if (!fatal) {
					fatal = { error, itemIndex };
					stop.abort();
					options.onFatal?.(error, itemIndex);
				}
			}
		}
	};

	const workers = Math.max(1, Math.min(limit, itemIndexes.length));
	await Promise.all(Array.from({ length: workers }, worker));
	if (fatal && context.getExecutionCancelSignal()?.aborted) {
		// One "canceled" error (the word n8n marks a stopped execution by), whatever each item saw.
		throw new NodeOperationError(context.getNode(), 'The execution was canceled', {
			itemIndex: fatal.itemIndex,
			description: (fatal.error as Error)?.message,
		});
	}
	if (fatal) throw errorForItem(context, fatal.error, fatal.itemIndex);
	return results.flat();
}

/**
 * At most `limit` tasks at a time; the others wait their turn in call order. Lets a node keep N
 * jobs on the service while the results of finished ones are still being fetched.
 */
export function createLimiter(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
	let active = 0;
	const waiting: Array<() => void> = [];
	return async <T>(task: () => Promise<T>): Promise<T> => {
		if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
		else active++;
		try {
			return await task();
		} finally {
			// The place passes straight to the next waiting task: a caller arriving meanwhile cannot take it too.
			const next = waiting.shift();
			if (next) next();
			else active--;
		}
	};
}
