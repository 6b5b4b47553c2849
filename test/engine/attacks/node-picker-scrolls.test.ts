/**
 * Attack: the Node picker scrolled against a registry whose second page repeats nodes of the first
 * (an unstable order, or a proxy or cache serving an older page), without saying its page number.
 * The docs promise that a page listing a node already listed ends the list with an error in words;
 * the picker is called as the editor calls it, scroll after scroll, against a hostile loopback registry.
 */
import { EngineHarness } from '../../support/engine';
import { hostApiCredential } from '../../support/credential-fixtures';
import { sendJson, startHostileService, type HostileService } from '../../support/hostile-service';
import { locator, registryListSearch } from '../../support/registry-node';

const harness = new EngineHarness();
let registry: HostileService;
let credential: string;

const node = (index: number) => ({ id: `node-${index}`, name: `Node ${index}` });

beforeAll(async () => {
	registry = await startHostileService((req, res) => {
		const url = new URL(req.url, 'http://registry');
		if (url.pathname !== '/publishers/acme/nodes/v2') return sendJson(res, 404, { message: 'not found' });
		const page = Number(url.searchParams.get('page'));
		const limit = Number(url.searchParams.get('limit'));
		// Page 2 starts half-way into page 1 (nodes 50..98 again), then new nodes; no page number is said.
		const from = page === 1 ? 0 : limit / 2;
		const nodes = Array.from({ length: limit }, (_, i) => node(from + i)).filter((n) => page === 1 || n.id !== `node-${limit - 1}`);
		sendJson(res, 200, { limit, nodes, total: 1000, totalPages: 10 });
	});
	credential = harness.addCredential('hostApi', hostApiCredential({ accessToken: 'token', registryUrl: registry.url, publisherId: 'acme' }));
});

afterAll(async () => {
	await registry.close();
});

it('the second scroll of the Node picker does not offer again nodes the first scroll listed', async () => {
	const search = registryListSearch(harness, 'searchNodes', credential, { resource: 'node', operation: 'update', publisher: locator('acme') });
	const first = await search();
	expect(first.results).toHaveLength(100);
	const shown = new Set(first.results.map((result) => result.value));
	// Either the scroll fails in words, as for a page that lists node-99 again, or it offers no node twice.
	const second = await search(undefined, first.paginationToken).catch((error: Error) => ({ results: [], error: error.message }));
	const again = second.results.filter((result) => shown.has(result.value));
	expect(again).toEqual([]);
});
