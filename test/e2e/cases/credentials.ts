/**
 * Every credential type, tested the way the editor's "Test" button does it (POST
 * /rest/credentials/test): the right secret passes, a wrong one fails with the credential's own
 * message, and n8n really asked the simulator (no cached or local verdict).
 */
import { startSimulator } from '../../../simulator/server';
import { redirectTo, sendJson, startHostileService } from '../../support/hostile-service';
import { contractBreaches } from '../../support/v2-contract';
import { e2e } from '../support/context';

const WRONG_API_KEY = 'wrong-api-key-e2e-0001';
const WRONG_TOKEN = 'wrong-access-token-e2e-0002';

describe('credentials tested through n8n', () => {
	it('Host Cloud API passes with the right API key, and n8n asked the cloud API', async () => {
		const { client, credentials, simulator } = e2e();
		const before = simulator.requestsTo('GET', '/api/object_info').length;
		const result = await client.testCredential(credentials.hostCloudApi);
		expect(result).toEqual({ status: 'OK', message: expect.any(String) });
		const seen = simulator.requestsTo('GET', '/api/object_info').slice(before);
		expect(seen).toHaveLength(1);
		expect(seen[0]!.headers['x-api-key']).toBe(`***(${simulator.apiKey.length})`);
	});

	it('Host Cloud API fails with a wrong API key, saying so without echoing the key', async () => {
		const { client, credentials } = e2e();
		const result = await client.testCredential(credentials.hostCloudApi, { apiKey: WRONG_API_KEY });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/API key was rejected \(401\)/);
		expect(result.message).not.toContain(WRONG_API_KEY);
	});

	it('Host API passes with the right access token and publisher, and n8n asked the registry', async () => {
		const { client, credentials, simulator, credentialData } = e2e();
		const path = `/publishers/${credentialData.hostApi.publisherId}/nodes/v2`;
		const before = simulator.requestsTo('GET', path).length;
		const result = await client.testCredential(credentials.hostApi);
		expect(result).toEqual({ status: 'OK', message: expect.any(String) });
		const seen = simulator.requestsTo('GET', path).slice(before);
		expect(seen).toHaveLength(1);
		expect(seen[0]!.headers.authorization).toBe(`Bearer ***(${simulator.accessToken.length})`);
	});

	it('Host API fails with a wrong access token, saying so without echoing the token', async () => {
		const { client, credentials } = e2e();
		const result = await client.testCredential(credentials.hostApi, { accessToken: WRONG_TOKEN });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/access token was rejected \(401\)/);
		expect(result.message).not.toContain(WRONG_TOKEN);
	});

	it('Host Cloud V2 API passes with the right key on the v2 simulator, fails with a wrong one in words; n8n asked each time', async () => {
		const { client } = e2e();
		const sim = await startSimulator({ flavour: 'v2', v2: { surface: 'deployment', mountPrefix: '/deployment/dep-e2e' } });
		try {
			const credential = await client.createCredential('Host Cloud V2 API (e2e)', 'hostCloudV2Api', {
				baseUrl: sim.baseUrl,
				apiKey: sim.apiKey,
			});
			expect(await client.testCredential(credential)).toEqual({ status: 'OK', message: expect.any(String) });
			const wrong = await client.testCredential(credential, { apiKey: WRONG_API_KEY });
			expect(wrong.status).toBe('Error');
			expect(wrong.message).toMatch(/API key was rejected \(401 unauthorized\)/);
			expect(wrong.message).not.toContain(WRONG_API_KEY);
			expect(sim.v2.exchanges.map((x) => x.status)).toEqual([404, 401]);
			expect(contractBreaches(sim)).toEqual([]);
		} finally {
			await sim.close();
		}
	});

	it('neither credential test follows a redirect: the secret never reaches the host it points to', async () => {
		const { client, credentials } = e2e();
		const elsewhere = await startHostileService((_req, res) => sendJson(res, 200, {}));
		const service = await startHostileService((req, res) => redirectTo(res, `${elsewhere.url}/collect${req.url}`, 307));
		try {
			const cloud = await client.testCredential(credentials.hostCloudApi, { baseUrl: service.url });
			expect(cloud).toEqual({
				status: 'Error',
				message: expect.stringMatching(/^The Base URL \/ Server URL answered the test with a redirect \(HTTP 307\), which is not followed/),
			});
			const registry = await client.testCredential(credentials.hostApi, { registryUrl: service.url });
			expect(registry).toEqual({
				status: 'Error',
				message: expect.stringMatching(/^The Registry URL answered the test with a redirect \(HTTP 307\)/),
			});
			expect(service.seen).toHaveLength(2);
			expect(elsewhere.seen).toHaveLength(0);
		} finally {
			await service.close();
			await elsewhere.close();
		}
	});

	it('neither credential test passes on a 200 web page: only an answer shaped like the service\u2019s passes', async () => {
		const { client, credentials } = e2e();
		const page = await startHostileService((_req, res) => {
			res.writeHead(200, { 'Content-Type': 'text/html' });
			res.end('<!doctype html><html><body><form>Sign in</form></body></html>');
		});
		try {
			const cloud = await client.testCredential(credentials.hostCloudApi, { baseUrl: page.url });
			expect(cloud).toEqual({
				status: 'Error',
				message: expect.stringMatching(/^The Base URL \/ Server URL answered with a web page or text/),
			});
			const registry = await client.testCredential(credentials.hostApi, { registryUrl: page.url });
			expect(registry).toEqual({ status: 'Error', message: expect.stringMatching(/^The Registry URL answered with a web page or text/) });
			expect(page.seen).toHaveLength(2);
		} finally {
			await page.close();
		}
	});
});
