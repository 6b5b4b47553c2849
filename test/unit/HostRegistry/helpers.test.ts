/**
 * Pure helpers behind Host Registry: semantic versions and ids, the field checks of
 * nodes/shared/items/validation.ts it uses, turning collections into request bodies, and the v2 page walk.
 */
import type { IDataObject, INode } from 'n8n-workflow';

import { isSemanticVersion, publisherId, semanticVersion } from '../../../nodes/HostRegistry/helpers/identifiers';
import { locatorValue } from '../../../nodes/HostRegistry/helpers/locators';
import { collectPages, MAX_PAGES } from '../../../nodes/HostRegistry/helpers/node-listing';
import { registryPath, type NodePage } from '../../../nodes/HostRegistry/transport/registry-api';
import { booleanValue, integerInRange, jsonObject, oneOf, stringList } from '../../../nodes/shared/items/validation';
import { bodyFromFields } from '../../../nodes/HostRegistry/helpers/field-collections';
import {
	DEPRECATED_FIELD,
	MEMBERS_FIELD,
	NODE_FIELDS,
	PUBLISHER_UPDATE_FIELDS,
} from '../../../nodes/HostRegistry/actions/common.descriptions';

const context = { getNode: () => ({ name: 'Host Registry' }) as INode };

function failure(run: () => unknown): { message: string; description?: string | null } {
	try {
		run();
	} catch (error) {
		return error as { message: string; description?: string | null };
	}
	throw new Error('expected a failure');
}

describe('semantic versions', () => {
	it.each([
		'0.0.0',
		'1.2.3',
		'10.20.30',
		'1.0.0-alpha',
		'1.0.0-alpha.1',
		'1.0.0-0.3.7',
		'1.0.0-x.7.z.92',
		'1.0.0+20130313144700',
		'1.0.0-beta+exp.sha.5114f85',
	])('accepts %s', (version) => expect(isSemanticVersion(version)).toBe(true));

	it.each(['', '1', '1.2', '1.2.3.4', 'v1.2.3', '01.2.3', '1.02.3', '1.2.03', '1.2.3-', '1.2.3-01', '1.2.3+', ' 1.2.3', 'latest', '1.2.x'])(
		'refuses %j',
		(version) => expect(isSemanticVersion(version)).toBe(false),
	);

	it('names the field and helps with a leading "v"', () => {
		const error = failure(() => semanticVersion(context, 0, 'Version', 'v2.0.0'));
		expect(error.message).toBe('Version must be a semantic version such as 1.2.3 (got "v2.0.0")');
		expect(error.description).toBe('Remove the leading "v": use "2.0.0".');
		expect(semanticVersion(context, 0, 'Version', ' 2.0.0 ')).toBe('2.0.0');
	});
});

describe('ids and paths', () => {
	it('takes a lower-case publisher id and refuses others with the lower-case form', () => {
		expect(publisherId(context, 0, 'Publisher', 'acme-nodes')).toBe('acme-nodes');
		expect(failure(() => publisherId(context, 0, 'Publisher', 'AcmeNodes')).description).toContain('"acmenodes"');
		expect(failure(() => publisherId(context, 0, 'Publisher', 'acme nodes')).message).toMatch(/^Publisher must not contain spaces/);
		expect(failure(() => publisherId(context, 0, 'Publisher', '')).message).toBe('Publisher is required');
	});

	it('reads resource locator values and plain texts alike', () => {
		expect(locatorValue({ __rl: true, mode: 'list', value: ' acme ' })).toBe('acme');
		expect(locatorValue('acme')).toBe('acme');
		expect(locatorValue(undefined)).toBe('');
	});

	it('encodes every path segment', () => {
		expect(registryPath('publishers', 'acme', 'nodes', 'a.b_c', 'versions', '1.0.0+build')).toBe(
			'/publishers/acme/nodes/a.b_c/versions/1.0.0%2Bbuild',
		);
	});
});

describe('shared field checks', () => {
	it('reads lists from the list box, from arrays and from comma or line separated text', () => {
		expect(stringList(context, 0, 'Tags', ['a', ' b ', ''])).toEqual(['a', 'b']);
		expect(stringList(context, 0, 'Tags', 'a, b,\nc')).toEqual(['a', 'b', 'c']);
		expect(stringList(context, 0, 'Tags', undefined)).toEqual([]);
		expect(failure(() => stringList(context, 0, 'Tags', 42)).message).toBe('Tags must be a list of texts (got "42")');
	});

	it('checks whole numbers, booleans, enums and JSON objects', () => {
		expect(integerInRange(context, 0, 'Page Size', '25', 1, 100)).toBe(25);
		expect(failure(() => integerInRange(context, 0, 'Page Size', 0, 1, 100)).message).toBe(
			'Page Size must be a whole number from 1 to 100 (got "0")',
		);
		expect(booleanValue(context, 0, 'Deprecated', 'TRUE')).toBe(true);
		expect(failure(() => booleanValue(context, 0, 'Deprecated', 'yes')).message).toBe('Deprecated must be true or false (got "yes")');
		expect(oneOf(context, 0, 'Status', 'b', ['a', 'b'])).toBe('b');
		expect(failure(() => oneOf(context, 0, 'Status', 'c', ['a', 'b'])).message).toBe('Status must be one of a, b (got "c")');
		expect(jsonObject(context, 0, 'Translations', '{"de":{}}')).toEqual({ de: {} });
		expect(failure(() => jsonObject(context, 0, 'Translations', '[1]')).message).toBe('Translations must be a JSON object (got "[1]")');
	});
});

describe('request bodies from collections', () => {
	it('uses the spec names and types, and skips unknown options', () => {
		// Node fields, plus one field of a version and one of a publisher.
		const body = bodyFromFields(context, 0, 'Node Fields', [...NODE_FIELDS, DEPRECATED_FIELD, MEMBERS_FIELD], {
			bannerUrl: 'https://x.example/b.png',
			preemptedNodeNames: 'A, B',
			supportedHostuiFrontendVersion: '>=1',
			deprecated: 'false',
			somethingElse: 'ignored',
			icon: '',
			members: { member: [{ role: 'admin', userEmail: 'a@x.example' }] },
		} as IDataObject);
		expect(body).toEqual({
			banner_url: 'https://x.example/b.png',
			preempted_host_node_names: ['A', 'B'],
			supported_hostui_frontend_version: '>=1',
			deprecated: false,
			icon: '',
			members: [{ role: 'admin', user: { email: 'a@x.example' } }],
		});
	});

	it('says which collection a bad field is in', () => {
		expect(failure(() => bodyFromFields(context, 0, 'Update Fields', PUBLISHER_UPDATE_FIELDS, { name: ' ' })).message).toBe(
			'Name (in Update Fields) is required',
		);
		expect(failure(() => bodyFromFields(context, 0, 'Update Fields', PUBLISHER_UPDATE_FIELDS, { status: 'Banned' })).message).toBe(
			'Status (in Update Fields) must be one of PublisherStatusActive, PublisherStatusBanned (got "Banned")',
		);
	});
});

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
