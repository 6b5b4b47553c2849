/**
 * The WebSocket fault switches (dropWebSocket, silenceWebSocket) as one gate every outgoing
 * message passes, whichever flavour's socket hub sends it.
 */
import type { Faults } from './core';

export class WsFaultGate {
	/** The running silence window and the fault object that opened it. */
	private silence?: { fault: object; until: number };

	constructor(private readonly faults: Faults) {}

	/**
	 * Counted per emitted message that has at least one recipient (not per socket).
	 * dropWebSocket: after `afterMessages` more, `terminateAll` runs and the fault clears.
	 * silenceWebSocket: after `afterMessages` more, messages are dropped for `ms`, then the fault clears.
	 */
	passes(terminateAll: () => void): boolean {
		const { faults } = this;
		const drop = faults.dropWebSocket;
		if (drop) {
			if (drop.afterMessages > 0) drop.afterMessages--;
			else {
				delete faults.dropWebSocket;
				terminateAll();
				return false;
			}
		}
		const quiet = faults.silenceWebSocket;
		if (!quiet) return true;
		if (this.silence?.fault !== quiet) {
			if (quiet.afterMessages > 0) {
				quiet.afterMessages--;
				return true;
			}
			this.silence = { fault: quiet, until: Date.now() + quiet.ms };
		}
		if (Date.now() < this.silence.until) return false;
		delete faults.silenceWebSocket;
		this.silence = undefined;
		return true;
	}

	reset(): void {
		this.silence = undefined;
	}
}
