/**
 * A credential test passes only on an answer shaped like the service's: a 2xx web page (a login
 * form, a website's catch-all page), an empty answer, or JSON that is not the registry's node
 * listing (or, for Host Cloud API, not node definitions) is no working credential. Each credential is tested as n8n tests it, against a loopback
 * service answering 200 with what the service never sends.
 */
import type { ServerResponse } from 'node:http';

import { EngineHarness } from '../../support/engine';
import { sendJson, startHostileService, type HostileService } from '../../support/hostile-service';
import { hostApiCredential, hostCloudApiCredential, selfHostedCredential } from '../../support/credential-fixtures';

const API_KEY = 'cloud-key-answer-test-0123456789';
const ACCESS_TOKEN = 'access-token-answer-test-0123456789';
const PAGE = '<!doctype html><html><head><title>Sign in</title></head><body><form>Sign in</form></body></html>';

const harness = new EngineHarness();
let service: HostileService;
let answer: (res: ServerResponse) => void;

beforeAll(async () => {
	service = await startHostileService((_req, res) => answer(res));
});

afterEach(() => {
	service.seen.length = 0;
});

afterAll(async () => {
	await service.close();
});

const webPage = (res: ServerResponse) => {
	res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
	res.end(PAGE);
};
const empty = (res: ServerResponse) => {
	res.writeHead(200, { 'Content-Type': 'text/plain' });
	res.end();
};
const json = (body: unknown) => (res: ServerResponse) => sendJson(res, 200, body);

const testHostApi = () =>
	harness.testCredential('hostApi', hostApiCredential({ accessToken: ACCESS_TOKEN, registryUrl: service.url, publisherId: 'acme' }));

describe('Host API: a 2xx passes only as the registry\u2019s node listing', () => {
	it.each([
		['a web page', webPage, /Registry URL answered with a web page or text, not the API's JSON answer/],
		['an empty answer', empty, /Registry URL answered with a web page or text/],
		['JSON without a list of nodes', json({ status: 'ok' }), /not with the registry's list of nodes/],
		['nodes that are no list', json({ nodes: { 'node-1': {} }, page: 1 }), /not with the registry's list of nodes/],
		['nodes as text', json({ nodes: 'node-1' }), /not with the registry's list of nodes/],
		['a list of other things', json([{ id: 'x' }]), /not with the registry's list of nodes/],
	])('fails on %s, in words, with one request', async (_case, send, words) => {
		answer = send;
		const result = await testHostApi();
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(words);
		expect(result.message).not.toContain(ACCESS_TOKEN);
		expect(service.seen).toHaveLength(1);
		expect(service.seen[0]!.url).toBe('/publishers/acme/nodes/v2?page=1&limit=1');
	});

	it('passes on the registry\u2019s listing', async () => {
		answer = json({ limit: 1, nodes: [], page: 1, total: 0, totalPages: 0 });
		expect(await testHostApi()).toEqual({ status: 'OK', message: 'Connection successful!' });
	});
});

describe('Host Cloud API: a 2xx passes only as node definitions', () => {
	const servers = [
		['the cloud', () => hostCloudApiCredential({ apiKey: API_KEY, baseUrl: service.url }), '/api/object_info'],
		['a self-hosted server', () => selfHostedCredential({ serverUrl: service.url }), '/api/object_info/KSampler'],
	] as const;

	it.each(servers)('%s: fails on a web page or an empty answer, in words', async (_case, credential, path) => {
		for (const send of [webPage, empty]) {
			answer = send;
			const result = await harness.testCredential('hostCloudApi', credential());
			expect(result.status).toBe('Error');
			expect(result.message).toMatch(/Base URL \/ Server URL answered with a web page or text, not the API's JSON answer/);
			expect(result.message).not.toContain(API_KEY);
		}
		expect(service.seen.map((req) => req.url)).toEqual([path, path]);
	});

	it.each(servers)(
		'%s: fails on JSON that is no node definitions (a status, system stats, a list, an empty object), in words',
		async (_case, credential) => {
			for (const body of [
				{ status: 'ok' },
				{ system: { os: 'posix' }, devices: [] },
				[{ KSampler: {} }],
				{},
				{ KSampler: { output: 'IMAGE' } },
			]) {
				answer = json(body);
				const result = await harness.testCredential('hostCloudApi', credential());
				expect(result.status).toBe('Error');
				expect(result.message).toMatch(/answered, but not with node definitions \(no core node KSampler\)/);
			}
		},
	);

	it.each(servers)('%s: passes on node definitions', async (_case, credential) => {
		answer = json({ KSampler: { input: { required: {} }, output: ['LATENT'], output_name: ['LATENT'], name: 'KSampler' } });
		expect(await harness.testCredential('hostCloudApi', credential())).toEqual({ status: 'OK', message: 'Connection successful!' });
	});
});
