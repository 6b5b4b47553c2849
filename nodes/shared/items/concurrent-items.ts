/**
 * Places taken in turn (`Slots`, `createLimiter`), and a run's places for items that mostly wait on
 * the service (`RunPlaces`): an item waits its turn for a place; "Continue On Fail" is honoured per
 * item; without it the run's first failure stops the run before that item's place is given back,
 * so an item waiting for the place is refused, not started, and that failure is thrown with its
 * item index (or, when the execution was canceled, one "canceled" error).
 */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { errorForItem } from './items';

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

/**
 * The places of a run and its first failure. The caller gives an item's place back only after
 * telling `failed` of the item's failure, so that `stop` (which the caller makes refuse new items)
 * has fired before another item can take the place.
 */
export class RunPlaces {
	private readonly slots: Slots;
	private readonly continueOnFail: boolean;
	private first?: { error: unknown; itemIndex: number };

	/** `limit` places (none: no bound); `forgiven` errors end an item without failing the run. */
	constructor(
		private readonly context: IExecuteFunctions,
		limit: number | undefined,
		private readonly stop: () => void,
		private readonly forgiven: (error: unknown) => boolean = () => false,
	) {
		this.slots = new Slots(limit ?? Number.POSITIVE_INFINITY);
		this.continueOnFail = context.continueOnFail();
	}

	/** Waits for a place; answers the function that gives it back (once). */
	async take(): Promise<() => void> {
		return await this.slots.take();
	}

	/** An item failed: without Continue On Fail, the run's first failure is kept and stops the run. */
	failed(error: unknown, itemIndex: number): void {
		if (this.continueOnFail || this.first || this.forgiven(error)) return;
		this.first = { error, itemIndex };
		this.stop();
	}

	/** The outputs of every item in item order, or the run's first failure thrown. */
	results(outputs: INodeExecutionData[][]): INodeExecutionData[] {
		const { first } = this;
		if (!first) return outputs.flat();
		if (this.context.getExecutionCancelSignal()?.aborted) {
			// One "canceled" error (the word n8n marks a stopped execution by), whatever each item saw.
			throw new NodeOperationError(this.context.getNode(), 'The execution was canceled', {
				itemIndex: first.itemIndex,
				description: (first.error as Error)?.message,
			});
		}
		throw errorForItem(this.context, first.error, first.itemIndex);
	}
}

/** An item the run no longer wants: the execution was stopped, or (`stopped`) another item failed it; undefined while it is wanted. */
export function notSubmitted(context: IExecuteFunctions, itemIndex: number, stopped: boolean): NodeOperationError | undefined {
	const reason = context.getExecutionCancelSignal()?.aborted ? 'the execution was canceled' : stopped ? 'another item failed' : undefined;
	return reason ? new NodeOperationError(context.getNode(), `This item was not submitted: ${reason}`, { itemIndex }) : undefined;
}
