/**
 * The credential tests never follow a redirect: n8n would send the API key, a self-hosted server's
 * proxy headers or the access token to wherever the Base URL, Server URL or Registry URL points. Each test below aims the credential at a
 * service that redirects to a second loopback server, which records what it receives.
 */
import { EngineHarness } from '../../support/engine';
import { redirectTo, startHostileService, type HostileService } from '../../support/hostile-service';
import { hostApiCredential, hostCloudApiCredential, selfHostedCredential } from '../../support/credential-fixtures';

const API_KEY = 'cloud-key-credential-test-0123456789';
const ACCESS_TOKEN = 'access-token-credential-test-0123456789';
const PROXY_BASIC = Buffer.from('proxy-user:proxy-password-credential-test').toString('base64');
const REDIRECTS = [301, 302, 303, 307, 308];

const harness = new EngineHarness();
let elsewhere: HostileService;
let service: HostileService;
let status = 302;

beforeAll(async () => {
	elsewhere = await startHostileService((_req, res) => {
		res.writeHead(200, { 'Content-Type': 'application/json' });
		res.end('{}');
	});
	service = await startHostileService((req, res) => redirectTo(res, `${elsewhere.url}/collect${req.url}`, status));
});

afterEach(() => {
	service.seen.length = 0;
	elsewhere.seen.length = 0;
});

afterAll(async () => {
	await service.close();
	await elsewhere.close();
});

describe.each(REDIRECTS)('a credential test answered by a redirect (HTTP %i)', (code) => {
	beforeEach(() => {
		status = code;
	});

	it('Host Cloud API: the API key is not sent on, and the test fails saying why', async () => {
		const result = await harness.testCredential('hostCloudApi', hostCloudApiCredential({ apiKey: API_KEY, baseUrl: service.url }));
		expect(service.seen).toHaveLength(1);
		expect(service.seen[0]!.headers['x-api-key']).toBe(API_KEY);
		expect(elsewhere.seen).toHaveLength(0);
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(new RegExp(`Base URL( / Server URL)? answered the test with a redirect \\(HTTP ${code}\\)`));
		expect(result.message).toMatch(/not followed/);
		expect(result.message).not.toContain(API_KEY);
	});

	it('Host Cloud API on a self-hosted server: the proxy headers are not sent on, and the test fails saying why', async () => {
		const proxyHeaders = { values: [{ name: 'Authorization', value: `Basic ${PROXY_BASIC}` }] };
		const result = await harness.testCredential('hostCloudApi', selfHostedCredential({ serverUrl: service.url, proxyHeaders }));
		expect(service.seen).toHaveLength(1);
		expect(service.seen[0]!.url).toBe('/api/object_info/KSampler');
		expect(service.seen[0]!.headers.authorization).toBe(`Basic ${PROXY_BASIC}`);
		expect(elsewhere.seen).toHaveLength(0);
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(new RegExp(`Server URL answered the test with a redirect \\(HTTP ${code}\\)`));
		expect(result.message).not.toContain(PROXY_BASIC);
	});

	it('Host API: the access token is not sent on, and the test fails saying why', async () => {
		const result = await harness.testCredential(
			'hostApi',
			hostApiCredential({ accessToken: ACCESS_TOKEN, registryUrl: service.url, publisherId: 'acme' }),
		);
		expect(service.seen).toHaveLength(1);
		expect(service.seen[0]!.headers.authorization).toBe(`Bearer ${ACCESS_TOKEN}`);
		expect(elsewhere.seen).toHaveLength(0);
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(new RegExp(`Registry URL answered the test with a redirect \\(HTTP ${code}\\)`));
		expect(result.message).not.toContain(ACCESS_TOKEN);
	});
});
