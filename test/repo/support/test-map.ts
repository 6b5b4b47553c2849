/**
 * Where the tests of a source file of nodes/ or credentials/ are: its mirrored unit test
 * (`nodes/X/y/z.ts` → `test/unit/X/y/z.test.ts`, `credentials/z.ts` → `test/unit/credentials/z.test.ts`)
 * or the tests the index (`test-index.ts` beside this file) names for it, and whether a named test
 * really exercises it. Read from the files as text and from the package's import graph, so the check
 * is cheap: no test is run.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

import { importGraph, sourceFiles } from '../../support/import-graph';

/**
 * "With logic": the file exports a function or a class (a declaration or an arrow function). By this
 * rule a router (`actions/router.ts`, `actions/<resource>/index.ts`), a file of constants or of types
 * has none; description files (`*.descriptions.ts`, `nodes/shared/descriptions/`) are left out by
 * name: they build the node panel's parameters, which the node panel and structure tests check.
 */
const EXPORTS_LOGIC =
	/^export\s+(?:default\s+)?(?:async\s+)?(?:function|(?:abstract\s+)?class)\b|^export\s+const\s+\w+\s*(?::[^=\n]+)?=\s*(?:async\s+)?(?:\([^)]*\)|\w+)\s*(?::[^=\n]+)?=>/m;
const DESCRIPTION_FILE = /\.descriptions\.ts$|^nodes\/shared\/descriptions\//;

export function hasLogic(path: string, text: string): boolean {
	return !DESCRIPTION_FILE.test(path) && EXPORTS_LOGIC.test(text);
}

/** Every .ts file of nodes/ and credentials/, as paths from the package root. */
export function packageSources(root: string): string[] {
	return sourceFiles(root, ['nodes', 'credentials']).map((file) => relative(root, file));
}

/** The test at the mirrored path of a source file. */
export function mirroredTest(source: string): string {
	return `test/unit/${source.replace(/^nodes\//, '')}`.replace(/\.ts$/, '.test.ts');
}

/** "same-path tests X of Y": the source files (all of them, and those with logic) whose mirrored test exists. */
export function samePathFigure(root: string): string {
	const sources = packageSources(root);
	const mirrored = (files: string[]) => files.filter((file) => existsSync(join(root, mirroredTest(file)))).length;
	const withLogic = sources.filter((file) => hasLogic(file, readFileSync(join(root, file), 'utf8')));
	return `same-path tests ${mirrored(sources)} of ${sources.length} (${mirrored(withLogic)} of ${withLogic.length} files with logic)`;
}

/** An operation file, `nodes/<Node>/actions/<resource>/<operation>.operation.ts`, and the values the node panel sends for it. */
export function operationOf(source: string): { node: string; resource: string; operation: string } | undefined {
	const match = /^nodes\/(\w+)\/actions\/(\w+)\/(\w+)\.operation\.ts$/.exec(source);
	return match ? { node: match[1]!, resource: match[2]!, operation: match[3]! } : undefined;
}

/**
 * Whether a test's text names the resource and operation values together, the way a run's
 * parameters do (`resource: 'image', operation: 'relight'`, `run('file', 'uploadMask', …)`,
 * `['queue', 'interrupt']`): the two quoted values with at most a key between them.
 */
export function namesOperation(testText: string, resource: string, operation: string): boolean {
	const quoted = (value: string) => `['"\`]${value}['"\`]`;
	const between = `[\\s,:\\w]{0,24}?`;
	return new RegExp(`${quoted(resource)}${between}${quoted(operation)}|${quoted(operation)}${between}${quoted(resource)}`).test(testText);
}

/** Files whose imports fan out to every operation: reaching them says nothing of which operation a test runs. */
const ROUTER = /\/actions\/(router|\w+\/index)\.ts$/;

/** What a test can reach: the package's import graph and the type names of its nodes and credentials. */
export interface PackageMap {
	root: string;
	/** Source (from the root) → the sources it imports, routers left out. */
	imports: Map<string, string[]>;
	/** A node's or a credential's type name (`hostCloudTrigger`, `hostApi`) → its file. */
	typeNames: Map<string, string>;
	/** A node's folder (`HostCloud`) → the node file that runs its operations (the one importing its router). */
	operationNodes: Map<string, string>;
}

