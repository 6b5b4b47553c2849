/**
 * How long a request may take: the credential's Time Limit over the stated limits, the limits of
 * signed storage requests, and whether another try, or a wait a storage host asks for, still fits
 * within them. The transport and the storage transfers (downloads, the archive upload) read them here.
 */
import { DEFAULT_TIME_LIMIT_SECONDS, REQUEST_TIME_LIMIT } from '../../../credentials/time-limit';
import { RETRY_DELAYS_MS } from './retry';
import { slowDownPlan, type SlowDownPlan } from './slow-down';

export { REQUEST_TIME_LIMIT };

/** The limits for one request: the credential's Time Limit (seconds) where it raises the defaults, a call's own `timeout` only shortening them. */
export function timeLimitsFor(credentialSeconds: unknown, timeout?: number): { idleMs: number; readMs: number } {
	// The setting is in the stated seconds (60 by default); it scales the limits, which tests shorten.
	const seconds = Number(credentialSeconds);
	const scale = Number.isFinite(seconds) && seconds > DEFAULT_TIME_LIMIT_SECONDS ? seconds / DEFAULT_TIME_LIMIT_SECONDS : 1;
	const idleMs = REQUEST_TIME_LIMIT.ms * scale;
	return { idleMs: Math.min(timeout ?? idleMs, idleMs), readMs: REQUEST_TIME_LIMIT.readMs * scale };
}

/** The longest pause before attempt `attempt + 1` (its jitter included). */
export const retryPauseMs = (attempt: number): number => (RETRY_DELAYS_MS[attempt - 1] ?? 0) * 1.2;

/**
 * The idle limit of a storage request, for its body's reading and its words. Signed storage keeps
 * the stated limits: a credential's Time Limit is for the service it belongs to.
 */
export const storageIdleMs = (): number => timeLimitsFor(undefined).idleMs;

/** The read limit of a storage request (a download's pace is judged after it). */
export const storageReadMs = (): number => timeLimitsFor(undefined).readMs;

/**
 * Whether a repeatable read that started at `startedAt` may make attempt `attempt + 1`: its pause
 * and a whole idle limit of silence must fit in the read limit (a read with its retries ends within it).
 */
export function retryFits(startedAt: number, attempt: number, limits = timeLimitsFor(undefined)): boolean {
	return Date.now() + retryPauseMs(attempt) + limits.idleMs <= startedAt + limits.readMs;
}

/**
 * The wait after a storage host's `refusal`-th "slow down" (from 1) to a transfer that started at
 * `startedAt`: what it asked (`askedMs`, none when it named no wait), within the read limit less a
 * whole idle limit for the try that follows.
 */
export function storageSlowDownPlan(askedMs: number | undefined, refusal: number, startedAt: number): SlowDownPlan {
	return slowDownPlan(askedMs, refusal, { readDeadline: startedAt + storageReadMs() - storageIdleMs() });
}
