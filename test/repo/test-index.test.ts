/**
 * A test is found from its file: every source file of nodes/ and credentials/ with logic (it
 * exports a function or a class; description files, routers and files of constants or types have
 * none: the rule is `hasLogic` in support/test-map.ts) has its test at the mirrored path
 * (`nodes/X/y/z.ts` → `test/unit/X/y/z.test.ts`) or an entry in the test index
 * (support/test-index.ts) naming the tests that exercise it. A named or mirrored test must
 * exercise its source: it imports it, or (an operation file, run through its node) it names the
 * operation's resource and operation values as the node panel sends them, or (a helper) what it
 * imports or runs (an operation it or the support it calls names, a node or credential type it or
 * its support names) imports the helper, directly or through others, never through a router. The
 * check is static: it proves a named test can reach the file, not that every line runs; an entry is
 * chosen by reading the test.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { resources as cloudResources } from '../../nodes/HostCloud/actions/router';
import { resources as mediaResources } from '../../nodes/HostMedia/actions/router';
import { resources as registryResources } from '../../nodes/HostRegistry/actions/router';
import { TEST_INDEX } from './support/test-index';
import {
	entryProblems,
	hasLogic,
	howExercised,
	mirroredTest,
	namesOperation,
	operationOf,
	packageMap,
	packageSources,
	samePathFigure,
	sourcesWithLogic,
	untestedSources,
} from './support/test-map';

const ROOT = join(__dirname, '../..');
const map = packageMap(ROOT);

// The figure is in the title, so `npx jest test/repo/test-index.test.ts` prints it.
test(`the figure: ${samePathFigure(ROOT)}`, () => {
	expect(sourcesWithLogic(ROOT).length).toBeGreaterThan(100);
});

test('every source file with logic has a test at its mirrored path or an entry in the test index', () => {
	expect(untestedSources(ROOT, TEST_INDEX)).toEqual([]);
});

test('every mirrored test exercises its source file', () => {
	const idle = sourcesWithLogic(ROOT)
		.filter((file) => existsSync(join(ROOT, mirroredTest(file))))
		.filter((file) => !howExercised(map, file, mirroredTest(file)));
	expect(idle).toEqual([]);
});

test('every index entry names a source file with logic and tests that exist and exercise it', () => {
	const noLogic = Object.keys(TEST_INDEX).filter(
		(file) => existsSync(join(ROOT, file)) && !hasLogic(file, readFileSync(join(ROOT, file), 'utf8')),
	);
	expect(noLogic).toEqual([]);
	expect(Object.entries(TEST_INDEX).flatMap(([source, tests]) => entryProblems(map, source, tests))).toEqual([]);
});

describe('the checks see what they check', () => {
	test('logic: a module of functions has it; a router, a description file, constants and types have none', () => {
		const logic = (file: string) => hasLogic(file, readFileSync(join(ROOT, file), 'utf8'));
		expect(logic('nodes/shared/waits/pause.ts')).toBe(true);
		expect(logic('nodes/HostCloud/HostCloud.node.ts')).toBe(true);
		expect(logic('nodes/HostMedia/actions/router.ts')).toBe(false);
		expect(logic('nodes/HostMedia/actions/image/index.ts')).toBe(false);
		expect(logic('nodes/HostMedia/actions/common.descriptions.ts')).toBe(false);
		expect(logic('nodes/shared/transport/service-api.ts')).toBe(false);
		expect(hasLogic('nodes/x/y.ts', 'export const read = async (text: string): Promise<number> => 1;')).toBe(true);
		expect(hasLogic('nodes/x/y.ts', 'export const LIMIT = 3;\nexport type Limit = number;')).toBe(false);
	});

	test('the mirrored path drops nodes/ and keeps credentials/', () => {
		expect(mirroredTest('nodes/HostCloud/helpers/jobs/socket-share.ts')).toBe('test/unit/HostCloud/helpers/jobs/socket-share.test.ts');
		expect(mirroredTest('credentials/cloud-server.ts')).toBe('test/unit/credentials/cloud-server.test.ts');
		expect(packageSources(ROOT)).toContain('credentials/cloud-server.ts');
	});

	test("an operation file's folder and name are its resource and operation values in the node's router", () => {
		const routers: Record<string, Record<string, { operations: Record<string, unknown> }>> = {
			HostCloud: cloudResources,
			HostMedia: mediaResources,
			HostRegistry: registryResources,
		};
		const operations = packageSources(ROOT).flatMap((file) => operationOf(file) ?? []);
		expect(operations.length).toBeGreaterThan(30);
		const strays = operations.filter(({ node, resource, operation }) => !routers[node]?.[resource]?.operations[operation]);
		expect(strays).toEqual([]);
	});

	test('naming an operation takes its resource with it: Node → Update is not Node Version → Update', () => {
		expect(namesOperation(`run({ resource: 'nodeVersion', operation: 'update' })`, 'nodeVersion', 'update')).toBe(true);
		expect(namesOperation(`run({ resource: 'nodeVersion', operation: 'update' })`, 'node', 'update')).toBe(false);
		expect(namesOperation(`run('file', 'uploadMask', {})`, 'file', 'uploadMask')).toBe(true);
		expect(
			namesOperation(`{ resource: 'server', ...parameters }; toolNode({ operation: 'getSystemStats' })`, 'server', 'getSystemStats'),
		).toBe(true);
		expect(namesOperation(`// uploadMask, then 'file'`, 'file', 'uploadMask')).toBe(false);
	});

	test('an entry fails for a test that does not reach its source, a missing test, a missing source', () => {
		const engine = 'test/engine/HostRegistry/registry.test.ts';
		expect(howExercised(map, 'nodes/HostRegistry/helpers/credential-fields.ts', engine)).toBe('reaches');
		expect(entryProblems(map, 'nodes/HostMedia/helpers/music/stream.ts', [engine])).toEqual([
			`nodes/HostMedia/helpers/music/stream.ts: ${engine} neither imports it nor runs anything that reaches it`,
		]);
		expect(entryProblems(map, 'nodes/HostMedia/actions/image/relight.operation.ts', ['test/engine/HostMedia/music.test.ts'])).toHaveLength(
			1,
		);
		expect(entryProblems(map, 'nodes/shared/items/path-segment.ts', ['test/engine/shared/no-such.test.ts'])).toEqual([
			'nodes/shared/items/path-segment.ts: test/engine/shared/no-such.test.ts does not exist',
		]);
		expect(entryProblems(map, 'nodes/shared/items/gone.ts', [engine])).toHaveLength(1);
	});

	test('a source with logic and neither a mirrored test nor an entry is found', () => {
		const { 'nodes/shared/items/path-segment.ts': _dropped, ...index } = TEST_INDEX;
		expect(untestedSources(ROOT, index)).toEqual(['nodes/shared/items/path-segment.ts']);
	});
});
