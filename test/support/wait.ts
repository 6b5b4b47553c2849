/** Waits until `check` answers something (polling every few ms), or fails after `ms`: a hang guard, 30 s unless told (a busy machine is slow, never wrong). */
export async function waitUntil<T>(check: () => T | undefined | false, ms = 30_000): Promise<T> {
	const until = Date.now() + ms;
	for (;;) {
		const value = check();
		if (value) return value;
		if (Date.now() > until) throw new Error('timed out waiting');
		await new Promise((resolve) => setTimeout(resolve, 3));
	}
}
