/**
 * Host Registry: publishing a node version (request, then the archive upload to the signed URL)
 * and updating a version, through n8n's real WorkflowExecute against the simulator. Secrets from
 * the credential must never show in an output item or an error.
 */
import { readFileSync } from 'node:fs';
import { gapAfterSlowDown, statusesOf } from '../../support/slow-down';
import { join } from 'node:path';

import { maskSecret } from '../../../simulator/shared/core';
import { DEFAULT_PUBLISHING_TOKEN } from '../../../simulator/registry/area';
import { startSimulator, type Simulator } from '../../../simulator/server';
import { EngineHarness } from '../../support/engine';
import { sendJson, startHostileService } from '../../support/hostile-service';
import { ZIP, archiveItem, locator, nodeError, registryCredential, runRegistry } from '../../support/registry-node';

let sim: Simulator;
const harness = new EngineHarness();

beforeAll(async () => {
	sim = await startSimulator({ extraAccounts: [{ id: 'user-2' }] });
});

beforeEach(() => {
	sim.reset();
	sim.registry.seedPublisher({ id: 'acme' });
});

afterAll(async () => {
	await sim.close();
});

function publish(parameters: Record<string, unknown> = {}) {
	return {
		resource: 'nodeVersion',
		operation: 'publish',
		publisher: locator('acme'),
		node: locator('my-node', 'id'),
		version: '1.0.0',
		...parameters,
	};
}

