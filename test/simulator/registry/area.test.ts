/** The simulator's node registry as a client sees it: publishers, listings, publishing through signed archive uploads, claiming. */
import axios, { type AxiosResponse } from 'axios';

import { DEFAULT_PUBLISHING_TOKEN, UNCLAIMED_PUBLISHER_ID } from '../../../simulator/registry/area';
import type { Simulator } from '../../../simulator/server';
import { useSimulator } from '../support/simulator';

let sim: Simulator;

const OTHER_TOKEN = 'sim-access-token-user-2';
const REPOHOST_TOKEN = 'sim-repohost-token';
/** The smallest valid zip archive: an end-of-central-directory record and nothing else. */
const EMPTY_ZIP = Buffer.concat([Buffer.from('PK\x05\x06', 'latin1'), Buffer.alloc(18)]);

useSimulator({ extraAccounts: [{ id: 'user-2' }] }, (started) => (sim = started));

function call(method: string, path: string, data?: unknown, token: string | null = sim.accessToken): Promise<AxiosResponse> {
	return axios.request({
		method,
		url: `${sim.registryUrl}${path}`,
		data,
		headers: token === null ? {} : { Authorization: `Bearer ${token}` },
		validateStatus: () => true,
	});
}

function expectRefusal(res: AxiosResponse, status: number, messagePart?: RegExp): void {
	expect(res.status).toBe(status);
	expect(typeof res.data.error).toBe('string');
	expect(typeof res.data.message).toBe('string');
	if (messagePart) expect(res.data.message).toMatch(messagePart);
}

function publishBody(version: string, extra: Record<string, unknown> = {}) {
	return {
		node: { name: 'My Node', description: 'Does things', repository: 'https://repohost.example/sim-user/my-node' },
		node_version: { version, changelog: `Release ${version}`, dependencies: ['numpy'] },
		personal_access_token: DEFAULT_PUBLISHING_TOKEN,
		...extra,
	};
}

describe('authentication', () => {
	it('refuses a missing or unknown bearer token with {error, message}', async () => {
		sim.registry.seedPublisher({ id: 'acme' });
		expectRefusal(await call('GET', '/publishers/acme/nodes', undefined, null), 401, /Authorization/);
		expectRefusal(await call('GET', '/publishers/acme/nodes', undefined, 'nope'), 401, /invalid/);
		expectRefusal(await call('POST', '/publishers', { id: 'x', name: 'X' }, 'nope'), 401);
	});
});

describe('publishers', () => {
	it('creates a publisher with the caller as owner', async () => {
		const res = await call('POST', '/publishers', {
			id: 'acme-1',
			name: 'Acme',
			website: 'https://acme.example',
			members: [{ id: 'x', role: 'owner', user: { id: 'intruder', name: 'I', email: 'i@x' } }],
			status: 'PublisherStatusBanned',
		});
		expect(res.status).toBe(201);
		expect(res.data).toMatchObject({ id: 'acme-1', name: 'Acme', website: 'https://acme.example', status: 'PublisherStatusActive' });
		expect(Number.isNaN(Date.parse(res.data.createdAt))).toBe(false);
		expect(res.data.members).toEqual([
			{ id: expect.any(String), role: 'owner', user: { id: 'user-1', name: 'Sim User', email: 'sim@example.com' } },
		]);
		expect(sim.registry.publishers.get('acme-1')?.name).toBe('Acme');
	});

	it('refuses a missing or malformed id, a missing name and a taken id', async () => {
		expectRefusal(await call('POST', '/publishers', { name: 'Acme' }), 400, /\bid\b/);
		expectRefusal(await call('POST', '/publishers', { id: 'Acme', name: 'Acme' }), 400, /lower case/);
		expectRefusal(await call('POST', '/publishers', { id: 'acme_x', name: 'Acme' }), 400, /\bid\b/);
		expectRefusal(await call('POST', '/publishers', { id: 'acme' }), 400, /name/);
		expectRefusal(await call('POST', '/publishers', 'not json{'), 400, /JSON/);
		expectRefusal(await call('POST', '/publishers', [1, 2]), 400, /object/);
		expect((await call('POST', '/publishers', { id: 'acme', name: 'Acme' })).status).toBe(201);
		const taken = await call('POST', '/publishers', { id: 'acme', name: 'Other' });
		expectRefusal(taken, 409, /taken/);
		expect(taken.data.error).toBe('publisher_id_taken');
	});

	it('updates the given fields only, for members only', async () => {
		const created = (await call('POST', '/publishers', { id: 'acme', name: 'Acme' })).data;
		const res = await call('PUT', '/publishers/acme', {
			name: 'Acme Inc',
			support: 'help@acme.example',
			members: [],
			status: 'PublisherStatusBanned',
			createdAt: '2000-01-01T00:00:00.000Z',
		});
		expect(res.status).toBe(200);
		expect(res.data).toMatchObject({ id: 'acme', name: 'Acme Inc', support: 'help@acme.example', status: 'PublisherStatusActive' });
		expect(res.data.createdAt).toBe(created.createdAt);
		expect(res.data.members).toEqual(created.members);
		expectRefusal(await call('PUT', '/publishers/nobody', { name: 'X' }), 404);
		expectRefusal(await call('PUT', '/publishers/acme', { name: 'X' }, OTHER_TOKEN), 403, /member/);
		expectRefusal(await call('PUT', '/publishers/acme', { id: 'other', name: 'X' }), 400, /differs/);
		expectRefusal(await call('PUT', '/publishers/acme', { website: 42 }), 400, /website/);
	});
});

