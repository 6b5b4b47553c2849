/**
 * Attack: registry answers that are well formed, within every bound, and about another thing than
 * the one asked (a proxy or cache in front of the registry that mixes up answers, a reply meant
 * for another request). Publish, Update Node, Update Version and Update Publisher run through
 * n8n's engine against a hostile loopback registry; the answer must not be passed on as the thing
 * asked, and Publish must not upload the archive to an address given for another version.
 */
import type { ServerResponse } from 'node:http';

import { EngineHarness } from '../../support/engine';
import { hostApiCredential } from '../../support/credential-fixtures';
import { sendJson, startHostileService, type HostileService, type SeenRequest } from '../../support/hostile-service';
import { archiveItem, locator, runRegistry } from '../../support/registry-node';

const PUBLISHING_TOKEN = 'publishing-token-attack-0123456789';

const harness = new EngineHarness();
let registry: HostileService;
let storage: HostileService;
let credential: string;
let answer: (req: SeenRequest, res: ServerResponse) => void;

beforeAll(async () => {
	storage = await startHostileService((_req, res) => sendJson(res, 200, {}));
	registry = await startHostileService((req, res) => answer(req, res));
	credential = harness.addCredential(
		'hostApi',
		hostApiCredential({ accessToken: 'access-token-attack', registryUrl: registry.url, publisherId: 'acme', publishingToken: PUBLISHING_TOKEN }),
	);
});

beforeEach(() => {
	registry.seen.length = 0;
	storage.seen.length = 0;
});

afterAll(async () => {
	await registry.close();
	await storage.close();
});

describe('Publish against a registry whose answer is about another version', () => {
	it('does not report version 0.0.9 of node "other-node" as the published 1.0.0 of "my-node", nor upload the archive to its address', async () => {
		answer = (_req, res) =>
			sendJson(res, 201, {
				node_version: { id: 'v-other', node_id: 'other-node', version: '0.0.9', status: 'NodeVersionStatusPending' },
				signedUrl: `${storage.url}/o/other-node-0.0.9.zip?signature=abc`,
			});
		const result = await runRegistry(
			harness,
			credential,
			{ resource: 'nodeVersion', operation: 'publish', publisher: locator('acme'), node: locator('my-node', 'id'), version: '1.0.0' },
			[archiveItem()],
			true,
		);
		const item = result.items[0]!.json;
		// What a user sees today: the archive PUT to the other version's address, and a success item
		// saying version "0.0.9" of node "other-node".
		expect(storage.seen.map((request) => `${request.method} ${request.url}`)).toEqual([]);
		expect(item.version).not.toBe('0.0.9');
		expect(item.error).toMatch(/0\.0\.9|other-node/);
	});
});

describe('Updates against a registry whose answer is about another entity', () => {
	it.each([
		[
			'Update Node',
			{ resource: 'node', operation: 'update', publisher: locator('acme'), node: locator('my-node', 'id'), updateFields: { name: 'Mine' } },
			{ id: 'other-node', name: 'Someone else\u2019s node' },
		],
		[
			'Update Version',
			{
				resource: 'nodeVersion',
				operation: 'update',
				publisher: locator('acme'),
				node: locator('my-node', 'id'),
				versionId: 'v-mine',
				updateFields: { changelog: 'Fixed' },
			},
			{ id: 'v-other', node_id: 'other-node', version: '9.9.9', changelog: 'Not mine' },
		],
		[
			'Update Publisher',
			{ resource: 'publisher', operation: 'update', publisher: locator('acme'), updateFields: { name: 'Acme' } },
			{ id: 'someone-else', name: 'Someone else' },
		],
	])('%s: an answer naming another id is not passed on as the entity changed', async (_case, parameters, other) => {
		answer = (_req, res) => sendJson(res, 200, other);
		const result = await runRegistry(harness, credential, parameters, undefined, true);
		expect(registry.seen).toHaveLength(1);
		const item = result.items[0]!.json;
		expect(item.id).not.toBe(other.id);
		expect(item.error).toEqual(expect.stringContaining(other.id));
	});
});
