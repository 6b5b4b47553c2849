/**
 * Random faults at given rates, for chaos runs: one seeded random source (so a run can be
 * replayed from its seed) and a counter per kind of fault injected. Off unless a test sets
 * `sim.faults.chaos = new ChaosFaults(seed, rates)`; each area asks `roll(kind)` where that
 * fault can happen and does nothing else differently. A kind at rate 0 (or left out) draws no
 * number, so adding kinds never changes the faults an older seed replays.
 */

/** The kinds of random fault, each at its own rate (0..1 per chance to happen). */
export interface ChaosRates {
	/** Per WebSocket message sent: every socket of the account is closed abruptly instead. */
	dropSocket?: number;
	/** Per WebSocket message sent: it is sent twice. */
	duplicateMessage?: number;
	/** Per `executed` message sent: it and everything after it on the sockets are held back `delayMs`. */
	delayExecuted?: number;
	/** Per GET /api/job/{id}/status (v2: GET /api/v2/jobs/{id}): answered 503 (v2: the contract's 500 upstream_error). */
	status5xx?: number;
	/** Per GET /api/view (v2: GET /api/v2/assets/{id}/content): answered 503 (v2: the contract's 500 upstream_error). */
	view5xx?: number;
	/** v2, per event stream opened: the connection is cut after its first event (as the v2DropStream fault). */
	dropStream?: number;
	/** Per storage download: the connection is cut after half the bytes. */
	storageReset?: number;
	/** Per submitted job: it fails with an execution_error at its last node. */
	executionError?: number;
	/** Per media task status read (image status paths, video creations): answered 503. */
	taskStatus5xx?: number;
	/** Per media task status read: answered 429 (no Retry-After: the spec shows no rate limits, nor such a header). */
	taskStatus429?: number;
	/** Per media task status read: no answer; the connection is held `hangMs` (or until the client gives up), then dropped. */
	taskStatusTimeout?: number;
	/** Per submitted media task (image or video): it reaches IN_PROGRESS / processing and stays there. */
	taskNeverFinishes?: number;
	/** Per music stream: it ends (orderly) in the middle of a non-audio line (a title, the duration or complete). */
	musicCutMidLine?: number;
	/** Per music stream: the connection is reset in the middle of an audio_chunk's base64 data. */
	musicCutMidChunk?: number;
	/** Per archive upload URL, on its first PUT only: answered 503, nothing stored (a retry passes). */
	upload5xx?: number;
	/** Per archive upload URL, on its first PUT only: the connection is reset after the body, nothing stored (a retry passes). */
	uploadReset?: number;
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
	/** The run's seeded sequence: `roll` draws from it, and so does where a fault strikes once it does. */
	readonly random: () => number;
	/** Faults injected so far, by kind. */
	readonly injected: Record<ChaosKind, number> = {
		dropSocket: 0,
		duplicateMessage: 0,
		delayExecuted: 0,
		status5xx: 0,
		view5xx: 0,
		dropStream: 0,
		storageReset: 0,
		executionError: 0,
		taskStatus5xx: 0,
		taskStatus429: 0,
		taskStatusTimeout: 0,
		taskNeverFinishes: 0,
		musicCutMidLine: 0,
		musicCutMidChunk: 0,
		upload5xx: 0,
		uploadReset: 0,
	};
	/** How long a delayed `executed` message is held back. */
	readonly delayMs: number;
	/**
	 * How long a status read hit by taskStatusTimeout is held before the connection is dropped:
	 * longer than any status read timeout of the nodes (30 s), so the client times out first.
	 */
	readonly hangMs: number;

	constructor(
		readonly seed: number,
		readonly rates: ChaosRates,
		timings: { delayMs?: number; hangMs?: number } = {},
	) {
		this.random = seededRandom(seed);
		this.delayMs = timings.delayMs ?? 50;
		this.hangMs = timings.hangMs ?? 35_000;
	}

	/** Faults injected so far, for the kinds this run gives a rate: what its figures report. */
	injectedAtRate(): Partial<Record<ChaosKind, number>> {
		return Object.fromEntries((Object.keys(this.rates) as ChaosKind[]).map((kind) => [kind, this.injected[kind]]));
	}

	/** Whether a fault of `kind` happens now (counted when it does). */
	roll(kind: ChaosKind): boolean {
		const rate = this.rates[kind] ?? 0;
		if (rate <= 0 || this.random() >= rate) return false;
		this.injected[kind]++;
		return true;
	}
}
