/**
 * The replay's worlds: a simulator of one flavour behind a loopback fault proxy, with credentials
 * pointing at the proxy, run by one engine harness per file; and the package's bounds shortened
 * while a file runs (settings.ts).
 */
import { RETRY_DELAYS_MS } from '../../../../nodes/shared/transport/retry';
import { REQUEST_TIME_LIMIT } from '../../../../nodes/shared/transport/transport';
import { startSimulator, type Simulator } from '../../../../simulator/server';
import { PROXY_HEADER } from '../../../support/cloud';
import { EngineHarness } from '../../../support/engine';
import { addWorldCredentials, type Flavour, type World } from '../../../support/fault-paths';
import { startFaultProxy } from '../../../support/fault-proxy';
import { registerToolTypes } from '../../../support/tools';
import { MS, READ_MS, SCALED_RETRY } from './settings';

export const harness = new EngineHarness();
registerToolTypes(harness);

/** The package's limits, as the replay's runs see them: `readMs` is read by the transport that governs every exchange (issue 34). */
const LIMIT = REQUEST_TIME_LIMIT as { ms: number; readMs?: number };

/** The file's runs see the shortened bounds: 400 ms of silence per request, 1.2 s a read with its retries, retry pauses at 1/100 (restored after). */
export function useShortBounds(): void {
	const saved = { ms: LIMIT.ms, readMs: LIMIT.readMs, retry: [...RETRY_DELAYS_MS] };
	beforeAll(() => {
		LIMIT.ms = MS;
		LIMIT.readMs = READ_MS;
		(RETRY_DELAYS_MS as unknown as number[]).splice(0, RETRY_DELAYS_MS.length, ...SCALED_RETRY);
	});
	afterAll(() => {
		LIMIT.ms = saved.ms;
		if (saved.readMs === undefined) delete LIMIT.readMs;
		else LIMIT.readMs = saved.readMs;
		(RETRY_DELAYS_MS as unknown as number[]).splice(0, RETRY_DELAYS_MS.length, ...saved.retry);
	});
}

/** A simulator of `flavour` (fast nodes and steps; how long its signed links stay valid, when given) behind its fault proxy. */
export async function startWorld(flavour: Flavour, options: { signedUrlTtlMs?: number } = {}): Promise<World> {
	const sim = (
		flavour === 'v2'
			? await startSimulator({ flavour, nodeMs: 5, v2: { surface: 'cloud' }, ...options })
			: await startSimulator({
					flavour,
					nodeMs: 5,
					imageStepMs: 15,
					videoStepMs: 15,
					notifyBackoffMs: 20,
					...(flavour === 'self-hosted' ? { proxyAuth: PROXY_HEADER } : {}),
					...options,
				})
	) as Simulator;
	const proxy = await startFaultProxy({ api: sim.baseUrl, registry: sim.registryUrl, storage: sim.storageUrl });
	return { sim, proxy, harness, ...addWorldCredentials(harness, sim, proxy) };
}

export async function closeWorld(world: World): Promise<void> {
	await world.proxy.close();
	await world.sim.close();
}

/** The worlds of `flavours`, started before the file's tests and closed after them. */
export function useWorlds(flavours: Flavour[]): Partial<Record<Flavour, World>> {
	const worlds: Partial<Record<Flavour, World>> = {};
	beforeAll(async () => {
		for (const flavour of flavours) worlds[flavour] = await startWorld(flavour);
	});
	afterAll(async () => {
		for (const world of Object.values(worlds)) await closeWorld(world);
	});
	return worlds;
}
