/**
 * Media proxy: every timer the proxy area starts goes through one TimerSet, so reset() and close()
 * can cancel them all and Jest exits without open handles.
 */
export class TimerSet {
	private readonly handles = new Set<NodeJS.Timeout>();

	constructor(private readonly onError: (error: unknown) => void) {}

	/** Runs `fn` after `ms`; answers a function that cancels it. */
	after(ms: number, fn: () => void): () => void {
		const handle = setTimeout(
			() => {
				this.handles.delete(handle);
				try {
					fn();
				} catch (error) {
					this.onError(error);
				}
			},
			Math.max(0, ms),
		);
		this.handles.add(handle);
		return () => {
			clearTimeout(handle);
			this.handles.delete(handle);
		};
	}

	/** Resolves after `ms`, or early (with false) when `signal` aborts: a retry back-off that reset() can cut short. */
	sleep(ms: number, signal: AbortSignal): Promise<boolean> {
		return new Promise((resolve) => {
			if (signal.aborted) return resolve(false);
			const onAbort = () => resolve(false);
			signal.addEventListener('abort', onAbort, { once: true });
			this.after(ms, () => {
				signal.removeEventListener('abort', onAbort);
				resolve(true);
			});
		});
	}

	get size(): number {
		return this.handles.size;
	}

	clear(): void {
		for (const handle of this.handles) clearTimeout(handle);
		this.handles.clear();
	}
}
