/**
 * Host Registry through n8n's real WorkflowExecute against the simulator: publishers, node
 * listings (v1 and paginated v2), node updates, claiming, and the node picker's list search.
 */
import { UNCLAIMED_PUBLISHER_ID } from '../../../simulator/registry/area';
import { startSimulator, type Simulator } from '../../../simulator/server';
import { EngineHarness } from '../../support/engine';
import {
	OTHER_ACCESS_TOKEN,
	REPOHOST_TOKEN,
	locator,
	nodeError,
	registryCredential,
	registryListSearch,
	runRegistry,
} from '../../support/registry-node';

let sim: Simulator;
const harness = new EngineHarness();

beforeAll(async () => {
	sim = await startSimulator({ extraAccounts: [{ id: 'user-2' }] });
});

beforeEach(() => sim.reset());

afterAll(async () => {
	await sim.close();
});

const ids = (items: Array<{ json: Record<string, unknown> }>) => items.map((item) => item.json.id);

describe('publisher', () => {
	it('creates a publisher with every field under the spec names', async () => {
		const credential = registryCredential(harness, sim);
		const result = await runRegistry(harness, credential, {
			resource: 'publisher',
			operation: 'create',
			publisherId: 'acme',
			name: 'Acme Nodes',
			additionalFields: {
				description: 'Nodes for images',
				logo: 'https://acme.example/logo.png',
				sourceCodeRepo: 'https://repohost.example/acme',
				support: 'help@acme.example',
				website: 'https://acme.example',
				status: 'PublisherStatusActive',
				members: { member: [{ role: 'owner', userId: 'user-1', userName: 'Sim User', userEmail: 'sim@example.com' }] },
			},
		});
		expect(result.status).toBe('success');
		expect(result.items).toHaveLength(1);
		expect(result.items[0]!.json).toMatchObject({
			id: 'acme',
			name: 'Acme Nodes',
			description: 'Nodes for images',
			logo: 'https://acme.example/logo.png',
			source_code_repo: 'https://repohost.example/acme',
			support: 'help@acme.example',
			website: 'https://acme.example',
			status: 'PublisherStatusActive',
		});
		expect(result.items[0]!.pairedItem).toEqual({ item: 0 });
		const [sent] = sim.requestsTo('POST', '/publishers');
		expect(JSON.parse(sent!.body)).toEqual({
			id: 'acme',
			name: 'Acme Nodes',
			description: 'Nodes for images',
			logo: 'https://acme.example/logo.png',
			source_code_repo: 'https://repohost.example/acme',
			support: 'help@acme.example',
			website: 'https://acme.example',
			status: 'PublisherStatusActive',
			members: [{ role: 'owner', user: { id: 'user-1', name: 'Sim User', email: 'sim@example.com' } }],
		});
		expect(sim.registry.publishers.get('acme')?.name).toBe('Acme Nodes');
	});

	it('refuses a publisher ID that is not lower case, before sending anything', async () => {
		const credential = registryCredential(harness, sim);
		const result = await runRegistry(harness, credential, {
			resource: 'publisher',
			operation: 'create',
			publisherId: 'Acme',
			name: 'Acme',
		});
		expect(result.status).toBe('error');
		const error = nodeError(result);
		expect(error.message).toBe('Publisher ID must be lower case (got "Acme")');
		expect(error.description).toContain('use "acme"');
		expect(sim.requests).toHaveLength(0);
	});

	it('refuses a missing name and a logo that is not a web address, before sending anything', async () => {
		const credential = registryCredential(harness, sim);
		const noName = await runRegistry(harness, credential, { resource: 'publisher', operation: 'create', publisherId: 'acme', name: '  ' });
		expect(nodeError(noName).message).toBe('Name is required');
		const badLogo = await runRegistry(harness, credential, {
			resource: 'publisher',
			operation: 'create',
			publisherId: 'acme',
			name: 'Acme',
			additionalFields: { logo: 'logo.png' },
		});
		expect(nodeError(badLogo).message).toMatch(/^Logo URL \(in Additional Fields\) must be a full http:\/\/ or https:\/\/ URL/);
		expect(sim.requests).toHaveLength(0);
	});

	it('surfaces a taken publisher ID with the registry\u2019s own words', async () => {
		sim.registry.seedPublisher({ id: 'acme' });
		const credential = registryCredential(harness, sim);
		const result = await runRegistry(harness, credential, {
			resource: 'publisher',
			operation: 'create',
			publisherId: 'acme',
			name: 'Acme',
		});
		const error = nodeError(result);
		expect(error.message).toBe(
			'The publisher ID is already taken while creating publisher "acme" (HTTP 409): The publisher id "acme" is already taken; choose another.',
		);
		expect(error.description).toBe('Choose another Publisher ID.');
	});

	it('updates the chosen publisher, or the credential\u2019s when none is chosen', async () => {
		sim.registry.seedPublisher({ id: 'acme', name: 'Acme' });
		sim.registry.seedPublisher({ id: 'beta', name: 'Beta' });
		const credential = registryCredential(harness, sim);
		const chosen = await runRegistry(harness, credential, {
			resource: 'publisher',
			operation: 'update',
			publisher: locator('beta', 'id'),
			updateFields: { name: 'Beta Inc', website: 'https://beta.example' },
		});
		expect(chosen.items[0]!.json).toMatchObject({ id: 'beta', name: 'Beta Inc', website: 'https://beta.example' });
		const byDefault = await runRegistry(harness, credential, {
			resource: 'publisher',
			operation: 'update',
			publisher: locator(''),
			updateFields: { support: 'help@acme.example' },
		});
		expect(byDefault.items[0]!.json).toMatchObject({ id: 'acme', name: 'Acme', support: 'help@acme.example' });
		expect(sim.requestsTo('PUT').map((r) => r.path)).toEqual(['/publishers/beta', '/publishers/acme']);
	});

	it('refuses an update with nothing to change, or with no publisher anywhere', async () => {
		const credential = registryCredential(harness, sim);
		const empty = await runRegistry(harness, credential, { resource: 'publisher', operation: 'update', publisher: locator('acme') });
		expect(nodeError(empty).message).toBe('Update Fields is empty');
		const noPublisher = await runRegistry(harness, registryCredential(harness, sim, { publisherId: '' }), {
			resource: 'publisher',
			operation: 'update',
			publisher: locator(''),
			updateFields: { name: 'X' },
		});
		const error = nodeError(noPublisher);
		expect(error.message).toBe('Publisher is required');
		expect(error.description).toMatch(/Publisher ID in the Host API credential/);
		const upperInCredential = await runRegistry(harness, registryCredential(harness, sim, { publisherId: 'ACME' }), {
			resource: 'publisher',
			operation: 'update',
			updateFields: { name: 'X' },
		});
		expect(nodeError(upperInCredential).message).toBe('Publisher ID (of the Host API credential) must be lower case (got "ACME")');
		expect(sim.requests).toHaveLength(0);
	});

	it('says why a non-member may not update a publisher', async () => {
		sim.registry.seedPublisher({ id: 'acme' });
		const credential = registryCredential(harness, sim, { accessToken: OTHER_ACCESS_TOKEN });
		const result = await runRegistry(harness, credential, { resource: 'publisher', operation: 'update', updateFields: { name: 'Mine' } });
		expect(nodeError(result).message).toBe(
			'The access token is not allowed to do this while updating publisher "acme" (HTTP 403): You are not a member of publisher "acme".',
		);
	});
});

