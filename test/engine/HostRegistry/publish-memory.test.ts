/**
 * Publishing with n8n's in-memory binary data mode (the archive travels as base64 in the item,
 * without a stored-file id), the other path the upload reads its body from.
 */
process.env.N8N_DEFAULT_BINARY_DATA_MODE = 'default';

import { startSimulator, type Simulator } from '../../../simulator/server';
import { EngineHarness } from '../../support/engine';
import { ZIP, archiveItem, locator, registryCredential, runRegistry } from '../../support/registry-node';

let sim: Simulator;
const harness = new EngineHarness();

beforeAll(async () => {
	sim = await startSimulator();
	sim.registry.seedPublisher({ id: 'acme' });
});

afterAll(async () => {
	await sim.close();
});

it('uploads an archive held in memory byte for byte', async () => {
	const result = await runRegistry(
		harness,
		registryCredential(harness, sim),
		{ resource: 'nodeVersion', operation: 'publish', publisher: locator('acme'), node: locator('my-node', 'id'), version: '2.0.0-rc.1' },
		[archiveItem()],
	);
	expect(result.status).toBe('success');
	expect(result.output('Input')[0]!.binary!.data!.id).toBeUndefined();
	expect(result.items[0]!.json.upload).toMatchObject({ uploaded: true, bytes: ZIP.length });
	const archive = sim.registry.archiveFor('acme', 'my-node', '2.0.0-rc.1');
	expect(archive?.bytes.equals(ZIP)).toBe(true);
	expect(archive?.isZip).toBe(true);
});
