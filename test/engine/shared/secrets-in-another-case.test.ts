/**
 * A service (or a proxy in between) that echoes a secret in another letter case: a host name in a
 * redirect's Location (which URL parsing writes in lower case) or an error message that lowers
 * what it quotes. A key whose case is lost is still most of the key: it never reaches an error.
 */
import { EngineHarness } from '../../support/engine';
import { sendJson, startHostileService, type HostileService } from '../../support/hostile-service';
import { hostCloudApiCredential } from '../../support/credential-fixtures';

const API_KEY = 'HcK-Live-AbCdEfGhIjKlMnOp-QrStUv';
const harness = new EngineHarness();
let service: HostileService;
let cloud: string;
let answer: Parameters<typeof startHostileService>[0] = (_req, res) => sendJson(res, 404, {});

beforeAll(async () => {
	service = await startHostileService((req, res) => answer(req, res));
	cloud = harness.addCredential('hostCloudApi', hostCloudApiCredential({ apiKey: API_KEY, baseUrl: service.url }));
});

afterAll(async () => await service.close());

async function getStatus() {
	const result = await harness.runNode({
		type: 'hostCloud',
		parameters: { resource: 'workflow', operation: 'getStatus', promptId: '0b7a0f5e-6a4f-4c43-9b0e-1d2c3b4a5f60' } as never,
		credentials: { hostCloudApi: cloud },
		continueOnFail: true,
	});
	return JSON.stringify(result.items[0]!.json);
}

describe('a secret echoed in another letter case is kept out of errors', () => {
	it('a redirect to a host named after the key: the error names the host without the key', async () => {
		answer = (_req, res) => sendJson(res, 302, {}, { Location: `https://${API_KEY}.evil.example/next` });
		const shown = await getStatus();
		expect(shown).toMatch(/redirect \(HTTP 302\) to https:\/\/\*\*\*\.evil\.example/);
		expect(shown.toLowerCase()).not.toContain(API_KEY.toLowerCase());
	});

	it('an error message that quotes the key in lower or upper case', async () => {
		for (const quoted of [API_KEY.toLowerCase(), API_KEY.toUpperCase()]) {
			answer = (_req, res) => sendJson(res, 401, { error: { type: 'unauthorized', message: `invalid key ${quoted}` } });
			const shown = await getStatus();
			expect(shown).toMatch(/invalid key \*\*\*/);
			expect(shown.toLowerCase()).not.toContain(API_KEY.toLowerCase());
		}
	});
});
