/**
 * The one setup of the simulator test files: a simulator per file (or describe block), started
 * before its first test and closed after its last. After each test the options go back to what
 * they were at start and reset() clears the rest, so a test that changes a timing or flips a
 * fault never leaks it into the next.
 */
import { startSimulator, type Simulator, type SimulatorOptions } from '../../../simulator/server';

/**
 * Registers the Jest hooks. `started` receives the simulator once it is up (assign it, make
 * clients for its URLs); `beforeReset` runs after each test, before the simulator is put back
 * (close the test's own connections there).
 */
export function useSimulator(options: SimulatorOptions, started: (sim: Simulator) => void, beforeReset?: () => void): void {
	let sim: Simulator | undefined;
	let startOptions: Simulator['options'];

	beforeAll(async () => {
		sim = await startSimulator(options);
		startOptions = { ...sim.options };
		started(sim);
	});

	afterEach(() => {
		beforeReset?.();
		if (!sim) return;
		Object.assign(sim.options, startOptions);
		sim.reset();
	});

	afterAll(async () => {
		await sim?.close();
	});
}
