/**
 * A registry that says "slow down", through n8n's engine against the simulator: a read answered
 * 429 with Retry-After as an HTTP date is asked again no sooner than that date, and its items say
 * how long they waited; a write (Create Publisher) told to slow down is sent again, and made once.
 */
import { startSimulator, type Simulator } from '../../../simulator/server';
import { EngineHarness } from '../../support/engine';
import { locator, registryCredential, runRegistry } from '../../support/registry-node';
import { gapAfterSlowDown, statusesOf } from '../../support/slow-down';

let sim: Simulator;
const harness = new EngineHarness();

beforeAll(async () => {
	sim = await startSimulator();
});
beforeEach(() => sim.reset());
afterAll(async () => {
	await sim.close();
});

test('a node listing told to slow down until an HTTP date is read again no sooner, and its items say they waited', async () => {
	sim.registry.seedPublisher({ id: 'acme' });
	sim.registry.seedNodes('acme', 2);
	// Two whole seconds ahead: an HTTP date counts whole seconds.
	const until = new Date(Math.ceil(Date.now() / 1000) * 1000 + 2000);
	sim.faults.slowDown = { count: 1, pathPrefix: '/publishers/acme/nodes', retryAfter: until.toUTCString() };
	const result = await runRegistry(harness, registryCredential(harness, sim), {
		resource: 'node',
		operation: 'getAll',
		publisher: locator('acme'),
		returnAll: true,
	});
	expect(result.status).toBe('success');
	expect(result.items).toHaveLength(2);
	for (const item of result.items) expect(item.json.waited_for_service_seconds).toBeGreaterThan(0);
	const reads = sim.requestsTo('GET', '/publishers/acme/nodes');
	expect(statusesOf(reads)).toEqual([429, 200]);
	expect(reads[1]!.at).toBeGreaterThanOrEqual(until.getTime());
	expect(gapAfterSlowDown(reads)).toBeGreaterThan(0);
});

test('a write told to slow down (429, Retry-After 1) is sent again after at least 1 s, and made once', async () => {
	sim.faults.slowDown = { count: 1, method: 'POST', pathPrefix: '/publishers', retryAfter: 1 };
	const result = await runRegistry(harness, registryCredential(harness, sim), {
		resource: 'publisher',
		operation: 'create',
		publisherId: 'acme',
		name: 'Acme Nodes',
	});
	expect(result.status).toBe('success');
	expect(result.items[0]!.json).toMatchObject({ id: 'acme', waited_for_service_seconds: expect.any(Number) });
	const writes = sim.requestsTo('POST', '/publishers');
	expect(statusesOf(writes)).toEqual([429, 201]);
	expect(gapAfterSlowDown(writes)).toBeGreaterThanOrEqual(1000);
});
