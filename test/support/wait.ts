/** Waits until `check` answers something (polling every few ms), or fails after `ms`. */
export async function waitUntil<T>(check: () => T | undefined | false, ms = 5000): Promise<T> {
	const until = Date.now() + ms;
	for (;;) {
		const value = check();
		if (value) return value;
		if (Date.now() > until) throw new Error('timed out waiting');
		await new Promise((resolve) => setTimeout(resolve, 3));
	}
}