describe('node listings', () => {
	it('lists a publisher\u2019s nodes, banned ones only on request and deleted ones never', async () => {
		sim.registry.seedPublisher({ id: 'acme' });
		const [a, b, c] = sim.registry.seedNodes('acme', 3);
		sim.registry.setNodeStatus(b.id, 'NodeStatusBanned');
		sim.registry.setNodeStatus(c.id, 'NodeStatusDeleted');
		const plain = await call('GET', '/publishers/acme/nodes');
		expect(plain.status).toBe(200);
		expect(plain.data.map((n: { id: string }) => n.id)).toEqual([a.id]);
		const withBanned = await call('GET', '/publishers/acme/nodes?include_banned=true');
		expect(withBanned.data.map((n: { id: string }) => n.id)).toEqual([a.id, b.id]);
		const withoutBanned = await call('GET', '/publishers/acme/nodes?include_banned=false');
		expect(withoutBanned.data).toHaveLength(1);
		expect(plain.data[0]).toMatchObject({ publisher: { id: 'acme' }, status: 'NodeStatusActive', downloads: 0 });
		expectRefusal(await call('GET', '/publishers/acme/nodes?include_banned=maybe'), 400, /include_banned/);
		expectRefusal(await call('GET', '/publishers/nobody/nodes'), 404);
	});

	it('v2: an empty publisher has no pages', async () => {
		sim.registry.seedPublisher({ id: 'acme' });
		const res = await call('GET', '/publishers/acme/nodes/v2');
		expect(res.status).toBe(200);
		expect(res.data).toEqual({ limit: 10, nodes: [], page: 1, total: 0, totalPages: 0 });
	});

	it('v2: exactly one page', async () => {
		sim.registry.seedPublisher({ id: 'acme' });
		sim.registry.seedNodes('acme', 10);
		const first = await call('GET', '/publishers/acme/nodes/v2?page=1&limit=10');
		expect(first.data).toMatchObject({ limit: 10, page: 1, total: 10, totalPages: 1 });
		expect(first.data.nodes).toHaveLength(10);
		const second = await call('GET', '/publishers/acme/nodes/v2?page=2&limit=10');
		expect(second.data).toMatchObject({ nodes: [], page: 2, total: 10, totalPages: 1 });
	});

	it('v2: 57 nodes with limit 10 make 6 pages in a stable order, the last with 7', async () => {
		sim.registry.seedPublisher({ id: 'acme' });
		const seeded = sim.registry.seedNodes('acme', 57).map((n) => n.id);
		const seen: string[] = [];
		for (let page = 1; page <= 6; page++) {
			const res = await call('GET', `/publishers/acme/nodes/v2?page=${page}&limit=10`);
			expect(res.data).toMatchObject({ limit: 10, page, total: 57, totalPages: 6 });
			expect(res.data.nodes).toHaveLength(page === 6 ? 7 : 10);
			seen.push(...res.data.nodes.map((n: { id: string }) => n.id));
		}
		expect(seen).toEqual(seeded);
		const beyond = await call('GET', '/publishers/acme/nodes/v2?page=7&limit=10');
		expect(beyond.status).toBe(200);
		expect(beyond.data).toEqual({ limit: 10, nodes: [], page: 7, total: 57, totalPages: 6 });
		const defaults = await call('GET', '/publishers/acme/nodes/v2');
		expect(defaults.data).toMatchObject({ limit: 10, page: 1, totalPages: 6 });
		expect(defaults.data.nodes.map((n: { id: string }) => n.id)).toEqual(seeded.slice(0, 10));
		// No upper bound on the page size (the spec shows none).
		const all = await call('GET', '/publishers/acme/nodes/v2?limit=1000');
		expect(all.data).toMatchObject({ limit: 1000, total: 57, totalPages: 1 });
		expect(all.data.nodes).toHaveLength(57);
	});

	it('v2: refuses bad page and limit values and unknown publishers', async () => {
		sim.registry.seedPublisher({ id: 'acme' });
		for (const query of ['page=0', 'limit=0', 'page=-1', 'page=1.5', 'limit=abc', 'page=']) {
			const res = await call('GET', `/publishers/acme/nodes/v2?${query}`);
			expectRefusal(res, 400, new RegExp(query.split('=')[0]));
		}
		expectRefusal(await call('GET', '/publishers/nobody/nodes/v2'), 404);
	});
});

