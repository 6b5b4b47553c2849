/**
 * The package's shape, checked so it stays true: no import cycles (type-only imports included),
 * the import rules between the nodes' folders (the ones their folders' header comments state),
 * no file in nodes/ over 400 lines, and every value of every resource and operation dropdown runs
 * an operation module (a missing one fails here, not in a user's run).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

import type { INodeProperties, INodeType, INodeTypeDescription } from 'n8n-workflow';

import { HostCloud } from '../../nodes/HostCloud/HostCloud.node';
import { resources as cloudResources } from '../../nodes/HostCloud/actions/router';
import { HostMedia } from '../../nodes/HostMedia/HostMedia.node';
import { resources as mediaResources } from '../../nodes/HostMedia/actions/router';
import { HostRegistry } from '../../nodes/HostRegistry/HostRegistry.node';
import { resources as registryResources } from '../../nodes/HostRegistry/actions/router';
import type { NodeResources } from '../../nodes/shared/items/items';
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

describe("import rules between folders (what each folder's header comment says it may call)", () => {
	const imports = [...importGraph(sourceFiles(ROOT, ['nodes', 'credentials']))].flatMap(([from, targets]) =>
		targets.map((to) => [relative(ROOT, from), relative(ROOT, to)] as const),
	);
	const CLOUD = 'nodes/HostCloud/helpers';
	const MEDIA = 'nodes/HostMedia/helpers';
	/** The graph model: graph/ but node-definitions.ts, which reads the definitions from the server. */
	const MODEL_IN_HELPERS = 'graph/(?!node-definitions\\.ts$)';
	const MODEL = `${CLOUD}/${MODEL_IN_HELPERS}`;
	const paths = (pattern: string) => new RegExp(`^(?:${pattern})`);
	// [rule, the files it binds, the files they may not import], as paths from the package root.
	const rules: Array<[string, RegExp, RegExp]> = [
		[
			'a transport imports no helpers, actions, methods or node',
			paths('nodes/\\w+/transport/'),
			paths('nodes/\\w+/(helpers|actions|methods)/|nodes/\\w+/\\w+\\.node\\.ts$'),
		],
		[
			'helpers import no actions, methods or node',
			paths('nodes/\\w+/helpers/'),
			paths('nodes/\\w+/(actions|methods)/|nodes/\\w+/\\w+\\.node\\.ts$'),
		],
		['nodes/shared imports no node', paths('nodes/shared/'), paths('nodes/(?!shared/)')],
		[
			"a node's common descriptions are imported by its operation files only",
			paths('(?!nodes/\\w+/actions/\\w+/\\w+\\.operation\\.ts$)'),
			paths('nodes/\\w+/actions/common\\.descriptions\\.ts$'),
		],
		[
			"Host Cloud's graph model (graph/ but node-definitions, which reads them) imports nothing else of Host Cloud",
			paths(MODEL),
			paths(`nodes/HostCloud/(?!helpers/${MODEL_IN_HELPERS})`),
		],
		['graph/ calls no other helper folder', paths(`${CLOUD}/graph/`), paths(`${CLOUD}/(?!graph/)`)],
		[
			'ui-format/ reads only the graph model',
			paths(`${CLOUD}/ui-format/`),
			paths(`nodes/HostCloud/(?!helpers/ui-format/|helpers/${MODEL_IN_HELPERS})`),
		],
		[
			'only submit/prepare-workflow calls ui-format/',
			paths(`(?!${CLOUD}/ui-format/|${CLOUD}/submit/prepare-workflow\\.ts$)`),
			paths(`${CLOUD}/ui-format/`),
		],
		[
			'files/ calls of the other helper folders only the graph model',
			paths(`${CLOUD}/files/`),
			paths(`${CLOUD}/(?!files/|${MODEL_IN_HELPERS})`),
		],
		[
			'submit/ calls graph/, ui-format/, files/ and ownership/ only',
			paths(`${CLOUD}/submit/`),
			paths(`${CLOUD}/(?!submit/|graph/|ui-format/|files/|ownership/)`),
		],
		['progress-socket/ calls no other helper folder', paths(`${CLOUD}/progress-socket/`), paths(`${CLOUD}/(?!progress-socket/)`)],
		[
			'job-reports/ calls ownership/ and of files/ only output-files',
			paths(`${CLOUD}/job-reports/`),
			paths(`${CLOUD}/(?!job-reports/|ownership/|files/output-files\\.ts$)`),
		],
		[
			'jobs/ calls job-reports/, progress-socket/ and ownership/ only',
			paths(`${CLOUD}/jobs/`),
			paths(`${CLOUD}/(?!jobs/|job-reports/|progress-socket/|ownership/)`),
		],
		['no other helper folder calls jobs/ (the operations do)', paths(`${CLOUD}/(?!jobs/)`), paths(`${CLOUD}/jobs/`)],
		['ownership/ calls no other helper folder', paths(`${CLOUD}/ownership/`), paths(`${CLOUD}/(?!ownership/)`)],
		[
			'finished-jobs/ calls job-reports/, progress-socket/ and ownership/ only',
			paths(`${CLOUD}/finished-jobs/`),
			paths(`${CLOUD}/(?!finished-jobs/|job-reports/|progress-socket/|ownership/)`),
		],
		[
			'only the trigger calls finished-jobs/',
			paths(`(?!${CLOUD}/finished-jobs/|nodes/HostCloud/HostCloudTrigger\\.node\\.ts$)`),
			paths(`${CLOUD}/finished-jobs/`),
		],
		[
			'v2-jobs/ calls ownership/, assets/, submit/ and the graph model only',
			paths(`${CLOUD}/v2-jobs/`),
			paths(`${CLOUD}/(?!v2-jobs/|ownership/|assets/|submit/|${MODEL_IN_HELPERS})`),
		],
		['no other helper folder calls v2-jobs/ (the operations do)', paths(`${CLOUD}/(?!v2-jobs/)`), paths(`${CLOUD}/v2-jobs/`)],
		['no other helper folder calls server/', paths(`${CLOUD}/(?!server/)`), paths(`${CLOUD}/server/`)],
		["Host Media's music/ calls no tasks/ or inputs/", paths(`${MEDIA}/music/`), paths(`${MEDIA}/(tasks|inputs)/`)],
		["Host Media's tasks/ calls no music/ or inputs/", paths(`${MEDIA}/tasks/`), paths(`${MEDIA}/(music|inputs)/`)],
		["Host Media's inputs/ calls no music/ or tasks/", paths(`${MEDIA}/inputs/`), paths(`${MEDIA}/(music|tasks)/`)],
	];
	const broken = (from: RegExp, to: RegExp) => imports.filter(([a, b]) => from.test(a) && to.test(b)).map(([a, b]) => `${a} → ${b}`);

	test.each(rules)('%s', (_rule, from, to) => {
		expect(broken(from, to)).toEqual([]);
	});

	test('no node imports another node (nodes/shared is theirs to share)', () => {
		const node = (path: string) => /^nodes\/(Host\w+)\//.exec(path)?.[1];
		expect(imports.filter(([a, b]) => node(a) && node(b) && node(a) !== node(b)).map(([a, b]) => `${a} → ${b}`)).toEqual([]);
	});

	/** A node's helper folders that import one another, directly or around a ring (`nodes/X/helpers/a ↔ b`). */
	const tiedHelperFolders = (edges: ReadonlyArray<readonly [string, string]>): string[] => {
		const folderOf = (path: string) => /^(nodes\/\w+\/helpers\/[\w-]+)\//.exec(path)?.[1];
		const folders = new Map<string, string[]>();
		for (const [a, b] of edges) {
			const [from, to] = [folderOf(a), folderOf(b)];
			if (!from || !to || from === to || from.split('/')[1] !== to.split('/')[1]) continue;
			folders.set(join(ROOT, from), [...new Set([...(folders.get(join(ROOT, from)) ?? []), join(ROOT, to)])]);
		}
		return importCycles(folders, ROOT).map((ring) => ring.join(' ↔ '));
	};

	test("no two helper folders of a node import each other, type-only imports included (each folder's calls point one way)", () => {
		expect(imports.some(([a, b]) => /helpers\/ui-format\//.test(a) && /helpers\/graph\//.test(b))).toBe(true);
		expect(tiedHelperFolders(imports)).toEqual([]);
	});

	test('the folder check sees a tie put in (the graph model importing the converter)', () => {
		const tie = ['nodes/HostCloud/helpers/graph/workflow-graph.ts', 'nodes/HostCloud/helpers/ui-format/convert.ts'] as const;
		expect(tiedHelperFolders([...imports, tie])).toEqual(['nodes/HostCloud/helpers/graph ↔ nodes/HostCloud/helpers/ui-format']);
	});

	test('the rules see real imports (a pattern that matches nothing would pass anyway)', () => {
		const files = sourceFiles(ROOT, ['nodes']).map((file) => relative(ROOT, file));
		expect(broken(paths(`${CLOUD}/submit/prepare-workflow\\.ts$`), paths(`${CLOUD}/ui-format/convert\\.ts$`))).toHaveLength(1);
		for (const [, from, to] of rules) {
			expect(imports.some(([a]) => from.test(a))).toBe(true);
			expect(files.some((file) => to.test(file))).toBe(true);
		}
	});
});

