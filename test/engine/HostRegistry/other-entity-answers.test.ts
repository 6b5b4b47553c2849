/**
 * Registry answers that are well formed, within every bound, and about another thing than the one
 * asked (a proxy or cache in front of the registry that mixes up answers, a reply meant for another
 * request). Publish, Update Node, Update Version, Create and Update Publisher run through n8n's
 * engine against a hostile loopback registry; the answer is not passed on as the thing asked, and
 * Publish uploads nothing to an address given for another version.
 */
import type { ServerResponse } from 'node:http';

import { EngineHarness } from '../../support/engine';
import { hostApiCredential } from '../../support/credential-fixtures';
import { sendJson, startHostileService, type HostileService, type SeenRequest } from '../../support/hostile-service';
import { archiveItem, locator, nodeError, runRegistry } from '../../support/registry-node';

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
		hostApiCredential({
			accessToken: 'access-token-attack',
			registryUrl: registry.url,
			publisherId: 'acme',
			publishingToken: PUBLISHING_TOKEN,
		}),
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
		expect(storage.seen.map((request) => `${request.method} ${request.url}`)).toEqual([]);
		expect(item.version).toBeUndefined();
		expect(item.error).toBe(
			'The registry\'s answer while publishing version 1.0.0 of node "my-node" is about another NodeVersion: its node ID is "other-node", not "my-node" as asked',
		);
	});

	it('says the version asked may have been created, though nothing was uploaded', async () => {
		answer = (_req, res) =>
			sendJson(res, 201, { node_version: { id: 'v-other', node_id: 'other-node', version: '0.0.9' }, signedUrl: `${storage.url}/o/x.zip` });
		const result = await runRegistry(
			harness,
			credential,
			{ resource: 'nodeVersion', operation: 'publish', publisher: locator('acme'), node: locator('my-node', 'id'), version: '1.0.0' },
			[archiveItem()],
		);
		expect(storage.seen).toHaveLength(0);
		expect(nodeError(result).description).toBe(
			'Nothing was read from this answer. Version 1.0.0 of node "my-node" may have been created all the same (the registry took the request), and no archive was uploaded. Check the node\'s versions in the registry: if 1.0.0 is there, it stays pending without its archive, so publish the archive as a new version number.',
		);
	});

	it('does not upload the archive for an answer naming the node asked but another version', async () => {
		answer = (_req, res) =>
			sendJson(res, 201, {
				node_version: { id: 'v-old', node_id: 'my-node', version: '0.9.0' },
				signedUrl: `${storage.url}/o/my-node-0.9.0.zip?signature=abc`,
			});
		const result = await runRegistry(
			harness,
			credential,
			{ resource: 'nodeVersion', operation: 'publish', publisher: locator('acme'), node: locator('my-node', 'id'), version: '1.0.0' },
			[archiveItem()],
			true,
		);
		expect(storage.seen).toHaveLength(0);
		expect(result.items[0]!.json.error).toMatch(/its version is "0\.9\.0", not "1\.0\.0" as asked$/);
	});

	it('still uploads for an answer that names neither node nor version, or names the ones asked', async () => {
		for (const nodeVersion of [{ id: 'v-1' }, { id: 'v-2', node_id: 'my-node', version: '1.0.0' }]) {
			answer = (_req, res) => sendJson(res, 201, { node_version: nodeVersion, signedUrl: `${storage.url}/o/${nodeVersion.id}.zip?s=1` });
			const result = await runRegistry(
				harness,
				credential,
				{ resource: 'nodeVersion', operation: 'publish', publisher: locator('acme'), node: locator('my-node', 'id'), version: '1.0.0' },
				[archiveItem()],
			);
			expect(result.items[0]!.json).toMatchObject({ id: nodeVersion.id, upload: { uploaded: true } });
		}
		expect(storage.seen.map((request) => request.url)).toEqual(['/o/v-1.zip?s=1', '/o/v-2.zip?s=1']);
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
		[
			'Create Publisher',
			{ resource: 'publisher', operation: 'create', publisherId: 'acme', name: 'Acme' },
			{ id: 'someone-else', name: 'Someone else' },
		],
	])('%s: an answer naming another id is not passed on as the entity changed', async (_case, parameters, other) => {
		answer = (_req, res) => sendJson(res, 200, other);
		const result = await runRegistry(harness, credential, parameters, undefined, true);
		expect(registry.seen).toHaveLength(1);
		const item = result.items[0]!.json;
		expect(item.id).not.toBe(other.id);
		expect(item.error).toMatch(new RegExp(`is about another \\w+: its ID is "${other.id}", not "\\S+" as asked$`));
	});

	it('Update Version: an answer about the version asked of another node is not passed on', async () => {
		answer = (_req, res) => sendJson(res, 200, { id: 'v-mine', node_id: 'other-node', changelog: 'Fixed' });
		const result = await runRegistry(
			harness,
			credential,
			{
				resource: 'nodeVersion',
				operation: 'update',
				publisher: locator('acme'),
				node: locator('my-node', 'id'),
				versionId: 'v-mine',
				updateFields: { changelog: 'Fixed' },
			},
			undefined,
			true,
		);
		expect(result.items[0]!.json.error).toBe(
			'The registry\'s answer while updating version "v-mine" of node "my-node" is about another NodeVersion: its node ID is "other-node", not "my-node" as asked',
		);
	});
});