describe('node update', () => {
	it('changes editable fields and leaves output fields alone', async () => {
		sim.registry.seedPublisher({ id: 'acme' });
		const [node] = sim.registry.seedNodes('acme', 1);
		const res = await call('PUT', `/publishers/acme/nodes/${node.id}`, {
			id: node.id,
			name: 'Renamed',
			description: 'New text',
			tags: ['image', 'upscale'],
			supported_os: ['linux'],
			downloads: 999,
			rating: 5,
			status: 'NodeStatusBanned',
			created_at: '2000-01-01T00:00:00.000Z',
			publisher: { id: 'other' },
		});
		expect(res.status).toBe(200);
		expect(res.data).toMatchObject({
			id: node.id,
			name: 'Renamed',
			description: 'New text',
			tags: ['image', 'upscale'],
			supported_os: ['linux'],
			downloads: 0,
			rating: 0,
			status: 'NodeStatusActive',
			created_at: node.created_at,
			publisher: { id: 'acme' },
		});
	});

	it('refuses unknown nodes and publishers, non-members, a different id and wrong types', async () => {
		sim.registry.seedPublisher({ id: 'acme' });
		const [node] = sim.registry.seedNodes('acme', 1);
		expectRefusal(await call('PUT', '/publishers/acme/nodes/ghost', { name: 'X' }), 404, /ghost/);
		expectRefusal(await call('PUT', `/publishers/nobody/nodes/${node.id}`, { name: 'X' }), 404, /nobody/);
		expectRefusal(await call('PUT', `/publishers/acme/nodes/${node.id}`, { name: 'X' }, OTHER_TOKEN), 403);
		expectRefusal(await call('PUT', `/publishers/acme/nodes/${node.id}`, { id: 'something-else' }), 400, /differs/);
		expectRefusal(await call('PUT', `/publishers/acme/nodes/${node.id}`, { tags: 'image' }), 400, /tags/);
	});
});