describe('one door for all I/O: only nodes/shared/transport/transport.ts sends HTTP', () => {
	/** A call of n8n's HTTP helpers, the global fetch, or Node's HTTP modules. */
	const DOOR =
		/\bhelpers\.(httpRequest|httpRequestWithAuthentication|request|requestWithAuthentication|requestOAuth2|requestOAuth1)\b|\bfetch\s*\(|['"](node:)?https?['"]|['"](node:)?net['"]/;
	const offenders = (dirs: string[]): string[] =>
		sourceFiles(ROOT, dirs)
			.map((file) => relative(ROOT, file))
			.filter((file) => file !== 'nodes/shared/transport/transport.ts')
			.filter((file) =>
				readFileSync(join(ROOT, file), 'utf8')
					.split('\n')
					.some((line) => !/^\s*(\*|\/\/)/.test(line) && DOOR.test(line)),
			);

	test('no other file in nodes/ or credentials/ calls httpRequest, request, fetch or node:http(s)', () => {
		expect(offenders(['nodes', 'credentials'])).toEqual([]);
	});

	test('the check sees a real call (the transport itself makes one)', () => {
		const transport = readFileSync(join(ROOT, 'nodes/shared/transport/transport.ts'), 'utf8');
		expect(transport.split('\n').filter((line) => DOOR.test(line)).length).toBeGreaterThanOrEqual(2);
	});
});

describe('forms are declared by the actions: helpers/ and transport/ export no parameter', () => {
	/** The files (path from the package root, text) under a node's helpers/ or transport/ whose text holds `displayName`. */
	const withDisplayName = (files: Array<[string, string]>): string[] =>
		files.filter(([file, text]) => /^nodes\/\w+\/(helpers|transport)\//.test(file) && text.includes('displayName')).map(([file]) => file);

	test('no file under nodes/*/helpers/ or nodes/*/transport/ holds displayName', () => {
		const files = sourceFiles(ROOT, ['nodes']).map((file) => [relative(ROOT, file), readFileSync(file, 'utf8')] as [string, string]);
		expect(files.filter(([file]) => /^nodes\/\w+\/(helpers|transport)\//.test(file)).length).toBeGreaterThan(20);
		expect(withDisplayName(files)).toEqual([]);
	});

	test('the check sees a parameter put in a helper', () => {
		const form = readFileSync(join(ROOT, 'nodes/HostCloud/HostCloudTrigger.node.ts'), 'utf8');
		expect(withDisplayName([['nodes/HostCloud/HostCloudTrigger.node.ts', form]])).toEqual([]);
		expect(withDisplayName([['nodes/HostCloud/helpers/finished-jobs/settings.ts', form]])).toEqual([
			'nodes/HostCloud/helpers/finished-jobs/settings.ts',
		]);
	});
});

test('no file in nodes/ is over 400 lines', () => {
	const long = sourceFiles(ROOT, ['nodes'])
		.map((file) => ({ file: relative(ROOT, file), lines: readFileSync(file, 'utf8').split('\n').length }))
		.filter((entry) => entry.lines > 400);
	expect(long).toEqual([]);
});

test('no folder of nodes/ holds more than 15 source files (a larger one is split by concern)', () => {
	const perFolder = new Map<string, number>();
	for (const file of sourceFiles(ROOT, ['nodes'])) perFolder.set(dirname(file), (perFolder.get(dirname(file)) ?? 0) + 1);
	const crowded = [...perFolder].filter(([, count]) => count > 15).map(([folder, count]) => `${relative(ROOT, folder)}: ${count}`);
	expect(crowded).toEqual([]);
});

/** Host Cloud's credential and its server kinds: its own transport describes them, never nodes/shared. */
const HOST_CLOUD_NAMES = /hostCloudApi|selfHosted/;

test('no file of nodes/shared names Host Cloud (its credential, its self-hosted server)', () => {
	const naming = sourceFiles(ROOT, ['nodes/shared'])
		.filter((file) => HOST_CLOUD_NAMES.test(readFileSync(file, 'utf8')))
		.map((file) => relative(ROOT, file));
	expect(naming).toEqual([]);
});

test('the Host Cloud name check sees a name (Host Cloud itself names both)', () => {
	expect(HOST_CLOUD_NAMES.test(readFileSync(join(ROOT, 'nodes/HostCloud/transport/cloud-service.ts'), 'utf8'))).toBe(true);
});

describe('green on any clone: data kept outside the repository is reached through test/support/shared-data.ts alone', () => {
	/** A path built to ../shared (join or resolve with a `shared` segment): what a test that reads outside data would write. */
	const BUILDS_SHARED_PATH = /\b(?:join|resolve)\([^)]*['"`](?:\.\.\/)*shared['"`/]/;
	const DATA_DOOR = 'test/support/shared-data.ts';
	const scripts = (folders: string[]) =>
		folders.flatMap((folder) =>
			sourceFiles(ROOT, [folder]).concat(
				readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
					.filter((file) => file.endsWith('.js') && !file.includes('node_modules'))
					.map((file) => join(ROOT, folder, file)),
			),
		);

	test('no other file of test/, simulator/, bench/ or scripts/ builds a path to ../shared (it would throw on a bare clone instead of skipping)', () => {
		const files = scripts(['test', 'simulator', 'bench', 'scripts']).filter((file) => !file.includes(`${join('test', 'e2e', '.work')}`));
		expect(files.length).toBeGreaterThan(200);
		const building = files.filter((file) => BUILDS_SHARED_PATH.test(readFileSync(file, 'utf8'))).map((file) => relative(ROOT, file));
		expect(building).toEqual([DATA_DOOR]);
	});
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
