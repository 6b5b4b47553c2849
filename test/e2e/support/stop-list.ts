/**
 * What a stack has started, stopped newest first by `release()`, and on Ctrl-C before that
 * (processes.ts's onInterrupt). A stop that fails is reported and the
 * others still run.
 */
import { onInterrupt } from './processes';
import type { ProgressLog } from './runtime';

export interface StopList {
	add(...stops: Array<() => Promise<void>>): void;
	/** Stops everything, then forgets the Ctrl-C handler. */
	release(): Promise<void>;
}

export function stopList(progress: ProgressLog): StopList {
	const stops: Array<() => Promise<void>> = [];
	const stopAll = async () => {
		while (stops.length > 0) {
			const stop = stops.pop()!;
			await stop().catch((error: Error) => progress(`while stopping: ${error.message}`));
		}
	};
	const unregister = onInterrupt(stopAll);
	return {
		add: (...more) => void stops.push(...more),
		async release() {
			await stopAll();
			unregister();
		},
	};
}
