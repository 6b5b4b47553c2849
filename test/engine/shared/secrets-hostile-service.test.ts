/**
 * Secrets against a service that misbehaves: it redirects API calls to another host, echoes a
 * secret deep in a long error body, or echoes one in a successful answer. The credential must
 * never reach the other host, and no secret may land in a message or an output item.
 */
import type { IDataObject } from 'n8n-workflow';
import type { ServerResponse } from 'node:http';

import { EngineHarness } from '../../support/engine';
import { echoForms, startHostileService, type HostileService, type SeenRequest } from '../../support/hostile-service';
import { archiveItem, locator } from '../../support/registry-node';
import { hostApiCredential, hostCloudApiCredential, selfHostedCredential } from '../../support/credential-fixtures';

const API_KEY = 'cloud-key-0123456789-abcdefghij';
const ACCESS_TOKEN = 'access-token-0123456789-abcdef';
const REPOHOST = 'repohost-token-0123456789-abcd';
const PUBLISHING = 'publishing-token-0123456789-ab';
const TASK_ID = '0b6c8d9e-1f2a-4b3c-8d4e-5f6a7b8c9d0e';

let echoFormsInQueue = false;
let elsewhere: HostileService;
let service: HostileService;
const harness = new EngineHarness();
let cloudCredential: string;
let apiCredential: string;

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
	res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
	res.end(JSON.stringify(body));
}

function answer(req: SeenRequest, res: ServerResponse): void {
	const path = req.url.split('?')[0]!;
	if (path === '/api/job/moved/status' || path === `/proxy/imaging/v1/ai/image-upscaler/${TASK_ID}`) {
		return send(res, 302, {}, { Location: `${elsewhere.url}/collect?from=${encodeURIComponent(path)}` });
	}
	// Host Registry calls that carry the publishing token (create a version) or the code-hosting token (claim).
	if (path === '/publishers/acme/nodes/moved/versions' || path === '/publishers/acme/nodes/moved/claim-my-node') {
		return send(res, 307, {}, { Location: `${elsewhere.url}/collect?from=${encodeURIComponent(path)}` });
	}
	if (path === '/api/job/same-host/status') return send(res, 301, {}, { Location: '/v2/api/job/same-host/status' });
	if (path === '/api/job/long-error/status') {
		// Plain text (an error page, say) is what gets clipped, at 500 characters: here inside the key.
		res.writeHead(400, { 'Content-Type': 'text/plain' });
		res.end(`${'x'.repeat(490)} key ${API_KEY} tail of the page`);
		return;
	}
	if (path === '/api/queue' && echoFormsInQueue) {
		const forms = echoForms(API_KEY);
		const echo = {
			query: `?key=${forms.urlEncoded}`,
			nested: `{"key":"${forms.jsonEscaped}"}`,
			basic: `Basic ${Buffer.from(`user:${API_KEY}`).toString('base64')}`,
			[`by-${forms.base64Url}`]: 'a key named after the secret',
		};
		return send(res, 200, { queue_running: [], queue_pending: [{ number: 3, prompt_id: 'p-3', extra_data: echo }] });
	}
	if (path === '/api/queue') {
		return send(res, 200, {
			queue_running: [[1, 'p-1', {}, { client_id: 'c', api_key_host_org: API_KEY }, ['9']]],
			queue_pending: [{ number: 2, prompt_id: 'p-2', extra_data: { api_key_host_org: API_KEY } }],
		});
	}
	if (req.method === 'POST' && path === '/proxy/imaging/v1/ai/image-upscaler') {
		// Echoes the resume URL it was given, URL-encoded, and its signature on its own.
		const resumeUrl = String((JSON.parse(req.body || '{}') as { webhook_url?: string }).webhook_url ?? '');
		const signature = new URL(resumeUrl).searchParams.get('signature') ?? '';
		return send(res, 400, { error: 'bad_webhook', message: `webhook ${encodeURIComponent(resumeUrl)} refused (signature ${signature})` });
	}
	if (path === '/publishers/acme/nodes/orphan/claim-my-node') {
		return send(res, 200, {
			message: 'Node claimed',
			request: JSON.parse(req.body || '{}') as unknown,
			note: `token ${REPOHOST} accepted`,
		});
	}
	return send(res, 404, { error: 'not_found', message: `no route ${path}` });
}

