/**
 * The package's shape, checked so it stays true: no import cycles (type-only imports included),
 * no file in nodes/ over 400 lines, and every value of every resource and operation dropdown runs
 * an operation module (a missing one fails here, not in a user's run).
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

import type { INodeProperties, INodeType, INodeTypeDescription } from 'n8n-workflow';

import { HostCloud } from '../../nodes/HostCloud/HostCloud.node';
import { resources as cloudResources } from '../../nodes/HostCloud/actions/router';
import { HostMedia } from '../../nodes/HostMedia/HostMedia.node';
import { resources as mediaResources } from '../../nodes/HostMedia/actions/router';
import { HostRegistry } from '../../nodes/HostRegistry/HostRegistry.node';
import { resources as registryResources } from '../../nodes/HostRegistry/actions/router';
import type { NodeResources } from '../../nodes/shared/items';
import { importCycles, importGraph, sourceFiles } from '../support/import-graph';

const ROOT = join(__dirname, '../..');

test('no module imports itself through others (type-only imports included)', () => {
	const files = sourceFiles(ROOT, ['nodes', 'credentials', 'simulator', 'bench', 'test']);
	expect(files.length).toBeGreaterThan(100);
	expect(importCycles(importGraph(files), ROOT)).toEqual([]);
});

test('the cycle finder finds a cycle, type-only imports included', () => {
	const graph = new Map([
		['/r/a.ts', ['/r/b.ts']],
		['/r/b.ts', ['/r/a.ts']],
		['/r/c.ts', ['/r/a.ts']],
	]);
	expect(importCycles(graph, '/r')).toEqual([['a.ts', 'b.ts']]);
});

test('no file in nodes/ is over 400 lines', () => {
	const long = sourceFiles(ROOT, ['nodes'])
		.map((file) => ({ file: relative(ROOT, file), lines: readFileSync(file, 'utf8').split('\n').length }))
		.filter((entry) => entry.lines > 400);
	expect(long).toEqual([]);
});

/** The values a dropdown named `name` offers where `resource` (if given) is shown. */
function dropdownValues(properties: INodeProperties[], name: string, resource?: string): string[] {
	return properties
		.filter((property) => property.name === name && property.type === 'options')
		.filter((property) => resource === undefined || (property.displayOptions?.show?.resource as string[] | undefined)?.includes(resource))
		.flatMap((property) => (property.options ?? []).map((option) => String((option as { value: unknown }).value)));
}

describe.each<[string, INodeType, NodeResources]>([
	['Host Cloud', new HostCloud(), cloudResources],
	['Host Media', new HostMedia(), mediaResources],
	['Host Registry', new HostRegistry(), registryResources],
])('%s', (_name, node, resources) => {
	const { properties } = node.description as INodeTypeDescription;
	const pairs = dropdownValues(properties, 'resource').flatMap((resource) =>
		dropdownValues(properties, 'operation', resource).map((operation) => [resource, operation] as const),
	);

	test('every resource has operations', () => {
		for (const resource of dropdownValues(properties, 'resource'))
			expect(dropdownValues(properties, 'operation', resource).length).toBeGreaterThan(0);
	});

	test.each(pairs)('%s → %s runs an operation module', (resource, operation) => {
		const module = resources[resource]?.operations[operation];
		expect(module).toBeDefined();
		expect(typeof (module!.execute ?? module!.executeAll)).toBe('function');
	});

	test('no operation module is left out of the dropdowns', () => {
		const offered = new Set(pairs.map(([resource, operation]) => `${resource}.${operation}`));
		const modules = Object.entries(resources).flatMap(([resource, { operations }]) =>
			Object.keys(operations).map((operation) => `${resource}.${operation}`),
		);
		expect(modules.filter((key) => !offered.has(key))).toEqual([]);
	});
});
