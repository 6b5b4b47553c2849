/**
 * The one transport, with n8n's HTTP helper stood in for: a call its caller stopped (a closed
 * trigger, a stream gone idle) is not tried again, and waits no pause before a try that will not
 * come, even when it is a read that may be repeated.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { HOST_API } from '../../../../nodes/shared/transport/host-api';
import { RETRY_DELAYS_MS } from '../../../../nodes/shared/transport/retry';
import { hostRequest, REQUEST_TIME_LIMIT } from '../../../../nodes/shared/transport/transport';

/** A context whose HTTP helper fails every try as a dropped connection would, and runs `onTry` first. */
function failingContext(onTry: () => void): { context: IExecuteFunctions; tries: () => number } {
	let tries = 0;
	const context = {
		getNode: () => ({ id: '1', name: 'Host Media', type: 'hostMedia', typeVersion: 1, position: [0, 0], parameters: {} }),
		getCredentials: async () => ({ registryUrl: 'http://127.0.0.1:9', accessToken: 'access-token-0123456789' }),
		helpers: {
			httpRequestWithAuthentication: async () => {
				tries++;
				onTry();
				throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
			},
		},
	} as unknown as IExecuteFunctions;
	return { context, tries: () => tries };
}

/** The pauses before each retry, replaced for one test and put back after it. */
const PAUSES = [...RETRY_DELAYS_MS];
const setPauses = (ms: number[]) => (RETRY_DELAYS_MS as unknown as number[]).splice(0, ms.length, ...ms);
const LIMITS = { ...REQUEST_TIME_LIMIT };
afterEach(() => {
	setPauses(PAUSES);
	Object.assign(REQUEST_TIME_LIMIT, LIMITS);
});
/** Longer than any test may run: a call that waited one of these would fail by Jest's timeout, not end. */
const UNWAITABLE_MS = 10 * 60_000;
/** Pauses of 10 minutes, and a read limit they fit in, so that a retry is due: only the stop can end the call. */
function unwaitablePauses(): void {
	setPauses(PAUSES.map(() => UNWAITABLE_MS));
	REQUEST_TIME_LIMIT.readMs = 10 * UNWAITABLE_MS;
}

test('a repeatable read stopped by its caller during its first try is not tried again, and ends at once', async () => {
	unwaitablePauses();
	const stop = new AbortController();
	const { context, tries } = failingContext(() => stop.abort());
	// That it ends at all shows no pause before a second try was waited (each is 10 minutes here).
	await expect(hostRequest(context, HOST_API, { method: 'GET', path: '/api/anything', retry: true, stop: stop.signal })).rejects.toThrow();
	expect(tries()).toBe(1);
});

test('a caller that stops during the pause before a try ends the pause, and no further try is made', async () => {
	// A pause no slow machine outlasts: the stop below comes during it, and only the stop can end it.
	unwaitablePauses();
	const stop = new AbortController();
	const { context, tries } = failingContext(() => undefined);
	const call = hostRequest(context, HOST_API, { method: 'GET', path: '/api/anything', retry: true, stop: stop.signal });
	await new Promise((resolve) => setTimeout(resolve, 50));
	expect(tries()).toBe(1);
	stop.abort();
	await expect(call).rejects.toThrow();
	expect(tries()).toBe(1);
});

test('without a stop, the same read is tried again (the case above is the stop, not a read that never retries)', async () => {
	// Short pauses: what is counted is the tries, not how long the real pauses are.
	setPauses(PAUSES.map((pause) => pause / 100));
	const { context, tries } = failingContext(() => undefined);
	await expect(hostRequest(context, HOST_API, { method: 'GET', path: '/api/anything', retry: true })).rejects.toThrow();
	expect(tries()).toBe(RETRY_DELAYS_MS.length + 1);
});