describe('publishing versions', () => {
	it('creates the node and a pending version, then activates it once the zip arrives', async () => {
		sim.registry.seedPublisher({ id: 'acme' });
		const res = await call('POST', '/publishers/acme/nodes/my-node/versions', publishBody('1.0.0'));
		expect(res.status).toBe(201);
		const version = res.data.node_version;
		expect(version).toMatchObject({
			id: expect.any(String),
			node_id: 'my-node',
			version: '1.0.0',
			changelog: 'Release 1.0.0',
			dependencies: ['numpy'],
			deprecated: false,
			status: 'NodeVersionStatusPending',
			downloadUrl: expect.stringContaining(sim.storageUrl),
		});
		expect(res.data.signedUrl.startsWith(`${sim.storageUrl}/`)).toBe(true);
		expect(sim.registry.nodes.get('my-node')).toMatchObject({
			name: 'My Node',
			status: 'NodeStatusActive',
			publisher: { id: 'acme' },
			latest_version: { version: '1.0.0' },
		});

		const zip = Buffer.concat([EMPTY_ZIP, Buffer.from('payload')]);
		const upload = await axios.put(res.data.signedUrl, zip, {
			headers: { 'Content-Type': 'application/zip' },
			validateStatus: () => true,
		});
		expect(upload.status).toBe(200);
		expect(sim.counters.storageCredentialAttempts).toBe(0);
		const archive = sim.registry.archiveFor('acme', 'my-node', '1.0.0');
		expect(archive?.bytes.equals(zip)).toBe(true);
		expect(archive?.contentType).toBe('application/zip');
		expect(archive?.isZip).toBe(true);
		expect(sim.registry.versions.get(version.id)?.status).toBe('NodeVersionStatusActive');

		const listing = await call('GET', '/publishers/acme/nodes/v2');
		expect(listing.data.nodes).toHaveLength(1);
		expect(listing.data.nodes[0].latest_version).toMatchObject({ id: version.id, version: '1.0.0', status: 'NodeVersionStatusActive' });
		const download = await axios.get(version.downloadUrl, { responseType: 'arraybuffer', validateStatus: () => true });
		expect(download.status).toBe(200);
		expect(Buffer.from(download.data).equals(zip)).toBe(true);
	});

	it('keeps a version pending when its archive is not sent as application/zip', async () => {
		sim.registry.seedPublisher({ id: 'acme' });
		const res = await call('POST', '/publishers/acme/nodes/my-node/versions', publishBody('1.0.0'));
		await axios.put(res.data.signedUrl, EMPTY_ZIP, { headers: { 'Content-Type': 'application/octet-stream' } });
		expect(sim.registry.archiveFor('acme', 'my-node', '1.0.0')?.isZip).toBe(false);
		const listing = await call('GET', '/publishers/acme/nodes');
		expect(listing.data[0].latest_version).toMatchObject({
			status: 'NodeVersionStatusPending',
			status_reason: expect.stringMatching(/application\/zip/),
		});
		const refused = await axios.put(res.data.signedUrl, EMPTY_ZIP, {
			headers: { 'Content-Type': 'application/zip', Authorization: `Bearer ${sim.accessToken}` },
			validateStatus: () => true,
		});
		expect(refused.status).toBe(400);
		expect(sim.counters.storageCredentialAttempts).toBe(1);
	});

	it('updates an existing node from `node`, refuses a repeated version and moves latest_version', async () => {
		sim.registry.seedPublisher({ id: 'acme' });
		const first = await call('POST', '/publishers/acme/nodes/my-node/versions', publishBody('1.0.0'));
		const createdAt = sim.registry.nodes.get('my-node')?.created_at;
		const second = await call(
			'POST',
			'/publishers/acme/nodes/my-node/versions',
			publishBody('1.1.0-beta.1', { node: { name: 'My Node 2', tags: ['new'] } }),
		);
		expect(second.status).toBe(201);
		const conflict = await call('POST', '/publishers/acme/nodes/my-node/versions', publishBody('1.0.0'));
		expectRefusal(conflict, 409, /1\.0\.0/);
		const node = sim.registry.nodes.get('my-node');
		expect(node).toMatchObject({ name: 'My Node 2', tags: ['new'], latest_version: { id: second.data.node_version.id } });
		expect(node?.created_at).toBe(createdAt);
		expect(sim.registry.versions.size).toBe(2);
		expect(first.data.node_version.id).not.toBe(second.data.node_version.id);
	});

	it('refuses missing parts by name, bad versions, other publishers\u2019 nodes and unknown publishers', async () => {
		sim.registry.seedPublisher({ id: 'acme' });
		sim.registry.seedPublisher({ id: 'rival' });
		const [rivalNode] = sim.registry.seedNodes('rival', 1);
		for (const field of ['node', 'node_version', 'personal_access_token']) {
			const body: Record<string, unknown> = publishBody('1.0.0');
			delete body[field];
			const res = await call('POST', '/publishers/acme/nodes/my-node/versions', body);
			expectRefusal(res, 400, new RegExp(`^${field} is required`));
		}
		for (const bad of ['v1.0.0', '1.0', '1.0.0.0', '01.0.0', '1.0.0-01', 'latest']) {
			expectRefusal(await call('POST', '/publishers/acme/nodes/my-node/versions', publishBody(bad)), 400, /semantic version/);
		}
		const noVersion = publishBody('1.0.0', { node_version: { changelog: 'x' } });
		expectRefusal(await call('POST', '/publishers/acme/nodes/my-node/versions', noVersion), 400, /node_version\.version/);
		const mismatched = publishBody('1.0.0', { node: { id: 'other-node' } });
		expectRefusal(await call('POST', '/publishers/acme/nodes/my-node/versions', mismatched), 400, /differs/);
		expectRefusal(await call('POST', `/publishers/acme/nodes/${rivalNode.id}/versions`, publishBody('1.0.0')), 403, /another publisher/);
		expectRefusal(await call('POST', '/publishers/nobody/nodes/my-node/versions', publishBody('1.0.0')), 404);
		expect(sim.registry.nodes.has('my-node')).toBe(false);
		expect(sim.registry.versions.size).toBe(0);
	});

	it('accepts only the publisher\u2019s personal access tokens and quotes them only when told to', async () => {
		sim.registry.seedPublisher({ id: 'acme' });
		const secret = 'pat-very-secret-value';
		const refused = await call('POST', '/publishers/acme/nodes/my-node/versions', publishBody('1.0.0', { personal_access_token: secret }));
		expectRefusal(refused, 403, /personal access token/);
		expect(JSON.stringify(refused.data)).not.toContain(secret);

		sim.registry.echoSecretsInErrors = true;
		const leaky = await call('POST', '/publishers/acme/nodes/my-node/versions', publishBody('1.0.0', { personal_access_token: secret }));
		expectRefusal(leaky, 403);
		expect(leaky.data.message).toContain(secret);
		sim.registry.echoSecretsInErrors = false;

		sim.registry.addPersonalAccessToken('acme', secret);
		const accepted = await call('POST', '/publishers/acme/nodes/my-node/versions', publishBody('1.0.0', { personal_access_token: secret }));
		expect(accepted.status).toBe(201);
		expect(JSON.stringify(accepted.data)).not.toContain(secret);
		// The request log shows that a token was sent, never the token, accepted or not.
		const logged = sim.requestsTo('POST', '/publishers/acme/nodes/my-node/versions');
		expect(logged).toHaveLength(3);
		for (const entry of logged) {
			expect(entry.body).toContain(`"personal_access_token":"***(${secret.length})"`);
			expect(entry.body).not.toContain(secret);
		}
	});
});

