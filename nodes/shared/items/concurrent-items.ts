/**
 * Items of a run several at once (up to a limit), for operations that mostly wait on the service.
 * Outputs keep item order and their pairedItem; "Continue On Fail" is honoured per item. Without
 * it, the first failure stops new items from starting, `stop` fires so running ones can give up,
 * and that failure is thrown with its item index (or, when the execution was canceled, one
 * "canceled" error).
 */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { errorForItem, failedItem } from './items';

/**
 * At most `limit` holders at a time; the others wait their turn in call order. `take` answers the
 * function that gives the place back.
 */
export class Slots {
	private active = 0;
	private readonly waiting: Array<() => void> = [];

	constructor(private readonly limit: number) {}

	async take(): Promise<() => void> {
		if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
		else this.active++;
		let given = false;
		return () => {
			if (given) return;
			given = true;
			// The place passes straight to the next waiting holder: a caller arriving meanwhile cannot take it too.
			const next = this.waiting.shift();
			if (next) next();
			else this.active--;
		};
	}
}

/** Runs tasks at most `limit` at a time (`Slots` around each task). */
export function createLimiter(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
	const slots = new Slots(limit);
	return async <T>(task: () => Promise<T>): Promise<T> => {
		const release = await slots.take();
		try {
			return await task();
		} finally {
			release();
		}
	};
}

export interface ConcurrentRunOptions {
	/** The output item of a failed item under "Continue On Fail" (default: `failedItem`). */
	failed?: (context: IExecuteFunctions, error: unknown, itemIndex: number) => INodeExecutionData;
	/** Called once when an item fails without "Continue On Fail", before the others are awaited. */
	onFatal?: (error: unknown, itemIndex: number) => void;
}

/**
 * The bookkeeping of items run at once: an item `enter`s (waits for its place; false once the run
 * has failed), ends with its outputs or `fail`s, and `leave`s; `results` gives the run's output.
 * A caller runs every item at once (`Promise.all`); the places keep them to the limit.
 */
export class ConcurrentItems {
	private readonly places: Slots;
	private readonly stopper = new AbortController();
	private readonly continueOnFail: boolean;
	private fatal?: { error: unknown; itemIndex: number };

	constructor(
		private readonly context: IExecuteFunctions,
		limit: number,
		private readonly options: ConcurrentRunOptions = {},
	) {
		this.places = new Slots(Math.max(1, limit));
		this.continueOnFail = context.continueOnFail();
	}

	/** Fires when the run has failed: running items can give up. */
	get stop(): AbortSignal {
		return this.stopper.signal;
	}

	/** Waits for the item's place; answers the function that gives it back, or undefined once the run has failed (the item does not start). */
	async enter(): Promise<(() => void) | undefined> {
		const leave = await this.places.take();
		if (!this.fatal) return leave;
		leave();
		return undefined;
	}

	/** An item's failure: its failure item under Continue On Fail; otherwise the run's first failure is kept and the item has no output. */
	fail(error: unknown, itemIndex: number): INodeExecutionData[] {
		if (this.continueOnFail) return [(this.options.failed ?? failedItem)(this.context, error, itemIndex)];
		if (!this.fatal) {
			this.fatal = { error, itemIndex };
			this.stopper.abort();
			this.options.onFatal?.(error, itemIndex);
		}
		return [];
	}

	/** The outputs of every item in item order, or the run's first failure thrown. */
	results(outputs: INodeExecutionData[][]): INodeExecutionData[] {
		const { fatal } = this;
		if (fatal && this.context.getExecutionCancelSignal()?.aborted) {
			// One "canceled" error (the word n8n marks a stopped execution by), whatever each item saw.
			throw new NodeOperationError(this.context.getNode(), 'The execution was canceled', {
				itemIndex: fatal.itemIndex,
				description: (fatal.error as Error)?.message,
			});
		}
		if (fatal) throw errorForItem(this.context, fatal.error, fatal.itemIndex);
		return outputs.flat();
	}
}
