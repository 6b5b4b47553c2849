/**
 * What every chaos suite watches besides its items: the seed (printed, replayed with CHAOS_SEED),
 * errors nobody caught, and handles (sockets, timers, file streams) a run leaves open.
 */
import type { ChaosKind } from '../../simulator/shared/chaos';
import { suiteSeed } from './suite-seed';
import { waitUntil } from './wait';

/** The figures of one chaos scenario that every suite records (bench/reliability.json), under these names. */
export interface ChaosFigures {
	faults_injected: Partial<Record<ChaosKind, number>>;
	items_accounted_pct: number;
	items_completed: number;
	items_failed: number;
	wrong_attributions: number;
	partial_files_passed: number;
	duplicate_items: number;
	uncaught_errors: number;
	open_handles_left: number;
	/** Places (output items, errors, request log) where a secret turned up. */
	secrets_found: number;
	wall_seconds: number;
}

/** The chaos suites' seed (test/support/suite-seed.ts); they print it, and CHAOS_SEED replays it. */
export function chaosSeed(): number {
	return suiteSeed('CHAOS_SEED');
}

/** Handles that say something is still open: sockets, timers, file streams (not the runtime's own). */
export function openHandles(): Map<string, number> {
	const counts = new Map<string, number>();
	for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1);
	return counts;
}

export function handlesAdded(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
	const added: Record<string, number> = {};
	for (const [kind, n] of after) if (n > (before.get(kind) ?? 0)) added[kind] = n - (before.get(kind) ?? 0);
	return added;
}

/**
 * Handles opened since `before` that are still open after `ms`: closed sockets and ended streams
 * leave the list on the next turns of the event loop, so they get that long to go.
 */
export async function handlesLeft(before: Map<string, number>, ms = 5000): Promise<Record<string, number>> {
	let left: Record<string, number> = {};
	await waitUntil(() => Object.keys((left = handlesAdded(before, openHandles()))).length === 0, ms).catch(() => undefined);
	return left;
}

/** Collects uncaught exceptions and unhandled rejections until `stop()`. */
export function catchUncaught(): { errors: unknown[]; stop(): void } {
	const errors: unknown[] = [];
	const onError = (error: unknown) => errors.push(error);
	process.on('uncaughtException', onError);
	process.on('unhandledRejection', onError);
	return {
		errors,
		stop() {
			process.off('uncaughtException', onError);
			process.off('unhandledRejection', onError);
		},
	};
}

/**
 * What every chaos scenario must show whatever it injected: every item accounted, none given
 * another's result, no partial file passed on, no item twice, nothing uncaught, no secret found
 * (`secrets`: the findings, shown when there are some), nothing left open (`left`); plus the
 * scenario's own figures in `more`.
 */
export function expectSoundRun(row: ChaosFigures, found: { secrets: unknown[]; left: Record<string, number> }, more: object = {}): void {
	expect(row).toMatchObject({
		items_accounted_pct: 100,
		wrong_attributions: 0,
		partial_files_passed: 0,
		duplicate_items: 0,
		uncaught_errors: 0,
		secrets_found: 0,
		...more,
	});
	expect(found.secrets).toEqual([]);
	expect(found.left).toEqual({});
}