/** The type name of every node and credential package.json registers → its source file (the classes are loaded, as n8n loads them). */
export function registeredTypeNames(root: string): Map<string, string> {
	const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { n8n: { nodes: string[]; credentials: string[] } };
	const names = new Map<string, string>();
	for (const built of [...pkg.n8n.nodes, ...pkg.n8n.credentials]) {
		const source = built.replace(/^dist\//, '').replace(/\.js$/, '.ts');
		const exports = require(join(root, source)) as Record<string, new () => { name?: string; description?: { name: string } }>;
		for (const Class of Object.values(exports).filter((value) => typeof value === 'function')) {
			const instance = new Class();
			names.set(instance.description?.name ?? instance.name ?? '', source);
		}
	}
	names.delete('');
	return names;
}

export function packageMap(root: string, typeNames = registeredTypeNames(root)): PackageMap {
	const imports = new Map<string, string[]>();
	const operationNodes = new Map<string, string>();
	for (const [from, targets] of importGraph(sourceFiles(root, ['nodes', 'credentials']))) {
		const source = relative(root, from);
		const sources = targets.map((to) => relative(root, to));
		const router = sources.find((to) => /^nodes\/\w+\/actions\/router\.ts$/.test(to));
		if (router && source.endsWith('.node.ts')) operationNodes.set(router.split('/')[1]!, source);
		imports.set(
			source,
			sources.filter((to) => !ROUTER.test(to)),
		);
	}
	return { root, imports, typeNames, operationNodes };
}

/** The sources a test imports. */
function importedBy(map: PackageMap, test: string): string[] {
	return (importGraph([join(map.root, test)]).get(join(map.root, test)) ?? []).map((file) => relative(map.root, file));
}

/** The sources a test runs by naming them: the operations whose values it names (with their node), the node and credential types it names. */
function namedBy(map: PackageMap, text: string): string[] {
	const operations = [...map.imports.keys()].flatMap((source) => {
		const named = operationOf(source);
		if (!named || !namesOperation(text, named.resource, named.operation)) return [];
		return [source, map.operationNodes.get(named.node) ?? source];
	});
	const types = [...map.typeNames].filter(([name]) => new RegExp(`['"\`](?:n8n-nodes-host\\.)?${name}['"\`]`).test(text));
	return [...operations, ...types.map(([, file]) => file)];
}

/** Everything the sources import, directly or through others (never through a router), and the sources themselves. */
function closure(map: PackageMap, starts: string[]): Set<string> {
	const seen = new Set<string>();
	const queue = [...starts];
	while (queue.length > 0) {
		const file = queue.pop()!;
		if (seen.has(file)) continue;
		seen.add(file);
		queue.push(...(map.imports.get(file) ?? []));
	}
	return seen;
}

export type Exercise = 'imports' | 'names' | 'reaches';

/** What a test imports, and everything it reaches (computed once per test). */
interface TestReach {
	text: string;
	imported: string[];
	reached: Set<string>;
}

const reachCache = new WeakMap<PackageMap, Map<string, TestReach>>();

function reachOf(map: PackageMap, test: string): TestReach {
	const cache = reachCache.get(map) ?? new Map<string, TestReach>();
	reachCache.set(map, cache);
	let reach = cache.get(test);
	if (!reach) {
		const text = readFileSync(join(map.root, test), 'utf8');
		const imported = importedBy(map, test);
		reach = { text, imported, reached: closure(map, [...imported, ...namedBy(map, text)]) };
		cache.set(test, reach);
	}
	return reach;
}

/**
 * How a test exercises a source, or undefined if it does not: `imports` (the test imports it),
 * `names` (an operation file whose resource and operation values the test names), `reaches` (what
 * the test imports or names imports it, directly or through others, never through a router).
 */
export function howExercised(map: PackageMap, source: string, test: string): Exercise | undefined {
	const { text, imported, reached } = reachOf(map, test);
	if (imported.includes(source)) return 'imports';
	const named = operationOf(source);
	if (named && namesOperation(text, named.resource, named.operation)) return 'names';
	return reached.has(source) ? 'reaches' : undefined;
}
