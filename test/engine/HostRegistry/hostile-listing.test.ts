/**
 * Answers about the wrong page: a registry (or a proxy or cache in front of one) that ignores the
 * page asked, repeats nodes, lists another publisher's nodes or drops include_banned. Get Many runs
 * through n8n's engine and the node picker is called as the editor calls it, against a hostile
 * loopback registry; each listing keeps to what was asked and lists no node twice, and each search
 * ends within its bound in requests.
 */
import { PICKER_MAX_NODES } from '../../../nodes/HostRegistry/helpers/picker-position';
import { SEARCH_MAX_PAGES } from '../../../nodes/HostRegistry/methods/list-search';
import { EngineHarness } from '../../support/engine';
import { hostApiCredential } from '../../support/credential-fixtures';
import { sendJson, startHostileService, type HostileService } from '../../support/hostile-service';
import { locator, nodeError, registryListSearch, runRegistry } from '../../support/registry-node';

/** Past this many listing requests the registry answers an empty page, so that code without a bound still ends. */
const SAFETY_STOP = 300;

interface Asked {
	page: number;
	limit: number;
}

/** What the hostile registry answers to a v2 page or the v1 list; `undefined` falls back to the honest page. */
let answerPage: (asked: Asked) => Record<string, unknown>;
let answerList: () => unknown[];

const harness = new EngineHarness();
let registry: HostileService;
let credential: string;

const node = (index: number, extra: Record<string, unknown> = {}) => ({ id: `node-${index}`, name: `Node ${index}`, ...extra });
const nodesFrom = (from: number, count: number) => Array.from({ length: count }, (_, i) => node(from + i));
const listingRequests = () => registry.seen.filter((req) => req.url.startsWith('/publishers/acme/nodes'));

beforeAll(async () => {
	registry = await startHostileService((req, res) => {
		const url = new URL(req.url, 'http://registry');
		if (url.pathname === '/publishers/acme/nodes') return sendJson(res, 200, answerList());
		if (url.pathname !== '/publishers/acme/nodes/v2') return sendJson(res, 404, { message: 'not found' });
		const asked = { page: Number(url.searchParams.get('page')), limit: Number(url.searchParams.get('limit')) };
		if (listingRequests().length > SAFETY_STOP) return sendJson(res, 200, { nodes: [], page: asked.page, totalPages: 0 });
		sendJson(res, 200, answerPage(asked));
	});
	credential = harness.addCredential(
		'hostApi',
		hostApiCredential({ accessToken: 'token', registryUrl: registry.url, publisherId: 'acme' }),
	);
});

beforeEach(() => {
	registry.seen.length = 0;
});

afterAll(async () => {
	await registry.close();
});

/** A registry that answers page 1 whatever page is asked, saying so, with `totalPages` pages claimed. */
const alwaysPageOne =
	(totalPages: number, saysPage = true) =>
	(asked: Asked) => ({
		limit: asked.limit,
		nodes: nodesFrom(0, asked.limit),
		...(saysPage ? { page: 1 } : {}),
		total: totalPages * asked.limit,
		totalPages,
	});

const getMany = (parameters: Record<string, unknown>) =>
	runRegistry(harness, credential, { resource: 'node', operation: 'getAll', publisher: locator('acme'), ...parameters });

describe('Get Many (page by page) against a registry that ignores the page asked', () => {
	it('fails the item naming the page asked and the page that came, rather than 150 items of 50 nodes', async () => {
		answerPage = alwaysPageOne(3);
		const result = await getMany({ returnAll: true });
		expect(result.status).toBe('error');
		expect(nodeError(result).message).toBe(
			'The registry did not answer the page of nodes asked: asked for page 2 of the nodes of publisher "acme", it answered page 1 instead',
		);
		expect(nodeError(result).description).toMatch(/Nothing was taken from this listing/);
		expect(listingRequests()).toHaveLength(2);
	});

	it('fails a repeated page that does not say its number, by the node it lists again (Limit on)', async () => {
		answerPage = alwaysPageOne(3, false);
		const result = await runRegistry(
			harness,
			credential,
			{ resource: 'node', operation: 'getAll', publisher: locator('acme'), returnAll: false, limit: 120, options: { pageSize: 50 } },
			undefined,
			true,
		);
		expect(result.items).toHaveLength(1);
		expect(result.items[0]!.json.error).toBe(
			'The registry did not answer the page of nodes asked: asked for page 2 of the nodes of publisher "acme", it answered node "node-0" again, which it had already listed',
		);
		expect(listingRequests()).toHaveLength(2);
	});

	it('fails a page that lists another publisher\u2019s node', async () => {
		answerPage = ({ page, limit }) => ({ page, limit, totalPages: 1, nodes: [node(1), node(2, { publisher: { id: 'someone-else' } })] });
		const result = await getMany({ returnAll: true });
		expect(nodeError(result).message).toMatch(/asked for page 1 .* it answered node "node-2" of another publisher \("someone-else"\)$/);
	});

	it('still lists every node of an honest registry once, up to the Limit', async () => {
		answerPage = ({ page, limit }) => ({
			page,
			limit,
			total: 70,
			totalPages: 3,
			nodes: nodesFrom((page - 1) * limit, Math.min(limit, 70 - (page - 1) * limit)),
		});
		const all = await getMany({ returnAll: true, options: { pageSize: 30 } });
		expect(all.items.map((item) => item.json.id)).toEqual(nodesFrom(0, 70).map((n) => n.id));
		const some = await getMany({ returnAll: false, limit: 45, options: { pageSize: 30 } });
		expect(some.items).toHaveLength(45);
	});
});

