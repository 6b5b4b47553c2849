/**
 * Server → List Models against a hostile self-hosted server (a loopback server that answers what
 * each test sets): a huge list, or huge names, never becomes an unbounded item. At most
 * MAX_LISTED_NAMES names of MAX_LISTED_CHARS characters in all are listed, each once; the others
 * are counted in `folders_not_listed` / `models_not_listed`. The editor's Folder list keeps the same bounds.
 */
import type { ServerResponse } from 'node:http';

import { MAX_LISTED_CHARS, MAX_LISTED_NAMES } from '../../../nodes/HostCloud/helpers/server/controls';
import { EngineHarness } from '../../support/engine';
import { selfHostedCredential } from '../../support/credential-fixtures';
import { sendJson, startHostileService, type HostileService } from '../../support/hostile-service';

const harness = new EngineHarness();
let service: HostileService;
let credential: string;
let answers: Record<string, unknown>;

beforeAll(async () => {
	service = await startHostileService((request, res: ServerResponse) => {
		const path = request.url.split('?')[0]!.replace(/^\/api/, '');
		if (request.method === 'GET' && path in answers) return sendJson(res, 200, answers[path]);
		return sendJson(res, 404, { error: 'no route' });
	});
	credential = harness.addCredential('hostCloudApi', selfHostedCredential({ serverUrl: service.url, proxyHeaders: { values: [] } }));
});

afterAll(async () => await service.close());

const listModels = (parameters: Record<string, unknown>) =>
	harness.runNode({
		type: 'hostCloud',
		parameters: { resource: 'server', operation: 'listModels', ...parameters } as never,
		credentials: { hostCloudApi: credential },
	});

const charsOf = (names: string[]) => names.reduce((sum, name) => sum + name.length, 0);

test('All Folders: 50,000 folder names (each twice) give one item of at most 10,000, each once, and the rest counted', async () => {
	const names = Array.from({ length: 50_000 }, (_, n) => `folder-${n}`);
	answers = { '/models': [...names, ...names] };
	const result = await listModels({ scope: 'allFolders' });

	expect(result.status).toBe('success');
	const json = result.items[0]!.json as { folders: string[]; folders_not_listed: number };
	expect(json.folders).toHaveLength(MAX_LISTED_NAMES);
	expect(new Set(json.folders).size).toBe(MAX_LISTED_NAMES);
	expect(json.folders).toEqual(names.slice(0, MAX_LISTED_NAMES));
	expect(json.folders_not_listed).toBe(50_000 - MAX_LISTED_NAMES);
});

test('One Folder: 3000 model names of 10,000 characters give names of 1024 characters at most, 1 Mi characters in all, the rest counted', async () => {
	const huge = Array.from({ length: 3000 }, (_, n) => `${n}-`.padEnd(10_000, 'x'));
	answers = { '/models/checkpoints': [...huge, 42, null, { name: 'not a name' }] };
	const result = await listModels({ scope: 'folder', folder: 'checkpoints' });

	const json = result.items[0]!.json as { folder: string; models: string[]; models_not_listed: number };
	expect(json.folder).toBe('checkpoints');
	expect(json.models.every((name) => name.length <= 1024 + 40)).toBe(true);
	expect(charsOf(json.models)).toBeLessThanOrEqual(MAX_LISTED_CHARS);
	expect(json.models.length + json.models_not_listed).toBe(3000);
	expect(json.models.length).toBeGreaterThan(900);
	expect(JSON.stringify(json).length).toBeLessThan(MAX_LISTED_CHARS + 100_000);
});

test('an ordinary listing is passed on whole, with nothing said of names left out', async () => {
	answers = { '/models/loras': ['a.safetensors', 'b.safetensors', 'a.safetensors'] };
	const result = await listModels({ scope: 'folder', folder: 'loras' });
	expect(result.items[0]!.json).toEqual({ folder: 'loras', models: ['a.safetensors', 'b.safetensors'] });
});

test("the editor's Folder list keeps the same bounds", async () => {
	answers = { '/models': Array.from({ length: 50_000 }, (_, n) => `folder-${n}`) };
	const options = await harness.loadOptions(
		{
			name: 'Node',
			type: 'hostCloud',
			parameters: { resource: 'server', operation: 'listModels' } as never,
			credentials: { hostCloudApi: credential },
		},
		'getModelFolders',
		'parameters.folder',
	);
	expect(options).toHaveLength(MAX_LISTED_NAMES);
});
