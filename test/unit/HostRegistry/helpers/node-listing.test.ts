/** Host Registry's walk of the v2 pages of a publisher's nodes. */
import { collectPages, MAX_PAGES } from '../../../../nodes/HostRegistry/helpers/node-listing';
import type { NodePage } from '../../../../nodes/HostRegistry/transport/registry-api';

describe('walking the v2 pages', () => {
	const nodes = (from: number, count: number) => Array.from({ length: count }, (_, i) => ({ id: `n${from + i}` }));

	/** A registry of `total` nodes; `lie` overrides what it says about totalPages. */
	function registry(total: number, lie?: Partial<NodePage>) {
		const asked: Array<[number, number]> = [];
		const fetchPage = async (page: number, limit: number): Promise<NodePage> => {
			asked.push([page, limit]);
			const start = (page - 1) * limit;
			return {
				limit,
				page,
				total,
				totalPages: Math.ceil(total / limit),
				nodes: nodes(start, Math.max(0, Math.min(limit, total - start))),
				...lie,
			};
		};
		return { asked, fetchPage };
	}

	it('reads nothing more after an empty first page', async () => {
		const { asked, fetchPage } = registry(0);
		expect(await collectPages(fetchPage, 'acme', 10)).toEqual({ nodes: [] });
		expect(asked).toEqual([[1, 10]]);
	});

	it('reads every page up to totalPages', async () => {
		const { asked, fetchPage } = registry(57);
		const { nodes: all } = await collectPages(fetchPage, 'acme', 10);
		expect(all).toHaveLength(57);
		expect(all[56]).toEqual({ id: 'n56' });
		expect(asked.map(([page]) => page)).toEqual([1, 2, 3, 4, 5, 6]);
	});

	it('cuts the last page at the wanted count', async () => {
		const { asked, fetchPage } = registry(57);
		expect((await collectPages(fetchPage, 'acme', 10, 25)).nodes.map((n) => n.id)).toEqual(nodes(0, 25).map((n) => n.id));
		expect(asked).toHaveLength(3);
	});

	it('without totalPages, stops at the first short page', async () => {
		const { asked, fetchPage } = registry(25, { totalPages: undefined });
		expect((await collectPages(fetchPage, 'acme', 10)).nodes).toHaveLength(25);
		expect(asked).toHaveLength(3);
	});

	it('stops at an empty page even when totalPages claims more', async () => {
		const { asked, fetchPage } = registry(20, { totalPages: 99 });
		expect((await collectPages(fetchPage, 'acme', 10)).nodes).toHaveLength(20);
		expect(asked).toHaveLength(3);
	});

	it('stops on a page whose number is not the one asked, keeping none of the nodes', async () => {
		const { asked, fetchPage } = registry(30, { page: 1 });
		expect(await collectPages(fetchPage, 'acme', 10)).toEqual({
			nodes: [],
			problem:
				'The registry did not answer the page of nodes asked: asked for page 2 of the nodes of publisher "acme", it answered page 1 instead',
		});
		expect(asked).toHaveLength(2);
	});

	it('stops on a page that lists a node again, or a node of another publisher', async () => {
		const again = registry(30, { page: undefined, nodes: nodes(0, 10) });
		expect((await collectPages(again.fetchPage, 'acme', 10)).problem).toMatch(/asked for page 2 .* it answered node "n0" again/);
		expect(again.asked).toHaveLength(2);
		const within = registry(30, { nodes: [{ id: 'n1' }, { id: 'n1' }] });
		expect((await collectPages(within.fetchPage, 'acme', 10)).problem).toMatch(/asked for page 1 .* node "n1" again/);
		const other = registry(30, { nodes: [{ id: 'x', publisher: { id: 'other' } }] });
		expect((await collectPages(other.fetchPage, 'acme', 10)).problem).toMatch(/node "x" of another publisher \("other"\)/);
	});

	it('ends with a problem when full pages keep coming past the page bound', async () => {
		let served = 0;
		const endless = async (page: number, limit: number): Promise<NodePage> => {
			served++;
			return { page, limit, nodes: nodes(page * limit, limit) };
		};
		const walk = await collectPages(endless, 'acme', 1);
		expect(walk).toEqual({
			nodes: [],
			problem: `The registry still announced more nodes of publisher "acme" after ${MAX_PAGES} pages, more than this node reads`,
		});
		expect(served).toBe(MAX_PAGES);
	});
});
