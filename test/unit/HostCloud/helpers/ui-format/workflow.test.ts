/**
 * The UI-format converter against real data. The real pairs (a workflow and the prompt the editor
 * made of it, with the server's node definitions of that time) are public data kept outside the
 * repository, in ../shared/ui-format: read from there, never copied here; skipped, saying so, where
 * it is absent. Our own small cases, for what needs nothing outside, are workflow-rules.test.ts,
 * editor-rules.test.ts and the engine's HostCloud/ui-format.test.ts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { convertUiWorkflow } from '../../../../../nodes/HostCloud/helpers/ui-format/convert';
import type { GraphResult, WorkflowGraph } from '../../../../../nodes/HostCloud/helpers/graph/workflow-graph';
import type { NodeDefinitions } from '../../../../../nodes/HostCloud/helpers/graph/class-definitions';
import { describeWithShared } from '../../../../support/shared-data';

const FIELD = 'Workflow';

function readJson(...path: string[]): Record<string, unknown> {
	return JSON.parse(readFileSync(join(...path), 'utf8')) as Record<string, unknown>;
}

function converted(result: GraphResult): WorkflowGraph {
	if ('problem' in result) throw new Error(`Not converted: ${result.problem.message}`);
	return result.graph;
}

/** The value a widget sends when a saved workflow is too short to hold it. */
function definitionDefault(definitions: NodeDefinitions, classType: string, input: string): unknown {
	const { required = {}, optional = {} } = definitions[classType]?.input ?? {};
	const spec = (required[input] ?? optional[input]) as [unknown, Record<string, unknown>?] | undefined;
	if (!spec) return undefined;
	if (spec[1]?.default !== undefined) return spec[1].default;
	return Array.isArray(spec[0]) ? spec[0][0] : undefined;
}

const OLD_UPLOAD_KEYS = ['upload', 'choose file to upload'];

/**
 * Differences between a conversion and the editor's prompt, with the tolerances the data's README
 * lists: no `_meta` in older prompts, numbers by value, the server's node-level `is_changed`, the
 * upload keys old editors sent, and inputs added to a node after the file was saved (sent at their
 * defaults now).
 */
function differences(got: WorkflowGraph, expected: Record<string, Record<string, unknown>>, definitions: NodeDefinitions): string[] {
	const found: string[] = [];
	for (const id of new Set([...Object.keys(got), ...Object.keys(expected)])) {
		const mine = got[id];
		const theirs = expected[id] as { class_type: string; inputs: Record<string, unknown>; _meta?: unknown } | undefined;
		if (!mine || !theirs) {
			found.push(`node ${id}: ${mine ? 'not in the prompt' : 'missing'}`);
			continue;
		}
		if (mine.class_type !== theirs.class_type) found.push(`node ${id}: class ${mine.class_type}, expected ${theirs.class_type}`);
		if (theirs._meta !== undefined && JSON.stringify(mine._meta) !== JSON.stringify(theirs._meta)) {
			found.push(`node ${id}: _meta ${JSON.stringify(mine._meta)}, expected ${JSON.stringify(theirs._meta)}`);
		}
		for (const name of new Set([...Object.keys(mine.inputs), ...Object.keys(theirs.inputs)])) {
			if (OLD_UPLOAD_KEYS.includes(name)) continue;
			const value = mine.inputs[name];
			if (!(name in theirs.inputs) && value === definitionDefault(definitions, mine.class_type, name) && value !== undefined) continue;
			if (JSON.stringify(value) !== JSON.stringify(theirs.inputs[name])) {
				found.push(`node ${id}.${name}: ${JSON.stringify(value)}, expected ${JSON.stringify(theirs.inputs[name])}`);
			}
		}
	}
	return found;
}

