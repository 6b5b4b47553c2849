/** Polling for a condition (the simulator's state, a file), for cases that wait on side effects. */
export async function waitFor<T>(
	what: string,
	check: () => T | undefined | false | Promise<T | undefined | false>,
	options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
	const timeoutMs = options.timeoutMs ?? 30000;
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const result = await check();
		if (result !== undefined && result !== false) return result;
		if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
	}
}
