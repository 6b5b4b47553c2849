/**
 * Places taken in turn: the places keep holders to the limit in call order, a place is given back
 * once, and without Continue On Fail a run's first failure stops it before its place comes back.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { notSubmitted, RunPlaces, Slots } from '../../../../nodes/shared/items/concurrent-items';

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

test('RunPlaces: the first failure stops the run before its place comes back, so the item waiting for it is refused', async () => {
	let stopped = false;
	const context = fakeContext(false);
	const places = new RunPlaces(context, 1, () => (stopped = true));
	const started: number[] = [];
	const run = async (itemIndex: number) => {
		const giveBack = await places.take();
		try {
			const refused = notSubmitted(context, itemIndex, stopped);
			if (refused) throw refused;
			started.push(itemIndex);
			if (itemIndex === 0) throw new Error('first item broke');
			return [{ json: { itemIndex } }];
		} catch (error) {
			places.failed(error, itemIndex);
			return [];
		} finally {
			giveBack();
		}
	};
	const outputs = await Promise.all([0, 1, 2].map(run));
	expect(started).toEqual([0]);
	expect(stopped).toBe(true);
	expect(() => places.results(outputs)).toThrow('first item broke');
});

test('RunPlaces: under Continue On Fail a failure stops nothing; a forgiven error neither; a stopped execution fails as canceled', () => {
	let stops = 0;
	const forgiving = new RunPlaces(fakeContext(true), 2, () => stops++);
	forgiving.failed(new Error('bad'), 1);
	expect(forgiving.results([[{ json: { error: 'bad' } }]])).toEqual([{ json: { error: 'bad' } }]);
	const forgiven = new RunPlaces(
		fakeContext(false),
		2,
		() => stops++,
		(error) => (error as Error).message === 'still running',
	);
	forgiven.failed(new Error('still running'), 0);
	expect(stops).toBe(0);

	const stopped = new RunPlaces(fakeContext(false, true), undefined, () => stops++);
	stopped.failed(new Error('socket closed'), 2);
	expect(stops).toBe(1);
	expect(() => stopped.results([])).toThrow('The execution was canceled');
	expect(notSubmitted(fakeContext(false, true), 0, false)?.message).toBe('This item was not submitted: the execution was canceled');
	expect(notSubmitted(fakeContext(false), 0, true)?.message).toBe('This item was not submitted: another item failed');
	expect(notSubmitted(fakeContext(false), 0, false)).toBeUndefined();
});