describe('node: get many', () => {
	const getMany = (parameters: Record<string, unknown>) => ({
		resource: 'node',
		operation: 'getAll',
		publisher: locator('acme'),
		...parameters,
	});

	it('answers no items for a publisher without nodes', async () => {
		sim.registry.seedPublisher({ id: 'acme' });
		const result = await runRegistry(harness, registryCredential(harness, sim), getMany({ returnAll: true }));
		expect(result.status).toBe('success');
		expect(result.items).toEqual([]);
		expect(sim.requestsTo('GET', '/publishers/acme/nodes/v2')).toHaveLength(1);
	});

	it('reads exactly one page once', async () => {
		sim.registry.seedPublisher({ id: 'acme' });
		const seeded = sim.registry.seedNodes('acme', 10).map((n) => n.id);
		const result = await runRegistry(harness, registryCredential(harness, sim), getMany({ returnAll: true, options: { pageSize: 10 } }));
		expect(ids(result.items)).toEqual(seeded);
		expect(sim.requestsTo('GET', '/publishers/acme/nodes/v2').map((r) => r.query)).toEqual([{ page: '1', limit: '10' }]);
	});

	it('Return All walks every page: 57 nodes with page size 10 give 57 items in order', async () => {
		sim.registry.seedPublisher({ id: 'acme' });
		const seeded = sim.registry.seedNodes('acme', 57).map((n) => n.id);
		const result = await runRegistry(harness, registryCredential(harness, sim), getMany({ returnAll: true, options: { pageSize: 10 } }));
		expect(result.items).toHaveLength(57);
		expect(ids(result.items)).toEqual(seeded);
		expect(result.items.every((item) => JSON.stringify(item.pairedItem) === '{"item":0}')).toBe(true);
		expect(sim.requestsTo('GET', '/publishers/acme/nodes/v2').map((r) => r.query)).toEqual(
			[1, 2, 3, 4, 5, 6].map((page) => ({ page: String(page), limit: '10' })),
		);
	});

	it('stops mid-page at the limit and reads no further page', async () => {
		sim.registry.seedPublisher({ id: 'acme' });
		const seeded = sim.registry.seedNodes('acme', 57).map((n) => n.id);
		const result = await runRegistry(
			harness,
			registryCredential(harness, sim),
			getMany({ returnAll: false, limit: 15, options: { pageSize: 10 } }),
		);
		expect(ids(result.items)).toEqual(seeded.slice(0, 15));
		expect(sim.requestsTo('GET', '/publishers/acme/nodes/v2').map((r) => r.query.page)).toEqual(['1', '2']);
	});

	it('asks for no more per page than the limit wants', async () => {
		sim.registry.seedPublisher({ id: 'acme' });
		sim.registry.seedNodes('acme', 30);
		const result = await runRegistry(harness, registryCredential(harness, sim), getMany({ limit: 5 }));
		expect(result.items).toHaveLength(5);
		expect(sim.requestsTo('GET', '/publishers/acme/nodes/v2').map((r) => r.query)).toEqual([{ page: '1', limit: '5' }]);
	});

	it('lists every input item\u2019s publisher, each output paired with its input', async () => {
		sim.registry.seedPublisher({ id: 'acme' });
		sim.registry.seedPublisher({ id: 'beta' });
		sim.registry.seedNodes('acme', 2);
		sim.registry.seedNodes('beta', 3);
		const result = await runRegistry(
			harness,
			registryCredential(harness, sim),
			{ resource: 'node', operation: 'getAll', publisher: locator('={{ $json.publisher }}', 'id'), returnAll: true },
			[{ json: { publisher: 'acme' } }, { json: { publisher: 'beta' } }],
		);
		expect(result.items.map((item) => [(item.json.publisher as { id: string }).id, item.pairedItem])).toEqual([
			['acme', { item: 0 }],
			['acme', { item: 0 }],
			['beta', { item: 1 }],
			['beta', { item: 1 }],
			['beta', { item: 1 }],
		]);
	});

	it('the single (v1) listing leaves banned nodes out unless asked, and honours the limit', async () => {
		sim.registry.seedPublisher({ id: 'acme' });
		const [a, b, c] = sim.registry.seedNodes('acme', 3).map((n) => n.id);
		sim.registry.setNodeStatus(b!, 'NodeStatusBanned');
		const credential = registryCredential(harness, sim);
		const plain = await runRegistry(harness, credential, getMany({ listing: 'single', returnAll: true }));
		expect(ids(plain.items)).toEqual([a, c]);
		const withBanned = await runRegistry(
			harness,
			credential,
			getMany({ listing: 'single', returnAll: true, options: { includeBanned: true } }),
		);
		expect(ids(withBanned.items)).toEqual([a, b, c]);
		const limited = await runRegistry(harness, credential, getMany({ listing: 'single', limit: 2, options: { includeBanned: true } }));
		expect(ids(limited.items)).toEqual([a, b]);
		expect(sim.requestsTo('GET', '/publishers/acme/nodes').map((r) => r.query)).toEqual([
			{ include_banned: 'false' },
			{ include_banned: 'true' },
			{ include_banned: 'true' },
		]);
	});

	it('refuses page sizes and limits out of range, before sending anything', async () => {
		const credential = registryCredential(harness, sim);
		for (const pageSize of [0, -1, 2.5]) {
			const result = await runRegistry(harness, credential, getMany({ returnAll: true, options: { pageSize } }));
			expect(nodeError(result).message).toBe(`Page Size must be a whole number 1 or more (got "${pageSize}")`);
		}
		const badLimit = await runRegistry(harness, credential, getMany({ limit: 0 }));
		expect(nodeError(badLimit).message).toBe('Limit must be a whole number 1 or more (got "0")');
		expect(sim.requests).toHaveLength(0);
	});

	it('says when the publisher does not exist, and continues on fail per item', async () => {
		sim.registry.seedPublisher({ id: 'acme' });
		sim.registry.seedNodes('acme', 1);
		const result = await runRegistry(
			harness,
			registryCredential(harness, sim),
			{ resource: 'node', operation: 'getAll', publisher: locator('={{ $json.publisher }}', 'id'), returnAll: true },
			[{ json: { publisher: 'nobody' } }, { json: { publisher: 'acme' } }],
			true,
		);
		expect(result.status).toBe('success');
		expect(result.items).toHaveLength(2);
		expect(result.items[0]!.json.error).toBe(
			'Not found while listing the nodes of publisher "nobody" (page 1) (HTTP 404): Publisher "nobody" does not exist.',
		);
		expect(result.items[0]!.pairedItem).toEqual({ item: 0 });
		expect(result.items[1]!.pairedItem).toEqual({ item: 1 });
	});
});