describe('version update', () => {
	it('changes only changelog and deprecated, by version id or version number', async () => {
		sim.registry.seedPublisher({ id: 'acme' });
		const published = (await call('POST', '/publishers/acme/nodes/my-node/versions', publishBody('1.0.0'))).data.node_version;
		const byId = await call('PUT', `/publishers/acme/nodes/my-node/versions/${published.id}`, {
			changelog: 'Fixed typos',
			deprecated: true,
			version: '9.9.9',
			status: 'NodeVersionStatusBanned',
			dependencies: ['evil'],
			id: 'changed',
		});
		expect(byId.status).toBe(200);
		expect(byId.data).toEqual({ ...published, changelog: 'Fixed typos', deprecated: true });
		const byNumber = await call('PUT', '/publishers/acme/nodes/my-node/versions/1.0.0', { deprecated: false });
		expect(byNumber.status).toBe(200);
		expect(byNumber.data).toMatchObject({ id: published.id, changelog: 'Fixed typos', deprecated: false });
		const listed = await call('GET', '/publishers/acme/nodes');
		expect(listed.data[0].latest_version).toMatchObject({ changelog: 'Fixed typos', deprecated: false });
	});

	it('refuses unknown versions, nodes and publishers, non-members and wrong types', async () => {
		sim.registry.seedPublisher({ id: 'acme' });
		await call('POST', '/publishers/acme/nodes/my-node/versions', publishBody('1.0.0'));
		expectRefusal(await call('PUT', '/publishers/acme/nodes/my-node/versions/2.0.0', { deprecated: true }), 404, /2\.0\.0/);
		expectRefusal(await call('PUT', '/publishers/acme/nodes/ghost/versions/1.0.0', { deprecated: true }), 404);
		expectRefusal(await call('PUT', '/publishers/nobody/nodes/my-node/versions/1.0.0', { deprecated: true }), 404);
		expectRefusal(await call('PUT', '/publishers/acme/nodes/my-node/versions/1.0.0', { deprecated: true }, OTHER_TOKEN), 403);
		expectRefusal(await call('PUT', '/publishers/acme/nodes/my-node/versions/1.0.0', { deprecated: 'yes' }), 400, /deprecated/);
	});
});

