/**
 * The package's one way to wait: n8n-workflow's `sleep`, cut short by a signal on every n8n.
 * n8n-workflow 2.x's `sleep(ms, signal)` stops at the signal; 1.x's (n8n 1.x) takes no signal and
 * sleeps to the end, so a cancelled execution, a woken watcher or a stopped idle timer would wait
 * the whole time there. Here the signal's abort event ends the wait on both; on 1.x the timer
 * itself still runs out in the background (nodes may not clear timers), holding nothing else.
 */
import { sleep } from 'n8n-workflow';

/** The reason a wait ended early, as n8n-workflow 2.x's `sleep` rejects with it: always an Error. */
function abortReason(signal: AbortSignal): Error {
	const reason: unknown = signal.reason;
	return reason instanceof Error ? reason : new Error('The wait was cancelled', { cause: reason });
}

/** Resolves after `ms` milliseconds, or rejects (with the signal's reason) as soon as `signal` aborts. */
export async function pause(ms: number, signal?: AbortSignal): Promise<void> {
	if (!signal) return await sleep(ms);
	if (signal.aborted) throw abortReason(signal);
	let onAbort = (): void => undefined;
	const aborted = new Promise<never>((_resolve, reject) => {
		onAbort = () => reject(abortReason(signal));
		signal.addEventListener('abort', onAbort, { once: true });
	});
	try {
		await Promise.race([sleep(ms, signal), aborted]);
	} finally {
		signal.removeEventListener('abort', onAbort);
	}
}

/** A waiting loop's naps, which an event cuts short: `wakeUp` ends the nap under way, or the next one at once. */
export class Naps {
	private wake = new AbortController();

	wakeUp(): void {
		this.wake.abort();
	}

	/**
	 * Sleeps `ms` (at least 1), or until woken or `stop` aborts; never throws. Naps may overlap: the
	 * first to end after a wake-up replaces the spent controller, once (a later one keeps the new).
	 */
	async nap(ms: number, stop?: AbortSignal): Promise<void> {
		const wake = this.wake.signal;
		await pause(Math.max(1, ms), stop ? AbortSignal.any([stop, wake]) : wake).catch(() => undefined);
		if (this.wake.signal.aborted) this.wake = new AbortController();
	}
}