describe('node: update', () => {
	it('sends the fields as the spec types them: lists as arrays, translations as an object', async () => {
		sim.registry.seedPublisher({ id: 'acme' });
		const [node] = sim.registry.seedNodes('acme', 1);
		const result = await runRegistry(harness, registryCredential(harness, sim), {
			resource: 'node',
			operation: 'update',
			publisher: locator('acme'),
			node: locator(node!.id),
			updateFields: {
				name: 'Better Upscaler',
				description: 'Upscales images',
				tags: ['image', ' upscale ', ''],
				supportedOs: '={{ "linux, windows" }}',
				supportedAccelerators: ['cuda'],
				preemptedNodeNames: ['OldUpscaler'],
				category: 'image',
				bannerUrl: 'https://acme.example/banner.png',
				translations: '{"de": {"name": "Besserer Hochskalierer"}}',
				supportedHostuiVersion: '>=0.3.0',
			},
		});
		expect(result.status).toBe('success');
		const body = JSON.parse(sim.requestsTo('PUT', `/publishers/acme/nodes/${node!.id}`)[0]!.body);
		expect(body).toEqual({
			id: node!.id,
			name: 'Better Upscaler',
			description: 'Upscales images',
			tags: ['image', 'upscale'],
			supported_os: ['linux', 'windows'],
			supported_accelerators: ['cuda'],
			preempted_host_node_names: ['OldUpscaler'],
			category: 'image',
			banner_url: 'https://acme.example/banner.png',
			translations: { de: { name: 'Besserer Hochskalierer' } },
			supported_hostui_version: '>=0.3.0',
		});
		expect(result.items[0]!.json).toMatchObject({
			id: node!.id,
			name: 'Better Upscaler',
			tags: ['image', 'upscale'],
			supported_os: ['linux', 'windows'],
		});
	});

	it('refuses bad JSON, an empty update and a missing node, before sending anything', async () => {
		const credential = registryCredential(harness, sim);
		const base = { resource: 'node', operation: 'update', publisher: locator('acme'), node: locator('my-node') };
		const badJson = await runRegistry(harness, credential, { ...base, updateFields: { translations: '{"de": ' } });
		expect(nodeError(badJson).message).toBe('Translations (JSON) (in Update Fields) is not valid JSON');
		const empty = await runRegistry(harness, credential, { ...base, updateFields: {} });
		expect(nodeError(empty).message).toBe('Update Fields is empty');
		const noNode = await runRegistry(harness, credential, { ...base, node: locator('={{ "" }}', 'id'), updateFields: { name: 'X' } });
		expect(nodeError(noNode).message).toBe('Node is required');
		const badList = await runRegistry(harness, credential, { ...base, updateFields: { tags: '={{ [{ "a": 1 }] }}' } });
		expect(nodeError(badList).message).toBe('Tags (in Update Fields) must be a list of texts; entry 1 is "{"a":1}"');
		expect(sim.requests).toHaveLength(0);
	});

	it('surfaces the registry\u2019s refusal of a banned node', async () => {
		sim.registry.seedPublisher({ id: 'acme' });
		const [node] = sim.registry.seedNodes('acme', 1);
		sim.registry.setNodeStatus(node!.id, 'NodeStatusBanned');
		const result = await runRegistry(harness, registryCredential(harness, sim), {
			resource: 'node',
			operation: 'update',
			publisher: locator('acme'),
			node: locator(node!.id),
			updateFields: { name: 'X' },
		});
		expect(nodeError(result).message).toMatch(
			/^The registry refused the change while updating node ".*" \(HTTP 403\): Node ".*" is banned\.$/,
		);
	});
});

