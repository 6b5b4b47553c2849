/**
 * Random faults at given rates, for chaos runs: one seeded random source (so a run can be
 * replayed from its seed) and a counter per kind of fault injected. Off unless a test sets
 * `sim.faults.chaos = new ChaosFaults(seed, rates)`; each area asks `roll(kind)` where that
 * fault can happen and does nothing else differently.
 */

/** The kinds of random fault, each at its own rate (0..1 per chance to happen). */
export interface ChaosRates {
	/** Per WebSocket message sent: every socket of the account is closed abruptly instead. */
	dropSocket?: number;
	/** Per WebSocket message sent: it is sent twice. */
	duplicateMessage?: number;
	/** Per `executed` message sent: it and everything after it on the sockets are held back `delayMs`. */
	delayExecuted?: number;
	/** Per GET /api/job/{id}/status: answered 503. */
	status5xx?: number;
	/** Per GET /api/view: answered 503. */
	view5xx?: number;
	/** Per storage download: the connection is cut after half the bytes. */
	storageReset?: number;
	/** Per submitted job: it fails with an execution_error at its last node. */
	executionError?: number;
}

export type ChaosKind = keyof ChaosRates;

/** mulberry32: a small, fast, well-spread 32-bit generator; the same seed gives the same sequence. */
export function seededRandom(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

export class ChaosFaults {
	readonly random: () => number;
	/** Faults injected so far, by kind. */
	readonly injected: Record<ChaosKind, number> = {
		dropSocket: 0,
		duplicateMessage: 0,
		delayExecuted: 0,
		status5xx: 0,
		view5xx: 0,
		storageReset: 0,
		executionError: 0,
	};

	constructor(
		readonly seed: number,
		readonly rates: ChaosRates,
		/** How long a delayed `executed` message is held back. */
		readonly delayMs = 50,
	) {
		this.random = seededRandom(seed);
	}

	/** Whether a fault of `kind` happens now (counted when it does). */
	roll(kind: ChaosKind): boolean {
		const rate = this.rates[kind] ?? 0;
		if (rate <= 0 || this.random() >= rate) return false;
		this.injected[kind]++;
		return true;
	}
}
