/**
 * A user who creates a credential and pastes only the key or token: the credentials have no
 * made-up default address (which failed later with a DNS error), so the node says which address
 * is missing before anything is sent.
 */
import { startSimulator, type Simulator } from '../../../simulator/server';
import { EngineHarness } from '../../support/engine';
import { txt2img } from '../../support/cloud';
import { hostApiCredential, hostCloudApiCredential } from '../../support/credential-fixtures';

let sim: Simulator;
let harness: EngineHarness;

beforeAll(async () => {
	sim = await startSimulator();
	harness = new EngineHarness();
});
afterAll(async () => {
	await sim.close();
});

test('a Host Cloud API credential with only an API key asks for the Base URL', async () => {
	const credential = harness.addCredential('hostCloudApi', hostCloudApiCredential({ apiKey: sim.apiKey }));
	const result = await harness.runNode(
		{
			type: 'hostCloud',
			parameters: { resource: 'workflow', operation: 'execute', workflow: JSON.stringify(txt2img()) },
			credentials: { hostCloudApi: credential },
			continueOnFail: true,
		},
		[{ json: {} }],
	);
	expect(result.items[0]!.json.error).toBe('The Host Cloud API credential cannot be used: its Base URL is empty');
	expect(sim.requests).toHaveLength(0);
});

test('a Host API credential with only an access token asks for the Registry URL', async () => {
	const credential = harness.addCredential('hostApi', hostApiCredential({ accessToken: sim.accessToken }));
	const result = await harness.runNode(
		{
			type: 'hostMedia',
			parameters: { resource: 'image', operation: 'upscale', imageSource: 'url', imageUrl: 'https://images.example.com/a.png' },
			credentials: { hostApi: credential },
			continueOnFail: true,
		},
		[{ json: {} }],
	);
	expect(result.items[0]!.json.error).toBe('The Host API credential cannot be used: its Registry URL is empty');
	expect(sim.requests).toHaveLength(0);
});
