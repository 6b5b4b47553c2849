/**
 * A request that got no answer, in words a user can act on. Never the raw code: n8n replaces any
 * error message that contains one (ECONNRESET, ECONNABORTED...) with a generic sentence that no
 * longer says what failed (which task, which file, that a version was created). n8n's own request
 * helper already hands over such a sentence, with the code on the error's `cause`.
 */

interface FailedRequest {
	code?: unknown;
	message?: unknown;
	syscall?: unknown;
	cause?: unknown;
}

/** The error's code, message and system call, and those of its causes (n8n's helper keeps the network error there). */
function signals(error: unknown): { codes: string[]; text: string; syscalls: string[] } {
	const codes: string[] = [];
	const texts: string[] = [];
	const syscalls: string[] = [];
	for (let at = error as FailedRequest | undefined, depth = 0; at && typeof at === 'object' && depth < 3; depth++) {
		if (typeof at.code === 'string') codes.push(at.code.toUpperCase());
		if (typeof at.message === 'string') texts.push(at.message);
		if (typeof at.syscall === 'string') syscalls.push(at.syscall);
		at = at.cause as FailedRequest | undefined;
	}
	return { codes, text: texts.join(' '), syscalls };
}

const seconds = (ms: number): string => {
	const n = Math.round(ms / 1000);
	return `${n} ${n === 1 ? 'second' : 'seconds'}`;
};

/**
 * What went wrong, starting with `who` ("the storage host"): it sent nothing for the timeout
 * (`timedOut`), closed the connection early, could not be found, refused the connection, or could
 * not be reached. `mayHaveArrived`: the request may have reached `who` (it went silent or closed
 * the connection once it was open), rather than surely not (no name, no connection).
 */
export function networkFailure(
	error: unknown,
	who: string,
	timeoutMs?: number,
): { reason: string; timedOut: boolean; mayHaveArrived: boolean } {
	const { codes, text, syscalls } = signals(error);
	const has = (...names: string[]) => names.some((name) => codes.includes(name));
	// A failed connect or name lookup sent nothing, whatever its code.
	const connected = !syscalls.some((call) => call === 'connect' || call === 'getaddrinfo');
	// IdleTimeoutError (streams.ts): a body that fell silent part-way.
	const idle = (error as { name?: unknown } | undefined)?.name === 'IdleTimeoutError';
	if (idle || has('ECONNABORTED', 'ETIMEDOUT', 'ESOCKETTIMEDOUT') || /timeout|timed out/i.test(text)) {
		const reason = timeoutMs ? `${who} sent nothing for ${seconds(timeoutMs)}` : `${who} did not answer in time`;
		return { reason, timedOut: true, mayHaveArrived: connected };
	}
	const failure = (what: string, mayHaveArrived = false) => ({ reason: `${who} ${what}`, timedOut: false, mayHaveArrived });
	if (has('ECONNRESET', 'EPIPE') || /aborted|closed|socket hang up/i.test(text)) return failure('closed the connection early', connected);
	if (has('ENOTFOUND', 'EAI_AGAIN')) return { reason: `${who}’s name could not be resolved`, timedOut: false, mayHaveArrived: false };
	if (has('ECONNREFUSED')) return failure('refused the connection');
	return failure('could not be reached');
}

/** Whether `error` is a request that got no (whole) answer, rather than some other failure. */
export function isNetworkFailure(error: unknown): boolean {
	const { codes, text } = signals(error);
	return codes.some((code) => code.startsWith('E')) || /timeout|timed out|aborted|socket hang up|\bE[A-Z]{4,}\b/.test(text);
}

/** Whether a request failed because its redirects went on and on (a loop): the host's answer, not a network failure. */
export function isRedirectLoop(error: unknown): boolean {
	const { codes, text } = signals(error);
	return codes.includes('ERR_FR_TOO_MANY_REDIRECTS') || /maximum number of redirects exceeded/i.test(text);
}

/** Just the reason of networkFailure ("the storage host refused the connection"). */
export const networkFailureReason = (error: unknown, who: string, timeoutMs?: number): string =>
	networkFailure(error, who, timeoutMs).reason;
