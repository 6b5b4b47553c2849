/**
 * The editor's own test workflows (../shared/ui-format/frontend-assets, public data kept outside the
 * repository) converted and compared, node by node, with what the editor sends for each
 * (test/support/frontend-assets.ts): the same node ids with the same classes, the inputs each
 * file's edge case is about, and the notes a user reads about what was assumed. Most of these files
 * have no output node, so the real server cannot judge them (test/real-server judges the others):
 * this is their judge. Skipped, saying so, where ../shared is absent (a clone with nothing beside it).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { convertUiWorkflow } from '../../../../../nodes/HostCloud/helpers/ui-format/convert';
import { conversionNotes } from '../../../../../nodes/HostCloud/helpers/graph/workflow-graph';
import type { NodeDefinitions } from '../../../../../nodes/HostCloud/helpers/graph/class-definitions';
import { assetFiles, EXPECTED, MORE_CORE_DEFINITIONS } from '../../../../support/frontend-assets';
import { describeWithShared } from '../../../../support/shared-data';

describeWithShared('ui-format', "the editor's test workflows (../shared/ui-format/frontend-assets)", (shared) => {
	const ASSETS = join(shared, 'frontend-assets');
	const definitions: NodeDefinitions = {
		...(JSON.parse(readFileSync(join(shared, 'object_info.json'), 'utf8')) as NodeDefinitions),
		...MORE_CORE_DEFINITIONS,
	};
	const files = assetFiles(ASSETS);
	const convert = (file: string) =>
		convertUiWorkflow(JSON.parse(readFileSync(join(ASSETS, file), 'utf8')) as Record<string, unknown>, definitions, 'Workflow');

	test('every file of the corpus has what the editor sends written down, and nothing else is', () => {
		expect([...files].sort()).toEqual(Object.keys(EXPECTED).sort());
		expect(files).toHaveLength(47);
	});

	const judged = files.filter((file) => EXPECTED[file] && !EXPECTED[file].notApplicable && !EXPECTED[file].nothingToSend);
	test.each(judged)('%s: the nodes, inputs and notes the editor would give', (file) => {
		const expected = EXPECTED[file]!;
		const result = convert(file);
		if ('problem' in result) throw new Error(`Not converted: ${result.problem.message}`);
		const { graph } = result;
		const classes = Object.fromEntries(Object.entries(graph).map(([id, node]) => [id, node.class_type]));
		if (expected.nodes) expect(classes).toEqual(expected.nodes);
		if (expected.nodeCount !== undefined) expect(Object.keys(graph)).toHaveLength(expected.nodeCount);
		for (const [where, value] of Object.entries(expected.inputs ?? {})) {
			const dot = where.lastIndexOf('.');
			expect([where, graph[where.slice(0, dot)]?.inputs[where.slice(dot + 1)]]).toEqual([where, value]);
		}
		const notes = conversionNotes(graph);
		for (const words of expected.notes ?? []) expect(notes).toContainEqual(expect.stringContaining(words));
	});

	const notApplicable = files.filter((file) => EXPECTED[file]?.notApplicable);
	test.each(notApplicable)(
		'%s: not applicable (test nodes, or core nodes newer than the server here); the converter names them',
		(file) => {
			const result = convert(file);
			expect('problem' in result && result.problem.message).toMatch(/^Workflow: the server does not know the node type of /);
			const named = 'problem' in result ? [...result.problem.message.matchAll(/\(([^()]+)\)(?=,|:| and)/g)].map((match) => match[1]) : [];
			expect(new Set(named)).toEqual(new Set(EXPECTED[file]!.notApplicable!.classes));
		},
	);

	const nothing = files.filter((file) => EXPECTED[file]?.nothingToSend);
	test.each(nothing)('%s: the editor would send nothing runnable; the converter says why', (file) => {
		const result = convert(file);
		expect('problem' in result && result.problem.message).toContain(EXPECTED[file]!.nothingToSend);
	});
});
