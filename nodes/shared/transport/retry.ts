/**
 * Back-off for the calls that are safe to repeat (status reads, signed uploads, socket reconnects):
 * one delay table and one jitter, so the nodes retry alike and many items do not retry in step.
 */

import { pause } from '../waits/pause';

/** Pauses before the 2nd, 3rd and 4th attempt of a repeatable call. */
export const RETRY_DELAYS_MS = [500, 1500, 4000] as const;

/** `ms` give or take 20 %, at least 1 ms. */
export function jittered(ms: number, random: () => number = Math.random): number {
	return Math.max(1, Math.round(ms * (0.8 + random() * 0.4)));
}

/** The jittered pause after failed attempt `attempt` (from 1); it ends early (rejects) when `signal` aborts. */
export async function pauseBeforeRetry(attempt: number, signal?: AbortSignal): Promise<void> {
	await pause(jittered(RETRY_DELAYS_MS[attempt - 1]!), signal);
}