beforeAll(async () => {
	elsewhere = await startHostileService((_req, res) => send(res, 200, { stolen: true }));
	service = await startHostileService(answer);
	cloudCredential = harness.addCredential('hostCloudApi', hostCloudApiCredential({ apiKey: API_KEY, baseUrl: service.url }));
	apiCredential = harness.addCredential(
		'hostApi',
		hostApiCredential({
			accessToken: ACCESS_TOKEN,
			registryUrl: service.url,
			publisherId: 'acme',
			repohostToken: REPOHOST,
			publishingToken: PUBLISHING,
		}),
	);
});

afterEach(() => {
	service.seen.length = 0;
	elsewhere.seen.length = 0;
});

afterAll(async () => {
	await service.close();
	await elsewhere.close();
});

const runCloud = (parameters: Record<string, unknown>) =>
	harness.runNode({ type: 'hostCloud', parameters: parameters as never, credentials: { hostCloudApi: cloudCredential } });
const runApi = (type: 'hostMedia' | 'hostRegistry', parameters: Record<string, unknown>) =>
	harness.runNode({ type, parameters: parameters as never, credentials: { hostApi: apiCredential } });

function expectNoSecret(value: unknown, others: string[] = []): void {
	const text = JSON.stringify(value);
	for (const secret of [API_KEY, ACCESS_TOKEN, REPOHOST, PUBLISHING, ...others]) {
		for (const [form, echoed] of Object.entries(echoForms(secret))) {
			// Not even a part of a credential's secret: a clipped message must not leave a readable prefix.
			const part = others.includes(secret) ? echoed : echoed.slice(0, 12);
			expect({ form, found: text.includes(part) }).toEqual({ form, found: false });
		}
	}
}