describeWithShared('ui-format', 'the real workflow/prompt pairs (../shared/ui-format)', (shared) => {
	const pairs = readdirSync(join(shared, 'pairs')).sort();
	const definitions = readJson(shared, 'object_info.json') as NodeDefinitions;
	const pair = (name: string, file: string) => readJson(shared, 'pairs', name, file);

	test('all the pairs are there', () => {
		expect(pairs).toHaveLength(8);
	});

	test.each(pairs)('%s converts to the prompt the editor sent', (name) => {
		const result = convertUiWorkflow(pair(name, 'workflow.json'), definitions, FIELD);
		const expected = pair(name, 'prompt.json') as Record<string, Record<string, unknown>>;
		expect(differences(converted(result), expected, definitions)).toEqual([]);
	});

	test('the comparison itself catches a wrong value, a wrong link and a missing node', () => {
		const expected = pair(pairs[0]!, 'prompt.json') as Record<string, Record<string, unknown>>;
		const graph = converted(convertUiWorkflow(pair(pairs[0]!, 'workflow.json'), definitions, FIELD));
		graph['3']!.inputs.steps = 31;
		graph['8']!.inputs.vae = ['4', 1];
		delete graph['9'];
		expect(differences(graph, expected, definitions)).toEqual([
			'node 3.steps: 31, expected 30',
			'node 8.vae: ["4",1], expected ["4",2]',
			'node 9: missing',
		]);
	});
});

describeWithShared(
	'ui-format',
	'the near-pairs (../shared/ui-format/near-pairs): structure only, their API side was edited by hand',
	(shared) => {
		const near = join(shared, 'near-pairs', 'fofr-cog-comfyui-tooncrafter');
		const read = (file: string) => readJson(near, file);
		const nearDefinitions = readJson(shared, 'near-pairs', 'object_info.json') as NodeDefinitions;

		test('a node whose definition changed since the file was saved is refused, by name', () => {
			const result = convertUiWorkflow(read('workflow_ui.json'), nearDefinitions, FIELD);
			expect('problem' in result && result.problem.message).toBe(
				`Workflow: node 70 (ImageResize+): its saved widget values do not fit the server's definition of ImageResize+: value 4 of 6 in its widgets_values: read as widget "method", it should be a choice, not true`,
			);
		});

		test('legacy Reroute nodes collapse to the real origin; dict-form values send their keys', () => {
			// The node as it was when the file was saved: a true/false "keep_proportion" where "method" is now.
			const resize = nearDefinitions['ImageResize+']!;
			const { method: _method, ...rest } = resize.input!.required!;
			const then = {
				...nearDefinitions,
				'ImageResize+': { ...resize, input: { required: { ...rest, keep_proportion: ['BOOLEAN', {}] } } },
			};
			const order = ['image', 'width', 'height', 'interpolation', 'keep_proportion', 'condition', 'multiple_of'];
			then['ImageResize+'] = { ...then['ImageResize+'], input_order: { required: order } };
			const graph = converted(convertUiWorkflow(read('workflow_ui.json'), then, FIELD));
			const api = read('workflow_api.json') as Record<string, { class_type: string; inputs: Record<string, unknown> }>;
			expect(Object.keys(graph).sort()).toEqual(Object.keys(api).sort());
			for (const [id, node] of Object.entries(api)) {
				expect([id, graph[id]!.class_type]).toEqual([id, node.class_type]);
				const links = (inputs: Record<string, unknown>) => Object.entries(inputs).filter(([, value]) => Array.isArray(value));
				expect([id, links(graph[id]!.inputs)]).toEqual([id, links(node.inputs)]);
				// "Update inputs" is a button of a custom node's own script: object_info cannot tell it exists (a known limit).
				const names = (inputs: Record<string, unknown>) =>
					Object.keys(inputs)
						.filter((name) => !OLD_UPLOAD_KEYS.includes(name) && name !== 'Update inputs')
						.sort();
				// Inputs added to a class after the file was saved are sent at their defaults.
				const added = (name: string) =>
					!(name in node.inputs) && graph[id]!.inputs[name] === definitionDefault(then, node.class_type, name);
				if (node.class_type !== 'ImageResize+')
					expect([id, names(graph[id]!.inputs).filter((name) => !added(name))]).toEqual([id, names(node.inputs)]);
			}
			expect(graph['49']!.inputs.clip).toEqual(['59', 0]);
		});
	},
);
