/**
 * The editor's own test workflows (../shared/ui-format/frontend-assets) judged by the real
 * validator: each file is converted with the real server's node definitions and sent to its
 * /prompt, and reported as accepted, refused (with why), not applicable (classes the server lacks)
 * or converter error. A refusal or a converter error that is the converter's fault fails:
 * - "prompt_no_outputs" is not, when the saved file has no output node that is on (the editor's
 *   own prompt is refused the same way; npm test compares those conversions with the editor's);
 * - "no nodes to run" is not, when every node of the file is off (the editor sends nothing);
 * - anything else is.
 * Skipped, saying so, where ../shared/ui-format is absent.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { convertUiWorkflow } from '../../../nodes/HostCloud/helpers/ui-format/convert';
import type { NodeDefinitions } from '../../../nodes/HostCloud/helpers/graph/class-definitions';
import type { WorkflowGraph } from '../../../nodes/HostCloud/helpers/graph/workflow-graph';
import { assetFiles } from '../../support/frontend-assets';
import { describeWithShared } from '../../support/shared-data';
import { drainQueue, realServer } from '../support/real-server';

type Verdict =
	| { kind: 'accepted'; nodes: number }
	| { kind: 'refused'; why: string; converterFault: boolean }
	| { kind: 'not applicable'; why: string }
	| { kind: 'converter error'; why: string; converterFault: boolean };

/** Every node the saved file would run if the editor sent it: on (mode 0), in every graph it holds. */
function savedNodes(workflow: Record<string, unknown>): Array<{ type: string; mode: number }> {
	const graphs = [
		workflow,
		...(((workflow.definitions as { subgraphs?: unknown[] } | undefined)?.subgraphs ?? []) as Array<Record<string, unknown>>),
	];
	const groups = Object.values((workflow.extra as { groupNodes?: Record<string, Record<string, unknown>> } | undefined)?.groupNodes ?? {});
	return [...graphs, ...groups].flatMap((graph) =>
		((graph.nodes ?? []) as Array<{ type: string; mode?: number }>).map((node) => ({ type: node.type, mode: node.mode ?? 0 })),
	);
}

async function judge(assets: string, file: string, definitions: NodeDefinitions): Promise<Verdict> {
	const workflow = JSON.parse(readFileSync(join(assets, file), 'utf8')) as Record<string, unknown>;
	const result = convertUiWorkflow(workflow, definitions, 'Workflow');
	if ('problem' in result) {
		const why = result.problem.message;
		if (why.includes('the server does not know the node type')) return { kind: 'not applicable', why };
		const allOff = savedNodes(workflow).every((node) => node.mode !== 0 || ['Note', 'MarkdownNote'].includes(node.type));
		return { kind: 'converter error', why, converterFault: !(why.includes('has no nodes to run') && allOff) };
	}
	const prompt: WorkflowGraph = result.graph;
	const answer = await fetch(`${realServer().url}/prompt`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ prompt, client_id: 'n8n-corpus' }),
	});
	const body = (await answer.json()) as { error?: { type?: string; message?: string }; node_errors?: unknown };
	if (answer.status === 200) return { kind: 'accepted', nodes: Object.keys(prompt).length };
	const type = body.error?.type ?? `HTTP ${answer.status}`;
	const why = `${type}: ${body.error?.message ?? ''} ${JSON.stringify(body.node_errors ?? {}).slice(0, 400)}`;
	if (type !== 'prompt_no_outputs') return { kind: 'refused', why, converterFault: true };
	const outputOn = savedNodes(workflow).some(
		(node) => node.mode === 0 && (definitions[node.type] as { output_node?: boolean } | undefined)?.output_node === true,
	);
	return { kind: 'refused', why, converterFault: outputOn };
}

describeWithShared('ui-format', 'the editor’s test workflows on the real validator (frontend-assets)', (shared) => {
	const assets = join(shared, 'frontend-assets');
	const files = assetFiles(assets);
	const verdicts = new Map<string, Verdict>();

	beforeAll(async () => {
		const definitions = (await (await fetch(`${realServer().url}/object_info`)).json()) as NodeDefinitions;
		for (const file of files) verdicts.set(file, await judge(assets, file, definitions));
		await drainQueue(realServer().url);
		const count = (kind: Verdict['kind']) => [...verdicts.values()].filter((verdict) => verdict.kind === kind).length;
		const lines = files.map((file) => {
			const verdict = verdicts.get(file)!;
			return `  ${verdict.kind.padEnd(15)} ${file}${'why' in verdict ? `: ${verdict.why.slice(0, 160)}` : ` (${verdict.nodes} nodes)`}`;
		});
		process.stderr.write(
			`[real-server] frontend-assets: ${count('accepted')} accepted, ${count('refused')} refused, ${count('not applicable')} not applicable, ${count('converter error')} converter errors\n${lines.join('\n')}\n`,
		);
	}, 300_000);

	test.each(files)('%s: accepted, or refused only for a reason outside the converter', (file) => {
		const verdict = verdicts.get(file)!;
		expect([file, 'converterFault' in verdict && verdict.converterFault ? verdict.why : 'not the converter']).toEqual([
			file,
			'not the converter',
		]);
	});
});
