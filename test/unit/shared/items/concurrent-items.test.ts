/**
 * Items several at once: the places keep them to the limit in call order, a place is given back
 * once, and without Continue On Fail the first failure stops the items that have not started.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { ConcurrentItems, Slots } from '../../../../nodes/shared/items/concurrent-items';

function fakeContext(continueOnFail: boolean, canceled = false): IExecuteFunctions {
	const cancel = new AbortController();
	if (canceled) cancel.abort();
	return {
		continueOnFail: () => continueOnFail,
		getNode: () => ({ name: 'Host Cloud', type: 'hostCloud', typeVersion: 3, parameters: {}, id: '1', position: [0, 0] }),
		getExecutionCancelSignal: () => cancel.signal,
		getInputData: () => [{ json: {} }, { json: {} }, { json: {} }],
	} as unknown as IExecuteFunctions;
}

const tick = async () => await new Promise((resolve) => setImmediate(resolve));

test('Slots: at most the limit at once, the next in call order, a place given back once', async () => {
	const slots = new Slots(2);
	const order: number[] = [];
	const leaves: Array<() => void> = [];
	const takers = [0, 1, 2, 3].map(async (n) => {
		leaves[n] = await slots.take();
		order.push(n);
	});
	await tick();
	expect(order).toEqual([0, 1]);
	leaves[0]!();
	leaves[0]!(); // a second give-back of the same place frees nothing more
	await tick();
	expect(order).toEqual([0, 1, 2]);
	leaves[1]!();
	await Promise.all(takers);
	expect(order).toEqual([0, 1, 2, 3]);
});

test('ConcurrentItems: the first failure stops items that have not started, and is thrown with its item', async () => {
	const items = new ConcurrentItems(fakeContext(false), 1);
	const started: number[] = [];
	const run = async (itemIndex: number) => {
		const leave = await items.enter();
		if (!leave) return [];
		started.push(itemIndex);
		try {
			if (itemIndex === 0) throw new Error('first item broke');
			return [{ json: { itemIndex } }];
		} catch (error) {
			return items.fail(error, itemIndex);
		} finally {
			leave();
		}
	};
	const outputs = await Promise.all([0, 1, 2].map(run));
	expect(started).toEqual([0]);
	expect(items.stop.aborted).toBe(true);
	expect(() => items.results(outputs)).toThrow('first item broke');
});

test('ConcurrentItems: under Continue On Fail a failure is its own item; a stopped execution fails as canceled', () => {
	const forgiving = new ConcurrentItems(fakeContext(true), 2);
	expect(forgiving.fail(new Error('bad'), 1)).toEqual([expect.objectContaining({ json: { error: 'bad' }, pairedItem: { item: 1 } })]);
	expect(forgiving.stop.aborted).toBe(false);

	const stopped = new ConcurrentItems(fakeContext(false, true), 2);
	stopped.fail(new Error('socket closed'), 2);
	expect(() => stopped.results([])).toThrow('The execution was canceled');
});
