/** What a call throws (an n8n error's message and description), for tests of field checks; the test fails if it throws nothing. */
export function failure(run: () => unknown): { message: string; description?: string | null } {
	try {
		run();
	} catch (error) {
		return error as { message: string; description?: string | null };
	}
	throw new Error('expected a failure');
}
