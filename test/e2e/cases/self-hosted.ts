/**
 * Host Cloud on a self-hosted ComfyUI-compatible server, in n8n: a second simulator in the
 * self-hosted flavour behind a reverse proxy that wants a header, a Host Cloud API credential for it
 * created through n8n's REST API, its test (the editor's "Test" button), and the self-hosted example
 * run as a user would after picking that credential.
 */
import { e2e } from '../support/context';
import { describeFailure } from '../support/n8n-client';
import { imageFromServer, SELF_HOSTED_EXAMPLE, startSelfHostedServer, type SelfHostedServer } from '../support/self-hosted';
import { loadExamples } from '../support/workflows';

const WRONG_PROXY_VALUE = 'wrong-proxy-token-e2e-0004';

describe('Host Cloud on a self-hosted server in n8n', () => {
	let server: SelfHostedServer | undefined;
	function started(): SelfHostedServer {
		if (!server) throw new Error('The self-hosted server did not start (see the first error above)');
		return server;
	}

	beforeAll(async () => {
		server = await startSelfHostedServer(e2e());
	});

	afterAll(async () => {
		await server?.close();
	});

	it('the credential test passes with the proxy header, and n8n asked the server with it and no API key', async () => {
		const { client } = e2e();
		const { simulator, credential, proxyHeader } = started();
		const before = simulator.requests.length;
		const result = await client.testCredential(credential);
		expect(result).toEqual({ status: 'OK', message: expect.any(String) });
		const seen = simulator.requests.slice(before);
		expect(seen.map((request) => `${request.method} ${request.path} → ${request.status}`)).toEqual(['GET /api/object_info/KSampler → 200']);
		expect(seen[0]!.headers[proxyHeader.name.toLowerCase()]).toBe(`***(${proxyHeader.value.length})`);
		expect(seen[0]!.headers['x-api-key']).toBeUndefined();
	});

	it.each([
		['without the proxy header', () => []],
		['with a wrong proxy header value', (name: string) => [{ name, value: WRONG_PROXY_VALUE }]],
	])('the credential test fails %s, with the 401 message that points at the Proxy Headers', async (_label, headers) => {
		const { client } = e2e();
		const { simulator, credential, proxyHeader } = started();
		const before = simulator.requests.length;
		const result = await client.testCredential(credential, { proxyHeaders: { values: headers(proxyHeader.name) } });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/\(401\)/);
		expect(result.message).toMatch(/reverse proxy refused the request: check the Proxy Headers/);
		expect(result.message).not.toContain(WRONG_PROXY_VALUE);
		// The proxy turned n8n's request away (n8n repeats a request answered 401 once): the server itself never answered.
		const seen = simulator.requests.slice(before).map((request) => `${request.path} → ${request.status}`);
		expect(seen.length).toBeGreaterThan(0);
		expect([...new Set(seen)]).toEqual(['/api/object_info/KSampler → 401']);
	});

	it('the self-hosted example runs on the server: the image as binary data with the bytes the server serves, its url on the server', async () => {
		const stack = e2e();
		const { simulator, credential, proxyHeader } = started();
		const example = loadExamples().find((entry) => entry.file === SELF_HOSTED_EXAMPLE);
		if (!example) throw new Error(`examples/${SELF_HOSTED_EXAMPLE} is missing`);
		const workflow = await stack.importWorkflow(example.workflow, `${example.workflow.name} (e2e, self-hosted case)`, {
			hostCloudApi: credential,
		});
		const cloudRequestsBefore = stack.simulator.requests.length;
		const requestsBefore = simulator.requests.length;
		const handshakesBefore = simulator.cloud.wsHandshakes.length;

		const execution = await stack.client.runWorkflow(workflow.id, { timeoutMs: 120000 });
		// What n8n sent the server (the test's own requests below come after).
		const requests = simulator.requests.slice(requestsBefore).filter((request) => request.host === 'service');

		expect(describeFailure(execution)).toBe('succeeded');
		const { item, url } = await imageFromServer(execution, 'Text to Image', stack, started());
		expect(item.json.status).toBe('completed');
		expect(simulator.cloud.jobs.get(String(item.json.prompt_id))?.status).toBe('completed');
		// The url is the server's own: without the proxy's header it is refused.
		expect((await fetch(url)).status).toBe(401);

		// Every request n8n made went through the proxy with its header, and none carried an API key.
		expect(requests.map((request) => request.path)).toEqual(expect.arrayContaining(['/api/prompt', '/api/view']));
		for (const request of requests) {
			expect(`${request.method} ${request.path}: ${request.headers[proxyHeader.name.toLowerCase()]}`).toBe(
				`${request.method} ${request.path}: ***(${proxyHeader.value.length})`,
			);
			expect(`${request.method} ${request.path}: ${request.headers['x-api-key']}`).toBe(`${request.method} ${request.path}: undefined`);
		}
		// The progress WebSocket too: the proxy let its upgrade through (it refuses one without the header), with no token.
		const handshakes = simulator.cloud.wsHandshakes.slice(handshakesBefore);
		expect(handshakes.length).toBeGreaterThan(0);
		expect(handshakes.filter((handshake) => !handshake.accepted || handshake.token !== '')).toEqual([]);
		// Nothing of it went to the Host cloud.
		expect(stack.simulator.requests.slice(cloudRequestsBefore).filter((request) => request.path.startsWith('/api/'))).toEqual([]);
	});
});
