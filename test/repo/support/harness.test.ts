/**
 * Proves the engine harness itself: credentials are tested and applied as n8n does, and a node
 * run through n8n-core's WorkflowExecute honours continueOnFail and pairedItem per item.
 */
import { EngineHarness } from '../../support/engine';
import { startLoopbackServer, type LoopbackServer } from '../../support/loopback-server';
import { hostApiCredential, hostCloudApiCredential } from '../../support/credential-fixtures';

const GOOD_KEY = 'good-key-123456';
const GOOD_TOKEN = 'good-token-abcdef';

describe('engine harness', () => {
	let server: LoopbackServer;
	let harness: EngineHarness;

	beforeAll(async () => {
		server = await startLoopbackServer((req, res) => {
			const send = (status: number, body: unknown) => {
				res.writeHead(status, { 'content-type': 'application/json' });
				res.end(JSON.stringify(body));
			};
			if (req.url.startsWith('/api/object_info')) {
				if (req.headers['x-api-key'] !== GOOD_KEY) return send(401, { error: { type: 'unauthorized', message: 'Invalid API key' } });
				return send(200, { KSampler: { input: { required: {} }, output: ['LATENT'] }, SaveImage: { input: { required: {} }, output: [] } });
			}
			if (req.url.startsWith('/publishers/')) {
				if (req.headers.authorization !== `Bearer ${GOOD_TOKEN}`) return send(401, { error: 'unauthorized', message: 'bad token' });
				if (!req.url.startsWith('/publishers/acme/')) return send(404, { error: 'not_found', message: 'no such publisher' });
				return send(200, { limit: 1, nodes: [], page: 1, total: 0, totalPages: 0 });
			}
			send(404, { error: 'not_found', message: 'no route' });
		});
		harness = new EngineHarness();
	});

	afterAll(async () => {
		await server.close();
	});

	beforeEach(() => {
		server.seen.length = 0;
	});

	it('tests the cloud credential with the X-API-Key header against the service', async () => {
		const ok = await harness.testCredential('hostCloudApi', hostCloudApiCredential({ apiKey: GOOD_KEY, baseUrl: `${server.url}/` }));
		expect(ok).toEqual({ status: 'OK', message: 'Connection successful!' });
		expect(server.seen[0]).toMatchObject({ method: 'GET', url: '/api/object_info' });
		expect(server.seen[0]!.headers['x-api-key']).toBe(GOOD_KEY);
	});

	it('fails the cloud credential test with a useful message for a wrong key', async () => {
		const result = await harness.testCredential('hostCloudApi', hostCloudApiCredential({ apiKey: 'wrong-key-000', baseUrl: server.url }));
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/API key was rejected \(401\)/);
		expect(result.message).not.toContain('wrong-key-000');
	});

	it('tests the registry credential with a bearer token and the publisher id', async () => {
		const ok = await harness.testCredential(
			'hostApi',
			hostApiCredential({ accessToken: GOOD_TOKEN, registryUrl: server.url, publisherId: 'acme' }),
		);
		expect(ok.status).toBe('OK');
		expect(server.seen[0]!.url).toBe('/publishers/acme/nodes/v2?page=1&limit=1');
		expect(server.seen[0]!.headers.authorization).toBe(`Bearer ${GOOD_TOKEN}`);

		const wrong = await harness.testCredential(
			'hostApi',
			hostApiCredential({ accessToken: 'nope-nope', registryUrl: server.url, publisherId: 'acme' }),
		);
		expect(wrong).toEqual({ status: 'Error', message: expect.stringMatching(/access token was rejected \(401\)/) });

		const noPublisher = await harness.testCredential('hostApi', hostApiCredential({ accessToken: GOOD_TOKEN, registryUrl: server.url }));
		expect(noPublisher.status).toBe('Error');
		expect(noPublisher.message).toMatch(/no publisher with this Publisher ID/);
	});

	it('runs a node per item through WorkflowExecute, with continueOnFail and pairedItem', async () => {
		const credential = harness.addCredential('hostCloudApi', hostCloudApiCredential({ apiKey: GOOD_KEY, baseUrl: server.url }));
		const result = await harness.runNode(
			{
				type: 'hostCloud',
				parameters: { resource: 'system', operation: 'getNodeDefinitions', nodeClass: '={{ $json.cls }}' },
				credentials: { hostCloudApi: credential },
				continueOnFail: true,
			},
			[{ json: { cls: 'KSampler' } }, { json: { cls: 'NoSuchNode' } }, { json: { cls: 'SaveImage' } }, { json: { cls: 5 } }],
		);
		expect(result.status).toBe('success');
		expect(result.items.map((item) => item.json.class_type ?? item.json.error)).toEqual([
			'KSampler',
			'Node class "NoSuchNode" is not in the cloud\'s node definitions',
			'SaveImage',
			// A number from an expression is read as a class name, not a crash.
			'Node class "5" is not in the cloud\'s node definitions',
		]);
		expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }, { item: 3 }]);
		// The credential was applied by n8n's generic authentication on every request.
		expect(server.seen.every((req) => req.headers['x-api-key'] === GOOD_KEY)).toBe(true);
	});

	it('stops at the failing item without continueOnFail and names it', async () => {
		const credential = harness.addCredential('hostCloudApi', hostCloudApiCredential({ apiKey: GOOD_KEY, baseUrl: server.url }));
		const result = await harness.runNode(
			{
				type: 'hostCloud',
				parameters: { resource: 'system', operation: 'getNodeDefinitions', nodeClass: '={{ $json.cls }}' },
				credentials: { hostCloudApi: credential },
			},
			[{ json: { cls: 'KSampler' } }, { json: { cls: 'Missing' } }],
		);
		expect(result.status).toBe('error');
		const error = result.error('Node');
		expect(error?.message).toBe('Node class "Missing" is not in the cloud\'s node definitions');
		expect((error as { context?: { itemIndex?: number } }).context?.itemIndex).toBe(1);
	});

	it('maps a rejected key to a message that names the credential, never the key', async () => {
		const credential = harness.addCredential('hostCloudApi', hostCloudApiCredential({ apiKey: 'wrong-key-999', baseUrl: server.url }));
		const result = await harness.runNode({
			type: 'hostCloud',
			parameters: { resource: 'system', operation: 'getNodeDefinitions' },
			credentials: { hostCloudApi: credential },
		});
		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toMatch(
			/^The API key was rejected while reading the node definitions \(HTTP 401\): Invalid API key$/,
		);
		expect(JSON.stringify(result.run.data)).not.toContain('wrong-key-999');
	});
});
