/**
 * The simulator's folders, checked so they stay true: each area (cloud/, self-hosted/, v2/, registry/,
 * media/) imports only shared/, and self-hosted/ and v2/ also cloud/, whose job engine they run on; shared/
 * imports no area; only the entry points at the top (server.ts, cli.ts) may import every folder, and
 * nothing imports them back. The simulator stands alone: no import leaves simulator/. Type-only
 * imports count, since they tie the folders together just the same.
 */
import { join, relative, sep } from 'node:path';

import { importGraph, sourceFiles } from '../../support/import-graph';

const ROOT = join(__dirname, '../../..');
const SIMULATOR = join(ROOT, 'simulator');

/** Folder → the other folders its files may import (its own is always allowed). */
const MAY_IMPORT: Record<string, string[]> = {
	shared: [],
	cloud: ['shared'],
	'self-hosted': ['shared', 'cloud'],
	v2: ['shared', 'cloud'],
	registry: ['shared'],
	media: ['shared'],
};
const ENTRY_POINTS = ['server.ts', 'cli.ts'];

/** The folder of a path relative to simulator/, or '' for a file at the top. */
const folderOf = (path: string) => (path.includes('/') ? path.slice(0, path.indexOf('/')) : '');

/** Whether a file in `folder` may import `to` (relative to simulator/); the entry points may import anything. */
function mayImport(folder: string, to: string): boolean {
	if (ENTRY_POINTS.includes(to)) return false;
	return folderOf(to) === folder || (MAY_IMPORT[folder] ?? []).includes(folderOf(to));
}

/** Every import that breaks the rules, as `from → to` (paths relative to simulator/; outside it, relative to `root`). */
function ruleBreaks(graph: Map<string, string[]>, simulator: string, root: string): string[] {
	const inSimulator = (file: string) => relative(simulator, file).split(sep).join('/');
	const breaks: string[] = [];
	for (const [file, targets] of graph) {
		const from = inSimulator(file);
		const folder = folderOf(from);
		for (const target of targets) {
			const to = inSimulator(target);
			if (to.startsWith('../')) breaks.push(`${from} → ${relative(root, target)}`);
			else if (folder !== '' && !mayImport(folder, to)) breaks.push(`${from} → ${to}`);
		}
	}
	return breaks.sort();
}

const files = sourceFiles(ROOT, ['simulator']);

test('every simulator file is an entry point or sits in a folder with a rule', () => {
	expect(files.length).toBeGreaterThan(30);
	const placed = (path: string) => ENTRY_POINTS.includes(path) || folderOf(path) in MAY_IMPORT;
	expect(files.map((file) => relative(SIMULATOR, file).split(sep).join('/')).filter((path) => !placed(path))).toEqual([]);
});

test('the simulator imports follow the folder rules (type-only imports included)', () => {
	expect(ruleBreaks(importGraph(files), SIMULATOR, ROOT)).toEqual([]);
});

test('the rule check finds imports that break the rules', () => {
	const graph = new Map([
		['/r/simulator/cloud/run.ts', ['/r/simulator/self-hosted/cache.ts', '/r/simulator/shared/core.ts', '/r/simulator/cloud/graph.ts']],
		['/r/simulator/shared/core.ts', ['/r/simulator/media/area.ts']],
		['/r/simulator/self-hosted/area.ts', ['/r/simulator/cloud/area.ts', '/r/simulator/server.ts']],
		['/r/simulator/registry/area.ts', ['/r/nodes/shared/items.ts']],
		['/r/simulator/server.ts', ['/r/simulator/media/area.ts', '/r/simulator/self-hosted/area.ts']],
	]);
	expect(ruleBreaks(graph, '/r/simulator', '/r')).toEqual([
		'cloud/run.ts → self-hosted/cache.ts',
		'registry/area.ts → nodes/shared/items.ts',
		'self-hosted/area.ts → server.ts',
		'shared/core.ts → media/area.ts',
	]);
});