describe('claiming a node', () => {
	it('moves an unclaimed node whose repository the token owner holds to the publisher', async () => {
		sim.registry.seedPublisher({ id: 'acme' });
		const node = sim.registry.seedUnclaimedNode({ id: 'orphan', name: 'Orphan' });
		expect(node.publisher.id).toBe(UNCLAIMED_PUBLISHER_ID);
		const res = await call('POST', '/publishers/acme/nodes/orphan/claim-my-node', { REPOHOST_TOKEN });
		expect(res.status).toBe(200);
		expect(typeof res.data.message).toBe('string');
		expect(JSON.stringify(res.data)).not.toContain(REPOHOST_TOKEN);
		const listing = await call('GET', '/publishers/acme/nodes');
		expect(listing.data.map((n: { id: string }) => n.id)).toEqual(['orphan']);
		const again = await call('POST', '/publishers/acme/nodes/orphan/claim-my-node', { REPOHOST_TOKEN });
		expectRefusal(again, 409, /already been claimed/);
		expect(again.data.error).toBe('node_already_claimed');
	});

	it('gives each refusal its own error and never echoes the token', async () => {
		sim.registry.seedPublisher({ id: 'acme' });
		sim.registry.seedUnclaimedNode({ id: 'orphan' });
		sim.registry.seedUnclaimedNode({ id: 'foreign', repository: 'https://repohost.example/someone-else/foreign' });
		const bad = 'repohost-wrong-secret';
		const cases: Array<[string, unknown, string | null, number, string]> = [
			['/publishers/acme/nodes/orphan/claim-my-node', {}, sim.accessToken, 400, 'missing_token'],
			['/publishers/acme/nodes/orphan/claim-my-node', { REPOHOST_TOKEN: bad }, sim.accessToken, 401, 'invalid_repohost_token'],
			['/publishers/acme/nodes/foreign/claim-my-node', { REPOHOST_TOKEN }, sim.accessToken, 403, 'repository_not_owned'],
			['/publishers/acme/nodes/ghost/claim-my-node', { REPOHOST_TOKEN }, sim.accessToken, 404, 'node_not_found'],
			['/publishers/nobody/nodes/orphan/claim-my-node', { REPOHOST_TOKEN }, sim.accessToken, 404, 'publisher_not_found'],
			['/publishers/acme/nodes/orphan/claim-my-node', { REPOHOST_TOKEN }, OTHER_TOKEN, 403, 'forbidden'],
			['/publishers/acme/nodes/orphan/claim-my-node', { REPOHOST_TOKEN }, null, 401, 'unauthorized'],
		];
		const codes = new Set<string>();
		for (const [path, body, token, status, code] of cases) {
			const res = await call('POST', path, body, token);
			expectRefusal(res, status);
			expect(res.data.error).toBe(code);
			const text = JSON.stringify(res.data);
			expect(text).not.toContain(bad);
			expect(text).not.toContain(REPOHOST_TOKEN);
			codes.add(res.data.error);
		}
		expect(codes.size).toBe(cases.length);
		expect(sim.registry.nodes.get('orphan')?.publisher.id).toBe(UNCLAIMED_PUBLISHER_ID);
		// Neither the wrong token nor the right one is in the request log.
		const log = JSON.stringify(sim.requests);
		expect(log).toContain(`"REPOHOST_TOKEN\\":\\"***(${bad.length})`);
		expect(log).not.toContain(bad);
		expect(log).not.toContain(REPOHOST_TOKEN);
	});

	it('quotes the token in a refusal only with echoSecretsInErrors', async () => {
		sim.registry.seedPublisher({ id: 'acme' });
		sim.registry.seedUnclaimedNode({ id: 'orphan' });
		sim.registry.echoSecretsInErrors = true;
		const res = await call('POST', '/publishers/acme/nodes/orphan/claim-my-node', { REPOHOST_TOKEN: 'leaked-value' });
		expectRefusal(res, 401);
		expect(res.data.message).toContain('leaked-value');
	});
});

describe('reset', () => {
	it('forgets publishers, nodes, versions and the echo flag', async () => {
		sim.registry.seedPublisher({ id: 'acme' });
		await call('POST', '/publishers/acme/nodes/my-node/versions', publishBody('1.0.0'));
		sim.registry.echoSecretsInErrors = true;
		sim.reset();
		expect(sim.registry.publishers.size).toBe(0);
		expect(sim.registry.nodes.size).toBe(0);
		expect(sim.registry.versions.size).toBe(0);
		expect(sim.registry.echoSecretsInErrors).toBe(false);
		expect(sim.registry.archiveFor('acme', 'my-node', '1.0.0')).toBeUndefined();
	});
});