describe('Get Many (single list)', () => {
	const single = (parameters: Record<string, unknown>) => getMany({ listing: 'single', ...parameters });

	it('fails a list that names a node twice, rather than returning it twice', async () => {
		answerList = () => [node(1), node(2), node(1)];
		const result = await single({ returnAll: true });
		expect(nodeError(result).message).toBe(
			'The registry\'s list of the nodes of publisher "acme" is not the one asked: it listed node "node-1" again, which it had already listed',
		);
		expect(result.status).toBe('error');
	});

	it('lists no banned node unless Include Banned Nodes is on, and keeps to the Limit', async () => {
		answerList = () => [node(1), node(2, { status: 'NodeStatusBanned' }), node(3, { status: 'NodeStatusActive' }), node(4)];
		const without = await single({ returnAll: true });
		expect(without.items.map((item) => item.json.id)).toEqual(['node-1', 'node-3', 'node-4']);
		expect(registry.seen[0]!.url).toContain('include_banned=false');
		const limited = await single({ returnAll: false, limit: 2 });
		expect(limited.items.map((item) => item.json.id)).toEqual(['node-1', 'node-3']);
		const banned = await single({ returnAll: false, limit: 2, options: { includeBanned: true } });
		expect(banned.items.map((item) => item.json.id)).toEqual(['node-1', 'node-2']);
	});
});

describe('the node picker against a registry that ignores the page asked', () => {
	const search = () =>
		registryListSearch(harness, 'searchNodes', credential, { resource: 'node', operation: 'update', publisher: locator('acme') });

	it('ends a search that matches nothing at the answer of the wrong page, saying so (totalPages: 10,000,000)', async () => {
		answerPage = alwaysPageOne(10_000_000);
		await expect(search()('no such node')).rejects.toThrow(
			'The registry did not answer the page of nodes asked: asked for page 2 of the nodes of publisher "acme", it answered page 1 instead',
		);
		expect(listingRequests()).toHaveLength(2);
	});

	it('ends at the first node listed again when the registry does not say its page', async () => {
		answerPage = alwaysPageOne(10_000_000, false);
		await expect(search()('no such node')).rejects.toThrow(/asked for page 2 .* it answered node "node-0" again/);
		expect(listingRequests()).toHaveLength(2);
	});

	it('does not take a repeated page as the next scroll', async () => {
		answerPage = alwaysPageOne(10_000_000, false);
		const first = await search()();
		expect(first.results).toHaveLength(100);
		expect(first.paginationToken).toBeDefined();
		await expect(search()(undefined, first.paginationToken)).rejects.toThrow(/asked for page 2 .* it answered node "node-0" again/);
		expect(listingRequests()).toHaveLength(2);
	});

	it('reads at most its bound of pages while its filter matches nothing, then says what to do', async () => {
		// Honest about pages, but without end: every page full of new nodes that never match.
		answerPage = ({ page, limit }) => ({ page, limit, totalPages: 10_000_000, nodes: nodesFrom((page - 1) * limit, limit) });
		await expect(search()('no such node')).rejects.toThrow(
			`No node of publisher "acme" matching "no such node" among the ${SEARCH_MAX_PAGES * 100} nodes read`,
		);
		expect(listingRequests()).toHaveLength(SEARCH_MAX_PAGES);
	});

	it('does not offer on the next scroll nodes an earlier scroll listed, when the registry does not say its page', async () => {
		// Page 2 starts half-way into page 1 (nodes 50..98 again, without node-99, the last one shown), then new nodes.
		answerPage = ({ page, limit }) => ({
			limit,
			total: 1000,
			totalPages: 10,
			nodes: page === 1 ? nodesFrom(0, limit) : nodesFrom(limit / 2, limit).filter((n) => n.id !== `node-${limit - 1}`),
		});
		const first = await search()();
		expect(first.results).toHaveLength(100);
		await expect(search()(undefined, first.paginationToken)).rejects.toThrow(
			'The registry did not answer the page of nodes asked: asked for page 2 of the nodes of publisher "acme", it answered node "node-50" again, which it had already listed',
		);
		expect(listingRequests()).toHaveLength(2);
	});

	it('offers every node of an honest endless listing once, scroll after scroll, then ends in words past its bound', async () => {
		answerPage = ({ page, limit }) => ({ page, limit, totalPages: 10_000_000, nodes: nodesFrom((page - 1) * limit, limit) });
		const offered: string[] = [];
		let token: string | undefined;
		const scrolls = PICKER_MAX_NODES / 100;
		for (let scroll = 0; scroll < scrolls; scroll++) {
			const answer = await search()(undefined, token);
			offered.push(...answer.results.map((result) => String(result.value)));
			token = answer.paginationToken as string;
			// The token carries every node read so far, 8 characters each: bounded by the picker's bound.
			expect(token.length).toBeLessThanOrEqual(12 + 8 * PICKER_MAX_NODES);
		}
		expect(new Set(offered).size).toBe(PICKER_MAX_NODES);
		await expect(search()(undefined, token)).rejects.toThrow(
			`The Node list shows the first ${PICKER_MAX_NODES} nodes of publisher "acme" only`,
		);
		expect(listingRequests()).toHaveLength(scrolls);
	});

	it('reads nothing on a token the picker did not make, and says what to do', async () => {
		answerPage = alwaysPageOne(3);
		await expect(search()(undefined, '2:node-99')).rejects.toThrow('The Node list lost its place');
		expect(listingRequests()).toHaveLength(0);
	});
});
