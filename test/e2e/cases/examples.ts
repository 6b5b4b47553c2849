/**
 * Every workflow in examples/ runs in n8n and its output is checked: the generic checks below for
 * all of them, plus the example's own checks from support/example-checks.ts. None is skipped: an
 * example that needs a node this build lacks fails and names the node.
 */
import { e2e } from '../support/context';
import { AI_EXAMPLE_CHECKS } from '../support/ai-example-checks';
import { EXAMPLE_CHECKS } from '../support/example-checks';
import { describeFailure, type ExecutionResult, type WorkflowJson } from '../support/n8n-client';
import { MANUAL_TRIGGER_TYPE, hostNodeTypesIn, loadExamples, urlsIn } from '../support/workflows';

const examples = loadExamples();

/**
 * Nodes that end a branch (no outgoing main connection), sticky notes, disabled nodes and sub-nodes
 * (a model or a tool, connected to an agent or an MCP trigger by an ai_* connection) aside.
 */
function lastNodes(workflow: WorkflowJson): string[] {
	return workflow.nodes
		.filter((node) => node.type !== 'n8n-nodes-base.stickyNote' && node.disabled !== true)
		.filter((node) => {
			const connections = (workflow.connections[node.name] ?? {}) as Record<string, unknown[][] | undefined>;
			const outputs = connections.main ?? [];
			const subNode = Object.keys(connections).some((type) => type.startsWith('ai_'));
			return !subNode && outputs.every((targets) => !targets || targets.length === 0);
		})
		.map((node) => node.name);
}

async function genericChecks(execution: ExecutionResult, workflow: WorkflowJson): Promise<void> {
	const { simulator } = e2e();
	expect(describeFailure(execution)).toBe('succeeded');
	for (const [name, runs] of Object.entries(execution.runData)) {
		for (const run of runs) expect(`${name}: ${run.error?.message ?? 'no error'}`).toBe(`${name}: no error`);
	}
	for (const name of lastNodes(workflow)) {
		const runs = execution.runData[name];
		expect(`${name} ran: ${Boolean(runs?.length)}`).toBe(`${name} ran: true`);
		const items = runs![runs!.length - 1]!.data?.main?.flatMap((output) => output ?? []) ?? [];
		expect(`${name} output items: ${items.length > 0}`).toBe(`${name} output items: true`);
	}
	// Every address of the simulator in the output (signed file URLs...) answers without a credential.
	const simulatorOrigins = [simulator.baseUrl, simulator.registryUrl, simulator.storageUrl].map((url) => new URL(url).origin);
	const urls = urlsIn(Object.values(execution.runData).map((runs) => runs.map((run) => run.data?.main ?? []))).filter((url) =>
		simulatorOrigins.includes(new URL(url).origin),
	);
	for (const url of urls) {
		const response = await fetch(url);
		expect(`${url} → ${response.status}`).toBe(`${url} → 200`);
		await response.arrayBuffer();
	}
}

describe('example workflows in n8n', () => {
	it(`examples/ holds ${examples.length} workflow file(s), all importable`, () => {
		const { examples: imported } = e2e();
		expect(imported.map((example) => example.file)).toEqual(examples.map((example) => example.file));
	});

	for (const example of examples) {
		const check = EXAMPLE_CHECKS[example.file] ?? AI_EXAMPLE_CHECKS[example.file];
		const label = check
			? `${example.file} runs and its output checks out`
			: `${example.file} runs (generic checks only: add it to support/example-checks.ts)`;
		it(
			label,
			async () => {
				const stack = e2e();
				const known = await stack.client.nodeTypeNames();
				const missing = hostNodeTypesIn(example.workflow).filter((type) => !known.has(type));
				if (missing.length > 0) {
					throw new Error(
						`${example.file} needs ${missing.join(', ')}, which this build does not have (package.json "n8n.nodes", then npm run build)`,
					);
				}
				const hasManualTrigger = example.workflow.nodes.some((node) => node.type === MANUAL_TRIGGER_TYPE);
				if (!hasManualTrigger && !check?.run) {
					throw new Error(`${example.file} has no manual trigger: say how to start it (a "run" entry) in support/example-checks.ts`);
				}
				try {
					const prepared = check?.prepare
						? await check.prepare(JSON.parse(JSON.stringify(example.workflow)) as WorkflowJson, stack)
						: example.workflow;
					const stored = await stack.importWorkflow(prepared, `${example.workflow.name} (e2e)`);
					const execution = check?.run
						? await check.run(stored, stack)
						: await stack.client.runWorkflow(stored.id, { timeoutMs: check?.timeoutMs ?? 60000 });
					await genericChecks(execution, prepared);
					await check?.verify(execution, stack, stored);
				} finally {
					await check?.cleanup?.(stack);
				}
			},
			(check?.timeoutMs ?? 60000) + 30000,
		);
	}
});
