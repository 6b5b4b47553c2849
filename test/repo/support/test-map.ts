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
 * Whether a test's text names the resource and operation values the way a run's parameters do:
 * side by side (`resource: 'image', operation: 'relight'`, `run('file', 'uploadMask', …)`,
 * `['queue', 'interrupt']`: the two quoted values with at most a key between them), or both as
 * parameters of the file (`resource: 'server'` in a helper, `operation: 'getSystemStats'` in a case).
 */
export function namesOperation(testText: string, resource: string, operation: string): boolean {
	const quoted = (value: string) => `['"\`]${value}['"\`]`;
	const between = `[\\s,:\\w]{0,24}?`;
	const sideBySide = new RegExp(`${quoted(resource)}${between}${quoted(operation)}|${quoted(operation)}${between}${quoted(resource)}`);
	const parameter = (name: string, value: string) => new RegExp(`\\b${name}\\s*:\\s*${quoted(value)}`).test(testText);
	return sideBySide.test(testText) || (parameter('resource', resource) && parameter('operation', operation));
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

/** The package's sources a test imports, and the test support modules it imports (`direct`ly, or through other support). */
function importedBy(map: PackageMap, test: string): { sources: string[]; direct: string[]; support: string[] } {
	const importsOf = (file: string) =>
		(importGraph([join(map.root, file)]).get(join(map.root, file)) ?? []).map((to) => relative(map.root, to));
	const imported = importsOf(test);
	const isSupport = (file: string) => file.startsWith('test/support/');
	const direct = imported.filter(isSupport);
	const support = reachable(direct, (file) => importsOf(file).filter(isSupport));
	return { sources: imported.filter((file) => /^(nodes|credentials)\//.test(file)), direct, support: [...support] };
}

/** The operations whose values a test's text names, each with the node that runs it. */
function operationsNamedBy(map: PackageMap, text: string): string[] {
	return [...map.imports.keys()].flatMap((source) => {
		const named = operationOf(source);
		if (!named || !namesOperation(text, named.resource, named.operation)) return [];
		return [source, map.operationNodes.get(named.node) ?? source];
	});
}

/** The nodes and credentials whose type names the texts name (a test, or the support it runs a node with: `new ListeningTrigger(…)`). */
function typesNamedBy(map: PackageMap, texts: string[]): string[] {
	const named = (name: string) => texts.some((text) => new RegExp(`['"\`](?:n8n-nodes-host\\.)?${name}['"\`]`).test(text));
	return [...map.typeNames].filter(([name]) => named(name)).map(([, file]) => file);
}

/** The files reachable from `starts` by `next` (the starts included). */
function reachable(starts: string[], next: (file: string) => string[]): Set<string> {
	const seen = new Set<string>();
	const queue = [...starts];
	while (queue.length > 0) {
		const file = queue.pop()!;
		if (seen.has(file)) continue;
		seen.add(file);
		queue.push(...next(file));
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
		const { sources, direct, support } = importedBy(map, test);
		const read = (file: string) => readFileSync(join(map.root, file), 'utf8');
		// A run is often built by the support the test calls (`executeTxt2img()`): the operations it names count for what the test reaches.
		const operations = [text, ...direct.map(read)].flatMap((named) => operationsNamedBy(map, named));
		const starts = [...sources, ...operations, ...typesNamedBy(map, [text, ...support.map(read)])];
		reach = { text, imported: sources, reached: reachable(starts, (file) => map.imports.get(file) ?? []) };
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

/** The sources with logic, as paths from the root. */
export function sourcesWithLogic(root: string): string[] {
	return packageSources(root).filter((file) => hasLogic(file, readFileSync(join(root, file), 'utf8')));
}

/** What is wrong with an index entry: a source or test that does not exist, a test that does not exercise the source (an operation file's must import it or name it). */
export function entryProblems(map: PackageMap, source: string, tests: string[]): string[] {
	if (!existsSync(join(map.root, source))) return [`${source}: no such source file (moved or deleted? update the index)`];
	if (tests.length === 0) return [`${source}: names no test`];
	return tests.flatMap((test) => {
		if (!existsSync(join(map.root, test))) return [`${source}: ${test} does not exist`];
		const how = howExercised(map, source, test);
		if (!how) return [`${source}: ${test} neither imports it nor runs anything that reaches it`];
		if (operationOf(source) && how === 'reaches') return [`${source}: ${test} does not name its resource and operation values`];
		return [];
	});
}

/** The sources with logic that have neither a mirrored test nor an index entry. */
export function untestedSources(root: string, index: Record<string, string[]>): string[] {
	return sourcesWithLogic(root).filter((file) => !existsSync(join(root, mirroredTest(file))) && !(file in index));
}