describe('node: claim', () => {
	const claim = (nodeId: string) => ({ resource: 'node', operation: 'claim', publisher: locator('acme'), node: locator(nodeId, 'id') });

	it('claims an unclaimed node with the code-hosting token of the credential', async () => {
		sim.registry.seedPublisher({ id: 'acme' });
		sim.registry.seedUnclaimedNode({ id: 'orphan' });
		const result = await runRegistry(harness, registryCredential(harness, sim), claim('orphan'));
		expect(result.status).toBe('success');
		expect(result.items[0]!.json).toEqual({
			message: 'Node "orphan" is now claimed by publisher "acme".',
			claimed: true,
			publisher_id: 'acme',
			node_id: 'orphan',
		});
		expect(sim.registry.nodes.get('orphan')?.publisher.id).toBe('acme');
		const [sent] = sim.requestsTo('POST', '/publishers/acme/nodes/orphan/claim-my-node');
		// The simulator masks the token in its log: the field was sent, and its value is not in clear.
		expect(Object.keys(JSON.parse(sent!.body))).toEqual(['REPOHOST_TOKEN']);
		expect(JSON.stringify(result.run.data)).not.toContain(REPOHOST_TOKEN);
	});

	it('gives every refusal its own message and never shows the token', async () => {
		sim.registry.seedPublisher({ id: 'acme' });
		sim.registry.seedUnclaimedNode({ id: 'orphan' });
		sim.registry.seedUnclaimedNode({ id: 'foreign', repository: 'https://repohost.example/someone-else/foreign' });
		sim.registry.seedNodes('acme', 1, { name: 'mine' });
		const mine = [...sim.registry.nodes.values()].find((n) => n.publisher.id === 'acme')!.id;
		const wrongToken = 'repohost-wrong-secret-1';
		const cases: Array<[string, Record<string, string>, RegExp]> = [
			[
				'orphan',
				{ repohostToken: wrongToken },
				/^The access token or the code-hosting token was rejected while claiming node "orphan" for publisher "acme" \(HTTP 401\): The code-hosting token was not accepted/,
			],
			[
				'foreign',
				{},
				/^The claim was refused while claiming node "foreign" .*\(HTTP 403\): The repository of node "foreign" .* is not owned/,
			],
			['ghost', {}, /^Not found while claiming node "ghost" .*\(HTTP 404\): Node "ghost" does not exist\.$/],
			[mine, {}, /^The node is already claimed while claiming .*\(HTTP 409\): Node ".*" has already been claimed by publisher "acme"\.$/],
			['orphan', { accessToken: OTHER_ACCESS_TOKEN }, /^The claim was refused .*\(HTTP 403\): You are not a member of publisher "acme"\.$/],
		];
		for (const [nodeId, overrides, expected] of cases) {
			const result = await runRegistry(harness, registryCredential(harness, sim, overrides), claim(nodeId));
			expect(result.status).toBe('error');
			expect(nodeError(result).message).toMatch(expected);
			const text = JSON.stringify(result.run.data);
			expect(text).not.toContain(wrongToken);
			expect(text).not.toContain(REPOHOST_TOKEN);
		}
		expect(sim.registry.nodes.get('orphan')?.publisher.id).toBe(UNCLAIMED_PUBLISHER_ID);
	});

	it('redacts the token when the registry echoes it back', async () => {
		sim.registry.seedPublisher({ id: 'acme' });
		sim.registry.seedUnclaimedNode({ id: 'orphan' });
		sim.registry.echoSecretsInErrors = true;
		const leaked = 'repohost-echoed-secret-42';
		const result = await runRegistry(
			harness,
			registryCredential(harness, sim, { repohostToken: leaked }),
			claim('orphan'),
			undefined,
			true,
		);
		expect(result.items[0]!.json.error).toBe(
			'The access token or the code-hosting token was rejected while claiming node "orphan" for publisher "acme" (HTTP 401): The code-hosting token was not accepted by the code host (token "***").',
		);
		expect(JSON.stringify(result.run.data)).not.toContain(leaked);
	});

	it('refuses to claim without a code-hosting token in the credential, before sending anything', async () => {
		const result = await runRegistry(harness, registryCredential(harness, sim, { repohostToken: '' }), claim('orphan'));
		const error = nodeError(result);
		expect(error.message).toBe('Code-Hosting Token (of the Host API credential) is required to claim a node');
		expect(error.context?.itemIndex).toBe(0);
		expect(sim.requests).toHaveLength(0);
	});
});