describe('redirects of API calls are not followed', () => {
	it('Host Cloud: a status call redirected to another host fails, and that host sees nothing', async () => {
		const result = await runCloud({ resource: 'workflow', operation: 'getStatus', promptId: 'moved' });
		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toBe(
			`The service answered with a redirect (HTTP 302) to ${elsewhere.url} while reading the status of job moved; the node does not follow it, so the credential is never sent elsewhere`,
		);
		expect(elsewhere.seen).toHaveLength(0);
		expect(service.seen[0]!.headers['x-api-key']).toBe(API_KEY);
		expectNoSecret(result.run.data);
	});

	it('Host Media: a task status call redirected to another host fails, and that host sees nothing', async () => {
		const result = await runApi('hostMedia', {
			resource: 'image',
			operation: 'getTaskStatus',
			taskType: 'image-upscaler',
			taskId: TASK_ID,
		});
		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toMatch(new RegExp(`^The service answered with a redirect \\(HTTP 302\\) to ${elsewhere.url} `));
		expect(elsewhere.seen).toHaveLength(0);
		expectNoSecret(result.run.data);
	});

	it('Host Registry: publishing a version (the publishing token in its body) redirected to another host fails, and that host sees nothing', async () => {
		const result = await harness.runNode(
			{
				type: 'hostRegistry',
				parameters: {
					resource: 'nodeVersion',
					operation: 'publish',
					publisher: locator('acme', 'id'),
					node: locator('moved', 'id'),
					version: '1.0.0',
				} as never,
				credentials: { hostApi: apiCredential },
			},
			[archiveItem()],
		);
		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toMatch(new RegExp(`^The service answered with a redirect \\(HTTP 307\\) to ${elsewhere.url} `));
		const [sent] = service.seen;
		expect(JSON.parse(sent!.body).personal_access_token).toBe(PUBLISHING);
		expect(elsewhere.seen).toHaveLength(0);
		expectNoSecret(result.run.data);
	});

	it('Host Registry: a claim (the code-hosting token in its body) redirected to another host fails, and that host sees nothing', async () => {
		const result = await runApi('hostRegistry', {
			resource: 'node',
			operation: 'claim',
			publisher: locator('acme', 'id'),
			node: locator('moved', 'id'),
		});
		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toMatch(new RegExp(`^The service answered with a redirect \\(HTTP 307\\) to ${elsewhere.url} `));
		expect(JSON.parse(service.seen[0]!.body)).toEqual({ REPOHOST_TOKEN: REPOHOST });
		expect(elsewhere.seen).toHaveLength(0);
		expectNoSecret(result.run.data);
	});

	it('a self-hosted server: a call with the proxy headers redirected to another host fails, and that host sees nothing', async () => {
		const PROXY_TOKEN = 'proxy-token-0123456789-abcdef';
		const redirecting = await startHostileService((req, res) =>
			send(res, 302, {}, { Location: `${elsewhere.url}/collect?from=${encodeURIComponent(req.url)}` }),
		);
		try {
			const credential = harness.addCredential(
				'hostCloudApi',
				selfHostedCredential({
					serverUrl: redirecting.url,
					proxyHeaders: { values: [{ name: 'X-Proxy-Token', value: PROXY_TOKEN }] },
				}),
			);
			const result = await harness.runNode({
				type: 'hostCloud',
				parameters: { resource: 'queue', operation: 'get' } as never,
				credentials: { hostCloudApi: credential },
			});
			expect(result.status).toBe('error');
			expect(result.error('Node')?.message).toMatch(
				new RegExp(`^The service answered with a redirect \\(HTTP 302\\) to ${elsewhere.url} `),
			);
			expect(redirecting.seen.map((req) => req.headers['x-proxy-token'])).toEqual([PROXY_TOKEN]);
			expect(elsewhere.seen).toHaveLength(0);
			expectNoSecret(result.run.data, [PROXY_TOKEN]);
		} finally {
			await redirecting.close();
		}
	});

	it('a redirect within the same host is not followed either, and says so', async () => {
		const result = await runCloud({ resource: 'workflow', operation: 'getStatus', promptId: 'same-host' });
		expect(result.error('Node')?.message).toMatch(/^The service answered with a redirect \(HTTP 301\) to another path on the same host /);
		expect((result.error('Node') as { description?: string }).description).toMatch(/URL in the credential/);
		expect(service.seen).toHaveLength(1);
	});
});

describe('echoed secrets', () => {
	it('a secret past the clipping point of a long error body is not left half readable', async () => {
		const result = await runCloud({ resource: 'workflow', operation: 'getStatus', promptId: 'long-error' });
		const message = result.error('Node')?.message ?? '';
		expect(message).toBe(
			`The service rejected the request as invalid while reading the status of job long-error (HTTP 400): ${'x'.repeat(490)} key *** t… [cut: 515 characters in all]`,
		);
		expectNoSecret(result.run.data);
	});

	it('Queue → Get: the API key inside queue entries (object or list shaped) is not in the output', async () => {
		const result = await runCloud({ resource: 'queue', operation: 'get' });
		expect(result.status).toBe('success');
		// Both entries are listed, reduced to their number, prompt_id and output nodes: no extra_data, where the key was.
		expect(result.items[0]!.json).toMatchObject({ running_count: 1, pending_count: 1 });
		expectNoSecret(result.items);
	});

	it('Claim: a success answer that echoes the code-hosting token has it replaced', async () => {
		const result = await runApi('hostRegistry', {
			resource: 'node',
			operation: 'claim',
			publisher: locator('acme', 'id'),
			node: locator('orphan', 'id'),
		});
		expect(result.status).toBe('success');
		expect(JSON.parse(service.seen[0]!.body)).toEqual({ REPOHOST_TOKEN: REPOHOST });
		expect(result.items[0]!.json.note).toBe('token *** accepted');
		expectNoSecret(result.items);
	});
});

