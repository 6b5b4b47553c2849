/**
 * Ids become URL path segments in one place, which refuses what cannot be one: ".", ".." (also
 * percent-encoded), a slash or backslash, a control character. From a parameter, the item fails
 * naming its field and nothing is sent; from a service's answer, nothing is sent with it.
 */
import { EngineHarness } from '../../support/engine';
import { txt2img } from '../../support/cloud';
import { sendJson, startHostileService, type HostileService } from '../../support/hostile-service';
import { locator } from '../../support/registry-node';
import { hostApiCredential, hostCloudApiCredential } from '../../support/credential-fixtures';

const harness = new EngineHarness();
let service: HostileService;
let cloudCredential: string;
let apiCredential: string;

const BAD_IDS: Array<[string, string]> = [
	['..', 'cannot be ".." (it would name another path)'],
	['.', 'cannot be "." (it would name another path)'],
	['%2e%2E', 'cannot be ".." (it would name another path)'],
	['a\\b', 'must not contain "/" or "\\"'],
	['a%2Fb', 'must not contain "/" or "\\"'],
	['a\u0007b', 'must not contain control characters'],
];

beforeAll(async () => {
	service = await startHostileService((req, res) => {
		const path = req.url.split('?')[0]!;
		// A service whose every id is "..".
		if (req.method === 'POST' && path === '/api/prompt') return sendJson(res, 200, { prompt_id: '..', number: 1, node_errors: {} });
		if (req.method === 'POST' && path === '/proxy/video/extend') return sendJson(res, 200, { task_id: '..', state: 'created', credits: 1 });
		sendJson(res, 404, { error: 'not_found', message: `no route ${path}` });
	});
	cloudCredential = harness.addCredential(
		'hostCloudApi',
		hostCloudApiCredential({ apiKey: 'cloud-key-path-segments-01', baseUrl: service.url }),
	);
	apiCredential = harness.addCredential(
		'hostApi',
		hostApiCredential({
			accessToken: 'access-token-path-segments',
			registryUrl: service.url,
			publisherId: 'acme',
		}),
	);
});
afterEach(() => {
	service.seen.length = 0;
});
afterAll(async () => {
	await service.close();
});

const run = (type: 'hostCloud' | 'hostMedia' | 'hostRegistry', parameters: Record<string, unknown>) =>
	harness.runNode({
		type,
		parameters: parameters as never,
		credentials: type === 'hostCloud' ? { hostCloudApi: cloudCredential } : { hostApi: apiCredential },
		continueOnFail: true,
	});

describe.each(BAD_IDS)('the id %j', (id, words) => {
	test('as a Prompt ID (Host Cloud, Get Status) is refused by name, nothing sent', async () => {
		const result = await run('hostCloud', { resource: 'workflow', operation: 'getStatus', promptId: id });
		expect(result.items[0]!.json.error).toMatch(/^Prompt ID /);
		if (!id.includes('%') && !id.includes('\\') && !id.includes('\u0007')) expect(result.items[0]!.json.error).toContain(words);
		expect(service.seen).toHaveLength(0);
	});

	test('as a video Task ID (Host Media, Get Task Status) is refused by name, nothing sent', async () => {
		const result = await run('hostMedia', { resource: 'video', operation: 'getTaskStatus', taskId: id });
		expect(result.items[0]!.json.error).toBe(`Task ID ${words} (got "${id}")`);
		expect(service.seen).toHaveLength(0);
	});

	test('as a Node ID (Host Registry, Update) is refused by name, nothing sent', async () => {
		const result = await run('hostRegistry', {
			resource: 'node',
			operation: 'update',
			publisher: locator('acme', 'id'),
			node: locator(id, 'id'),
			updateFields: { description: 'x' },
		});
		expect(result.items[0]!.json.error).toMatch(new RegExp(`^Node.* ${words.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
		expect(service.seen).toHaveLength(0);
	});
});

describe('ids from a service’s answer', () => {
	test('a prompt_id ".." fails the item and is never put into a path', async () => {
		const result = await run('hostCloud', {
			resource: 'workflow',
			operation: 'execute',
			workflow: JSON.stringify(txt2img()),
			waitOptions: { useWebSocket: false, pollIntervalSeconds: 0.05 },
		});
		expect(result.items[0]!.json.error).toBe(
			'The service accepted the workflow but its prompt_id cannot be ".." (it would name another path), so the job cannot be followed',
		);
		expect(service.seen.filter((request) => request.method === 'GET' && request.url.startsWith('/api/job'))).toHaveLength(0);
	});

	test('a task_id ".." fails the item and is never put into a path', async () => {
		const result = await run('hostMedia', {
			resource: 'video',
			operation: 'extend',
			model: 'videoq2-pro',
			videoUrl: 'https://videos.example.com/a.mp4',
			videoCreationId: 'creation-1',
			waitMode: 'poll',
		});
		expect(result.items[0]!.json.error).toMatch(
			/^The service accepted the .* but its task ID cannot be "\.\." \(it would name another path\), so its status cannot be read$/,
		);
		expect(service.seen.filter((request) => request.method === 'GET')).toHaveLength(0);
	});
});