describe('publish', () => {
	it('creates the version, uploads the archive to the signed URL without credentials, and the v2 listing shows it', async () => {
		const credential = registryCredential(harness, sim);
		const result = await runRegistry(
			harness,
			credential,
			publish({
				versionFields: { changelog: 'First release', dependencies: ['numpy>=1.24', 'pillow'], supportedOs: ['linux'], deprecated: false },
				nodeFields: { name: 'My Node', repository: 'https://repohost.example/sim-user/my-node', tags: ['image'] },
			}),
			[archiveItem()],
		);
		expect(result.status).toBe('success');
		// n8n's default (filesystem) mode: the archive is streamed from its stored file.
		expect(result.output('Input')[0]!.binary!.data!.id).toBeDefined();
		expect(result.items).toHaveLength(1);
		const item = result.items[0]!;
		expect(item.pairedItem).toEqual({ item: 0 });
		expect(item.json).toMatchObject({
			id: expect.any(String),
			node_id: 'my-node',
			version: '1.0.0',
			changelog: 'First release',
			dependencies: ['numpy>=1.24', 'pillow'],
			supported_os: ['linux'],
			deprecated: false,
			upload: { uploaded: true, statusCode: 200, bytes: ZIP.length, fileName: 'my-node-1.0.0.zip', attempts: 1 },
		});

		// The request: node, node_version and the publishing token from the credential (accepted, so
		// the right one; the simulator's log shows it masked).
		const [sent] = sim.requestsTo('POST', '/publishers/acme/nodes/my-node/versions');
		expect(JSON.parse(sent!.body)).toEqual({
			node: { id: 'my-node', name: 'My Node', repository: 'https://repohost.example/sim-user/my-node', tags: ['image'] },
			node_version: {
				version: '1.0.0',
				changelog: 'First release',
				dependencies: ['numpy>=1.24', 'pillow'],
				supported_os: ['linux'],
				deprecated: false,
			},
			personal_access_token: maskSecret(DEFAULT_PUBLISHING_TOKEN),
		});

		// The upload: the archive's exact bytes, as application/zip, and no credential header.
		const archive = sim.registry.archiveFor('acme', 'my-node', '1.0.0');
		expect(archive?.bytes.equals(ZIP)).toBe(true);
		expect(archive?.contentType).toBe('application/zip');
		const [upload] = sim.requestsTo('PUT', '/o/');
		expect(upload!.host).toBe('storage');
		expect(upload!.headers.authorization).toBeUndefined();
		expect(upload!.headers['x-api-key']).toBeUndefined();
		expect(sim.counters.storageCredentialAttempts).toBe(0);

		// The version is listed (and active, now that its archive arrived).
		const listing = await runRegistry(harness, credential, {
			resource: 'node',
			operation: 'getAll',
			publisher: locator('acme'),
			returnAll: true,
		});
		expect(listing.items).toHaveLength(1);
		expect(listing.items[0]!.json).toMatchObject({
			id: 'my-node',
			name: 'My Node',
			latest_version: { id: item.json.id, version: '1.0.0', status: 'NodeVersionStatusActive' },
		});

		// Neither the publishing token nor the signed upload URL is in the output (downloadUrl is the spec's own output field).
		const output = JSON.stringify(result.items);
		expect(output).not.toContain(DEFAULT_PUBLISHING_TOKEN);
		expect(output).not.toContain(sim.accessToken);
		expect(output).not.toContain('signedUrl');
		expect(output).not.toContain(upload!.query.signature);
	});

	it('reads the archive from the binary field named in the node', async () => {
		const result = await runRegistry(harness, registryCredential(harness, sim), publish({ binaryPropertyName: 'archive' }), [
			archiveItem({}, ZIP, 'archive'),
		]);
		expect(result.status).toBe('success');
		expect(sim.registry.archiveFor('acme', 'my-node', '1.0.0')?.bytes.equals(ZIP)).toBe(true);
	});

	it('publishes one version per input item, each paired with its item', async () => {
		const result = await runRegistry(harness, registryCredential(harness, sim), publish({ version: '={{ $json.version }}' }), [
			archiveItem({ version: '1.0.0' }),
			archiveItem({ version: '1.1.0' }, Buffer.concat([ZIP, Buffer.from('v2')])),
		]);
		expect(result.items.map((item) => [item.json.version, item.pairedItem])).toEqual([
			['1.0.0', { item: 0 }],
			['1.1.0', { item: 1 }],
		]);
		expect(sim.registry.archiveFor('acme', 'my-node', '1.1.0')?.bytes.toString('latin1').endsWith('v2')).toBe(true);
	});

	it('fails the item when the upload is refused, saying the version exists and giving its ID', async () => {
		sim.faults.expiredSignedUrls = true;
		const result = await runRegistry(harness, registryCredential(harness, sim), publish(), [archiveItem()], true);
		expect(result.status).toBe('success');
		const [version] = [...sim.registry.versions.values()];
		expect(version).toBeDefined();
		expect(result.items).toHaveLength(1);
		expect(result.items[0]!.pairedItem).toEqual({ item: 0 });
		expect(result.items[0]!.json.error).toBe(
			`Version 1.0.0 of node "my-node" was created (version ID ${version!.id}), but its archive was not uploaded: the storage host answered HTTP 403 (Request has expired)`,
		);
		expect(result.items[0]!.json.errorDetails).toMatch(/new version number/);
		// A 403 is not retried.
		expect(sim.requestsTo('PUT', '/o/')).toHaveLength(1);
		expect(version!.status).toBe('NodeVersionStatusPending');
	});

	it('stops the workflow on a failed upload when Continue On Fail is off, naming the item', async () => {
		sim.faults.expiredSignedUrls = true;
		const result = await runRegistry(harness, registryCredential(harness, sim), publish(), [archiveItem()]);
		expect(result.status).toBe('error');
		const error = nodeError(result);
		expect(error.message).toMatch(
			/^Version 1\.0\.0 of node "my-node" was created \(version ID [0-9a-f-]{36}\), but its archive was not uploaded/,
		);
		expect(error.context?.itemIndex).toBe(0);
	});

	it('retries an upload answered with a 5xx, and reports a lasting 5xx as a failed upload', async () => {
		sim.faults.http5xx = { count: 1, pathPrefix: '/o/' };
		const once = await runRegistry(harness, registryCredential(harness, sim), publish(), [archiveItem()]);
		expect(once.status).toBe('success');
		expect(once.items[0]!.json.upload).toMatchObject({ uploaded: true, attempts: 2 });
		expect(sim.registry.archiveFor('acme', 'my-node', '1.0.0')?.bytes.equals(ZIP)).toBe(true);

		sim.faults.http5xx = { count: 3, pathPrefix: '/o/' };
		const lasting = await runRegistry(harness, registryCredential(harness, sim), publish({ version: '1.0.1' }), [archiveItem()], true);
		expect(lasting.items[0]!.json.error).toMatch(
			/^Version 1\.0\.1 of node "my-node" was created \(version ID .+\), but its archive was not uploaded: the storage host answered HTTP 503/,
		);
		expect(sim.requestsTo('PUT', '/o/')).toHaveLength(2 + 3);
	});

	it('sends an upload answered 429 with Retry-After again after at least that wait (the host did not take it); the item says it waited', async () => {
		sim.faults.slowDown = { count: 1, method: 'PUT', pathPrefix: '/o/', retryAfter: 1 };
		const result = await runRegistry(harness, registryCredential(harness, sim), publish(), [archiveItem()]);
		expect(result.status).toBe('success');
		expect(result.items[0]!.json).toMatchObject({ upload: { uploaded: true, attempts: 2 } });
		expect(result.items[0]!.json.waited_for_service_seconds).toBeGreaterThanOrEqual(1);
		const uploads = sim.requestsTo('PUT', '/o/');
		expect(statusesOf(uploads)).toEqual([429, 200]);
		expect(gapAfterSlowDown(uploads)).toBeGreaterThanOrEqual(1000);
		expect(sim.registry.archiveFor('acme', 'my-node', '1.0.0')?.bytes.equals(ZIP)).toBe(true);
	});

	it('retries an upload whose connection is reset; a lasting reset fails in words that still say the version exists', async () => {
		// The signed upload URL of the registry's answer points at a storage host that resets every upload.
		const storage = await startHostileService((_req, res) => res.destroy());
		try {
			const registry = await startHostileService((_req, res) =>
				sendJson(res, 201, { node_version: { id: 'v-1', version: '1.0.0' }, signedUrl: `${storage.url}/o/archive.zip?signature=abc` }),
			);
			try {
				const credential = registryCredential(harness, sim, { registryUrl: registry.url });
				const result = await runRegistry(harness, credential, publish(), [archiveItem()], true);
				expect(result.items[0]!.json.error).toBe(
					'Version 1.0.0 of node "my-node" was created (version ID v-1), but its archive was not uploaded: the storage host closed the connection early',
				);
				expect(storage.seen.map((request) => request.method)).toEqual(['PUT', 'PUT', 'PUT']);
				expect(registry.seen.filter((request) => request.method === 'POST')).toHaveLength(1);
			} finally {
				await registry.close();
			}
		} finally {
			await storage.close();
		}
	});

	it('an upload address that is not a web address fails at once, saying so, without sending or retrying anything', async () => {
		for (const [signedUrl, said] of [
			['text', 'it is not a valid web address'],
			['file:///etc/passwd', 'its address uses the file: scheme, and only http: and https: addresses are uploaded to'],
		]) {
			const registry = await startHostileService((_req, res) =>
				sendJson(res, 201, { node_version: { id: 'v-1', version: '1.0.0' }, signedUrl }),
			);
			try {
				const credential = registryCredential(harness, sim, { registryUrl: registry.url });
				const result = await runRegistry(harness, credential, publish(), [archiveItem()], true);
				expect(result.items[0]!.json.error).toBe(
					`Version 1.0.0 of node "my-node" was created (version ID v-1), but its archive was not uploaded: the upload address the registry gave is unusable: ${said}`,
				);
				expect(registry.seen.map((request) => request.method)).toEqual(['POST']);
			} finally {
				await registry.close();
			}
		}
	});

	it('an upload address that holds the publishing token in any spelling is refused, and nothing reaches the storage host', async () => {
		const storage = await startHostileService((_req, res) => sendJson(res, 200, {}));
		const everyByte = [...Buffer.from(DEFAULT_PUBLISHING_TOKEN)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join('');
		try {
			for (const spelling of [DEFAULT_PUBLISHING_TOKEN, everyByte, DEFAULT_PUBLISHING_TOKEN.replace(/-/g, '%2D')]) {
				const registry = await startHostileService((_req, res) =>
					sendJson(res, 201, {
						node_version: { id: 'v-1', version: '1.0.0' },
						signedUrl: `${storage.url}/o/archive.zip?token=${spelling}`,
					}),
				);
				try {
					const credential = registryCredential(harness, sim, { registryUrl: registry.url });
					const result = await runRegistry(harness, credential, publish(), [archiveItem()], true);
					expect({ spelling, error: result.items[0]!.json.error }).toEqual({
						spelling,
						error:
							'Version 1.0.0 of node "my-node" was created (version ID v-1), but its archive was not uploaded: the upload address the registry gave holds a secret of the credential, which must not reach the storage host',
					});
				} finally {
					await registry.close();
				}
			}
			expect(storage.seen).toHaveLength(0);
		} finally {
			await storage.close();
		}
	});

	it('surfaces a version conflict, and uploads nothing for it', async () => {
		const credential = registryCredential(harness, sim);
		expect((await runRegistry(harness, credential, publish(), [archiveItem()])).status).toBe('success');
		const again = await runRegistry(harness, credential, publish(), [archiveItem()]);
		const error = nodeError(again);
		expect(error.message).toBe(
			'This version already exists while publishing version 1.0.0 of node "my-node" (HTTP 409): Version 1.0.0 of node "my-node" already exists; publish a new version number.',
		);
		expect(error.description).toMatch(/raise the Version/);
		expect(sim.requestsTo('PUT', '/o/')).toHaveLength(1);
	});

	it('refuses bad input before sending anything', async () => {
		const credential = registryCredential(harness, sim);
		const cases: Array<[Record<string, unknown>, ReturnType<typeof archiveItem>[], string, RegExp?]> = [
			[publish({ version: 'v1.0.0' }), [archiveItem()], 'Version must be a semantic version such as 1.2.3 (got "v1.0.0")', /use "1\.0\.0"/],
			[publish({ version: '1.0' }), [archiveItem()], 'Version must be a semantic version such as 1.2.3 (got "1.0")', /MAJOR\.MINOR\.PATCH/],
			[publish({ version: '01.0.0' }), [archiveItem()], 'Version must be a semantic version such as 1.2.3 (got "01.0.0")'],
			[publish({ version: '={{ "" }}' }), [archiveItem()], 'Version is required'],
			[publish(), [{ json: {} }], 'Input Binary Field names "data", but the input item has no binary field of that name', /no binary data/],
			[
				publish({ binaryPropertyName: 'zip' }),
				[archiveItem()],
				'Input Binary Field names "zip", but the input item has no binary field of that name',
				/binary fields are: data/,
			],
			[publish(), [archiveItem({}, Buffer.alloc(0))], 'Input Binary Field names "data", which holds an empty file'],
			[publish({ publisher: locator('Acme', 'id') }), [archiveItem()], 'Publisher must be lower case (got "Acme")'],
			[publish({ node: locator('my node', 'id') }), [archiveItem()], 'Node must not contain spaces or "/" (got "my node")'],
			[
				publish({ nodeFields: { repository: 'repohost.example/x' } }),
				[archiveItem()],
				'Repository URL (in Node Fields) must be a full http:// or https:// URL (got "repohost.example/x")',
			],
			[
				publish({ versionFields: { deprecated: '={{ "maybe" }}' } }),
				[archiveItem()],
				'Deprecated (in Version Fields) must be true or false (got "maybe")',
			],
		];
		for (const [parameters, items, message, hint] of cases) {
			const result = await runRegistry(harness, credential, parameters, items);
			expect(result.status).toBe('error');
			const error = nodeError(result);
			expect(error.message).toBe(message);
			if (hint) expect(error.description).toMatch(hint);
		}
		expect(sim.requests).toHaveLength(0);
		expect(sim.registry.versions.size).toBe(0);
	});

	it('refuses to publish without a publishing token in the credential, before sending anything', async () => {
		const result = await runRegistry(harness, registryCredential(harness, sim, { publishingToken: '' }), publish(), [archiveItem()]);
		const error = nodeError(result);
		expect(error.message).toBe('Publishing Token (of the Host API credential) is required to publish a version');
		expect(error.description).toMatch(/personal access token/);
		expect(sim.requests).toHaveLength(0);
	});

	it('redacts the publishing token the registry echoes back in a refusal', async () => {
		sim.registry.echoSecretsInErrors = true;
		const secret = 'pat-not-valid-for-acme-123';
		const result = await runRegistry(
			harness,
			registryCredential(harness, sim, { publishingToken: secret }),
			publish(),
			[archiveItem()],
			true,
		);
		expect(result.items[0]!.json.error).toBe(
			'Publishing was refused while publishing version 1.0.0 of node "my-node" (HTTP 403): The personal access token is not valid for publisher "acme" (token "***").',
		);
		expect(result.items[0]!.json.errorDetails).toMatch(/Publishing Token/);
		expect(JSON.stringify(result.run.data)).not.toContain(secret);
		// It was sent, in the body, where the spec wants it (the simulator's log masks it).
		const sent = sim.requestsTo('POST', '/publishers/acme/nodes/my-node/versions')[0]!.body;
		expect(sent).toContain(`"personal_access_token":"${maskSecret(secret)}"`);
		expect(sent).not.toContain(secret);

		const stopped = await runRegistry(harness, registryCredential(harness, sim, { publishingToken: secret }), publish(), [archiveItem()]);
		expect(nodeError(stopped).message).not.toContain(secret);
		expect(JSON.stringify(stopped.run.data)).not.toContain(secret);
	});

	it('refuses to publish a node of another publisher', async () => {
		sim.registry.seedPublisher({ id: 'rival' });
		const [rivalNode] = sim.registry.seedNodes('rival', 1);
		const result = await runRegistry(harness, registryCredential(harness, sim), publish({ node: locator(rivalNode!.id) }), [archiveItem()]);
		expect(nodeError(result).message).toBe(
			`Publishing was refused while publishing version 1.0.0 of node "${rivalNode!.id}" (HTTP 403): Node "${rivalNode!.id}" belongs to another publisher.`,
		);
		expect(sim.requestsTo('PUT', '/o/')).toHaveLength(0);
	});
});

describe('version update', () => {
	async function published(): Promise<string> {
		const result = await runRegistry(harness, registryCredential(harness, sim), publish({ versionFields: { changelog: 'First' } }), [
			archiveItem(),
		]);
		return result.items[0]!.json.id as string;
	}

	it('changes only the changelog and the deprecation flag', async () => {
		const versionId = await published();
		const result = await runRegistry(harness, registryCredential(harness, sim), {
			resource: 'nodeVersion',
			operation: 'update',
			publisher: locator('acme'),
			node: locator('my-node'),
			versionId,
			updateFields: { changelog: 'Fixed the typos', deprecated: true },
		});
		expect(result.status).toBe('success');
		expect(result.items[0]!.json).toMatchObject({ id: versionId, version: '1.0.0', changelog: 'Fixed the typos', deprecated: true });
		const [sent] = sim.requestsTo('PUT', `/publishers/acme/nodes/my-node/versions/${versionId}`);
		expect(JSON.parse(sent!.body)).toEqual({ changelog: 'Fixed the typos', deprecated: true });

		const deprecatedOnly = await runRegistry(harness, registryCredential(harness, sim), {
			resource: 'nodeVersion',
			operation: 'update',
			node: locator('my-node'),
			versionId,
			updateFields: { deprecated: false },
		});
		expect(deprecatedOnly.items[0]!.json).toMatchObject({ changelog: 'Fixed the typos', deprecated: false });
	});

	it('refuses an update with nothing to change or without a version ID, before sending anything', async () => {
		const credential = registryCredential(harness, sim);
		const base = { resource: 'nodeVersion', operation: 'update', publisher: locator('acme'), node: locator('my-node') };
		const empty = await runRegistry(harness, credential, { ...base, versionId: 'abc', updateFields: {} });
		expect(nodeError(empty).message).toBe('Update Fields is empty');
		const noId = await runRegistry(harness, credential, { ...base, versionId: '={{ "" }}', updateFields: { deprecated: true } });
		expect(nodeError(noId).message).toBe('Version ID is required');
		expect(sim.requests).toHaveLength(0);
	});

	it('says when the version does not exist', async () => {
		await published();
		const result = await runRegistry(harness, registryCredential(harness, sim), {
			resource: 'nodeVersion',
			operation: 'update',
			publisher: locator('acme'),
			node: locator('my-node'),
			versionId: 'no-such-version',
			updateFields: { deprecated: true },
		});
		expect(nodeError(result).message).toMatch(
			/^Not found while updating version "no-such-version" of node "my-node" \(HTTP 404\): Node "my-node" has no version "no-such-version"/,
		);
	});
});

describe('examples/publish-node-version.json', () => {
	it('its Publish node runs as written, fed by an item like the one "Release details" and "Download archive" make', async () => {
		const example = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'examples', 'publish-node-version.json'), 'utf8')) as {
			nodes: Array<{ name: string; type: string; parameters: Record<string, unknown>; credentials?: Record<string, unknown> }>;
			connections: Record<string, unknown>;
		};
		const publishNode = example.nodes.find((node) => node.type === 'n8n-nodes-host.hostRegistry')!;
		expect(publishNode.credentials).toHaveProperty('hostApi');
		expect(example.connections['Download archive']).toBeDefined();
		const release = {
			nodeId: 'my-node',
			version: '1.0.0',
			changelog: 'First release',
			repository: 'https://repohost.example/sim-user/my-node',
		};
		const result = await harness.run({
			nodes: [
				{ name: 'Release details', type: 'harness.items', parameters: { items: JSON.stringify([archiveItem(release)]) } },
				{
					name: publishNode.name,
					type: publishNode.type,
					parameters: publishNode.parameters as never,
					credentials: { hostApi: registryCredential(harness, sim) },
				},
			],
			connect: [['Release details', publishNode.name]],
		});
		expect(result.status).toBe('success');
		expect(result.output(publishNode.name)[0]!.json).toMatchObject({
			version: '1.0.0',
			changelog: 'First release',
			upload: { uploaded: true },
		});
		expect(sim.registry.nodes.get('my-node')?.repository).toBe(release.repository);
		expect(sim.registry.archiveFor('acme', 'my-node', '1.0.0')?.bytes.equals(ZIP)).toBe(true);
	});
});