describe('secrets echoed in another encoding', () => {
	it('Host Cloud: the API key URL-encoded, JSON-escaped, inside Base64 and in an object key reaches neither the item nor the run data', async () => {
		echoFormsInQueue = true;
		const result = await runCloud({ resource: 'queue', operation: 'get' });
		echoFormsInQueue = false;
		expect(result.status).toBe('success');
		// Queue → Get passes no entry's extra_data on (where a server shows whoever submitted a job):
		// the echoed forms stay out of the item whatever the redaction (test/unit/shared/transport/redaction.test.ts: the spellings).
		const pending = (result.items[0]!.json.pending as IDataObject[])[0]!;
		expect(pending).not.toHaveProperty('extra_data');
		expectNoSecret(result.run.data);
	});

	it('Host Media: the resume URL echoed URL-encoded, and its signature on its own, are not in the message', async () => {
		const result = await harness.run(
			{
				nodes: [
					{
						name: 'Node',
						type: 'hostMedia',
						parameters: {
							resource: 'image',
							operation: 'upscale',
							imageSource: 'url',
							imageUrl: `${service.url}/input.png`,
							scaleFactor: '4x',
							waitMode: 'webhook',
						} as never,
						credentials: { hostApi: apiCredential },
					},
				],
			},
			{ webhookWaitingBaseUrl: `${service.url}/webhook-waiting` },
		);
		const sent = JSON.parse(service.seen.find((req) => req.url.startsWith('/proxy/imaging'))!.body) as { webhook_url: string };
		const signature = new URL(sent.webhook_url).searchParams.get('signature')!;
		expect(signature).toMatch(/^[0-9a-f]{64}$/);
		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toMatch(/\(HTTP 400\): webhook \*\*\* refused \(signature \*\*\*\)$/);
		// n8n keeps the execution's own resume token in its run data; everything else must be clean.
		const { resumeToken, ...shown } = result.run.data as typeof result.run.data & { resumeToken?: string };
		expect(resumeToken).toBe(signature);
		expectNoSecret(shown, [sent.webhook_url, signature]);
	});
});

describe('a self-hosted server’s proxy headers: the parts of a value are secrets too', () => {
	const BEARER = 'proxy-bearer-token-0123456789';
	const USER = 'gateway-user';
	const PASSWORD = 'gateway-password-98765';
	const BASIC = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');
	let echoing: HostileService;

	beforeAll(async () => {
		// A proxy that refuses every request and echoes back each part of the Authorization header it got.
		echoing = await startHostileService((req, res) => {
			const [scheme = '', token = ''] = String(req.headers.authorization ?? '').split(' ');
			const decoded = scheme === 'Basic' ? Buffer.from(token, 'base64').toString('utf8') : '';
			send(res, 403, {
				error: 'forbidden',
				message: `token ${token} refused; decoded ${decoded}; password ${decoded.split(':')[1] ?? ''}`,
			});
		});
	});
	afterAll(async () => {
		await echoing.close();
	});

	it.each([
		['Bearer', `Bearer ${BEARER}`, [BEARER]],
		['Basic', `Basic ${BASIC}`, [BASIC, `${USER}:${PASSWORD}`, PASSWORD]],
	])('an Authorization: %s value echoed in parts leaves none of them in the item', async (_scheme, value, parts) => {
		const credential = harness.addCredential(
			'hostCloudApi',
			selfHostedCredential({
				serverUrl: echoing.url,
				proxyHeaders: { values: [{ name: 'Authorization', value }] },
			}),
		);
		const result = await harness.runNode({
			type: 'hostCloud',
			parameters: { resource: 'queue', operation: 'get' } as never,
			credentials: { hostCloudApi: credential },
		});
		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toMatch(/token \*\*\* refused/);
		expectNoSecret(result.run.data, parts);
	});
});
