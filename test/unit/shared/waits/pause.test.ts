/**
 * The package's wait (`nodes/shared/waits/pause.ts`) on both n8n lines: with n8n-workflow 1.x's `sleep`
 * (takes no signal, sleeps to the end) and with 2.x's (stops at the signal). A cancelled execution,
 * a woken watcher and a stopped idle timer rely on the signal ending the wait at once.
 */
import { getEventListeners } from 'node:events';

import { sleep } from 'n8n-workflow';

import { pause } from '../../../../nodes/shared/waits/pause';

jest.mock('n8n-workflow', () => ({ ...jest.requireActual<object>('n8n-workflow'), sleep: jest.fn() }));

const mockedSleep = jest.mocked(sleep);
const { sleep: sleepOf2x } = jest.requireActual<typeof import('n8n-workflow')>('n8n-workflow');

/** n8n-workflow 1.x's sleep (n8n 1.123 ships 1.120): a plain timer, any signal ignored. */
const sleepOf1x = async (ms: number): Promise<void> => await new Promise((resolve) => setTimeout(resolve, ms));

/** What the wait came to: 'waited' when it ran its whole time, else what it was rejected with. */
const outcomeOf = async (wait: Promise<void>): Promise<unknown> =>
	await wait.then(
		() => 'waited',
		(error: unknown) => error,
	);

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

describe.each([
	['1.x (its sleep ignores the signal)', sleepOf1x],
	['2.x (its sleep stops at the signal)', sleepOf2x],
])('pause on n8n-workflow %s', (_line, sleepOfLine) => {
	beforeEach(() => mockedSleep.mockImplementation(sleepOfLine));

	it('ends as soon as the signal aborts, with the signal’s reason', async () => {
		const controller = new AbortController();
		const outcome = outcomeOf(pause(60_000, controller.signal));
		await jest.advanceTimersByTimeAsync(1_000);
		const reason = new Error('The execution was cancelled');
		controller.abort(reason);
		// The minute running out afterwards must not matter: the wait already ended.
		await jest.advanceTimersByTimeAsync(60_000);
		expect(await outcome).toBe(reason);
	});

	it('waits its whole time when nothing aborts', async () => {
		const controller = new AbortController();
		let done = false;
		const outcome = outcomeOf(pause(60_000, controller.signal).finally(() => (done = true)));
		await jest.advanceTimersByTimeAsync(59_999);
		expect(done).toBe(false);
		await jest.advanceTimersByTimeAsync(1);
		expect(await outcome).toBe('waited');
	});

	it('does not wait at all on a signal already aborted', async () => {
		const reason = new Error('already cancelled');
		const outcome = outcomeOf(pause(60_000, AbortSignal.abort(reason)));
		await jest.advanceTimersByTimeAsync(60_000);
		expect(await outcome).toBe(reason);
	});

	it('rejects with an Error even when the reason is none, keeping the reason as its cause', async () => {
		const controller = new AbortController();
		const outcome = outcomeOf(pause(60_000, controller.signal));
		controller.abort('stop');
		await jest.advanceTimersByTimeAsync(60_000);
		const error = (await outcome) as Error;
		expect(error).toBeInstanceOf(Error);
		expect(error.cause).toBe('stop');
	});

	it('leaves no listener on a signal that many waits share (the Cloud watcher naps on one until woken)', async () => {
		const controller = new AbortController();
		for (let nap = 0; nap < 20; nap++) {
			const outcome = outcomeOf(pause(10, controller.signal));
			await jest.advanceTimersByTimeAsync(10);
			expect(await outcome).toBe('waited');
		}
		expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
	});

	it('waits without a signal', async () => {
		const outcome = outcomeOf(pause(5_000));
		await jest.advanceTimersByTimeAsync(5_000);
		expect(await outcome).toBe('waited');
	});
});

it('on 2.x the timer stops with the wait (nothing is left running)', async () => {
	mockedSleep.mockImplementation(sleepOf2x);
	const controller = new AbortController();
	const outcome = outcomeOf(pause(60_000, controller.signal));
	controller.abort(new Error('cancelled'));
	await outcome;
	expect(jest.getTimerCount()).toBe(0);
});