describe('list search (the pickers)', () => {
	const listSearch = (method: 'searchNodes' | 'searchPublishers', credential: string, parameters: Record<string, unknown>) =>
		registryListSearch(harness, method, credential, parameters);

	it('offers the credential\u2019s publisher', async () => {
		const search = listSearch('searchPublishers', registryCredential(harness, sim), { resource: 'node', operation: 'update' });
		expect(await search()).toEqual({ results: [{ name: 'acme (from the credential)', value: 'acme' }] });
		expect(await search('zzz')).toEqual({ results: [] });
	});

	it('lists the chosen publisher\u2019s nodes a page at a time, and filters by name or id', async () => {
		sim.registry.seedPublisher({ id: 'beta' });
		const nodes = sim.registry.seedNodes('beta', 150);
		sim.registry.nodes.get(nodes[120]!.id)!.name = 'Special Upscaler';
		const search = listSearch('searchNodes', registryCredential(harness, sim), {
			resource: 'node',
			operation: 'update',
			publisher: locator('beta'),
		});
		const first = await search();
		expect(first.results).toHaveLength(100);
		expect(first.results[0]).toEqual({ name: nodes[0]!.id, value: nodes[0]!.id });
		// The next scroll reads page 2 (the rest of the token is what the list has read so far).
		expect(first.paginationToken).toMatch(/^2:/);
		const second = await search(undefined, first.paginationToken);
		expect(second.results).toHaveLength(50);
		expect(second.paginationToken).toBeUndefined();
		const filtered = await search('special');
		expect(filtered.results).toEqual([{ name: `Special Upscaler (${nodes[120]!.id})`, value: nodes[120]!.id }]);
		expect(sim.requestsTo('GET', '/publishers/beta/nodes/v2').map((r) => r.query.page)).toEqual(['1', '2', '1', '2']);
	});

	it('falls back to the credential\u2019s publisher for the node list', async () => {
		sim.registry.seedPublisher({ id: 'acme' });
		const [node] = sim.registry.seedNodes('acme', 1);
		const search = listSearch('searchNodes', registryCredential(harness, sim), { resource: 'node', operation: 'update' });
		expect((await search()).results).toEqual([{ name: node!.id, value: node!.id }]);
	});
});
