/**
 * The Host Cloud V2 API credential's test against the simulator's v2 flavour, as n8n runs it: it
 * passes on each surface a v2 API has (the cloud; a deployment behind a gateway's mount prefix,
 * which the Base URL carries; a self-hosted v2 proxy without a token, and one with its static
 * token), and fails on a wrong key, in words, with one request. Every exchange is checked against
 * the published contract.
 */
import { startSimulator, type V2Simulator, type V2SimulatorOptions } from '../../../simulator/server';
import { EngineHarness } from '../../support/engine';
import { contractBreaches } from '../../support/v2-contract';

const harness = new EngineHarness();

async function withSimulator(v2: V2SimulatorOptions['v2'], check: (sim: V2Simulator) => Promise<void>): Promise<void> {
	const sim = await startSimulator({ flavour: 'v2', v2 });
	try {
		await check(sim);
		expect(contractBreaches(sim)).toEqual([]);
	} finally {
		await sim.close();
	}
}

const testV2 = (baseUrl: string, apiKey: string) => harness.testCredential('hostCloudV2Api', { baseUrl, apiKey });

test.each([
	['the cloud', { surface: 'cloud' as const, mountPrefix: '' }],
	['a deployment behind a gateway’s mount prefix', { surface: 'deployment' as const, mountPrefix: '/deployment/dep-1' }],
])('passes on %s with its key, in one request', async (_surface, v2) => {
	await withSimulator(v2, async (sim) => {
		expect(await testV2(sim.baseUrl, sim.apiKey)).toEqual({ status: 'OK', message: 'Connection successful!' });
		expect(sim.v2.exchanges.map((x) => [x.method, x.path, x.status])).toEqual([
			['GET', `${v2.mountPrefix}/api/v2/jobs/00000000-0000-4000-8000-000000000000`, 404],
		]);
	});
});

test('passes on a self-hosted v2 proxy without a token: no key, no Authorization header', async () => {
	await withSimulator({ surface: 'self-hosted' }, async (sim) => {
		expect((await testV2(sim.baseUrl, '')).status).toBe('OK');
		expect(sim.v2.exchanges).toHaveLength(1);
		expect(sim.v2.exchanges[0]!.headers.authorization).toBeUndefined();
	});
});

test('on a self-hosted v2 proxy with a static token: passes with it, fails without it', async () => {
	await withSimulator({ surface: 'self-hosted', selfHostedToken: 'static-token-1' }, async (sim) => {
		expect((await testV2(sim.baseUrl, 'static-token-1')).status).toBe('OK');
		const without = await testV2(sim.baseUrl, '');
		expect(without.status).toBe('Error');
		expect(without.message).toMatch(/401 unauthorized/);
	});
});

test('fails on a wrong key on the cloud, in words, without the key, with one request', async () => {
	await withSimulator({ surface: 'cloud' }, async (sim) => {
		const result = await testV2(sim.baseUrl, 'not-the-key-0123456789');
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/The API key was rejected \(401 unauthorized\)/);
		expect(result.message).not.toContain('not-the-key-0123456789');
		expect(sim.v2.exchanges).toHaveLength(1);
	});
});
