/**
 * Running one example of examples/ in n8n as cases/examples.ts does (and the n8n 1.x smoke suite):
 * its own checks (support/example-checks.ts) and the generic ones, that it succeeds, no node fails,
 * its last nodes output items and every simulator URL in its output can be fetched.
 */
import { AI_EXAMPLE_CHECKS } from './ai-example-checks';
import { EXAMPLE_CHECKS, type ExampleCheck } from './example-checks';
import { describeFailure, type ExecutionResult, type WorkflowJson } from './n8n-client';
import { V2_CREDENTIAL_TYPE } from './instance-setup';
import type { HostStack } from './stack';
import { MANUAL_TRIGGER_TYPE, hostNodeTypesIn, type ExampleFile, urlsIn } from './workflows';

/** The example's own checks, if it has any. */
export function exampleCheck(file: string): ExampleCheck | undefined {
	return EXAMPLE_CHECKS[file] ?? AI_EXAMPLE_CHECKS[file];
}

/** How long a test running the example may take: its own run's limit and half a minute for the checks. */
export function exampleTestTimeoutMs(file: string): number {
	return (exampleCheck(file)?.timeoutMs ?? 60000) + 30000;
}

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

async function genericChecks(stack: HostStack, execution: ExecutionResult, workflow: WorkflowJson): Promise<void> {
	const { simulator } = stack;
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

export interface ExampleRunOptions {
	/** A change to the workflow before it is imported, as a user edits a parameter. */
	change?: (workflow: WorkflowJson) => WorkflowJson;
	/** How long the run may take (default: the example's own limit, or a minute). */
	timeoutMs?: number;
}

/**
 * Imports the example (prepared for an offline run, then changed as `options` say), runs it, and
 * applies the generic checks and its own; answers the execution.
 */
export async function runExample(stack: HostStack, example: ExampleFile, options: ExampleRunOptions = {}): Promise<ExecutionResult> {
	const check = exampleCheck(example.file);
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
		const copy = JSON.parse(JSON.stringify(example.workflow)) as WorkflowJson;
		const ready = check?.prepare ? await check.prepare(copy, stack) : copy;
		const prepared = options.change ? options.change(ready) : ready;
		// A v2 example is imported here with its credential unbound; its own run binds its server's.
		const stored = await stack.importWorkflow(prepared, `${example.workflow.name} (e2e)`, {}, [V2_CREDENTIAL_TYPE]);
		const execution = check?.run
			? await check.run(stored, stack)
			: await stack.client.runWorkflow(stored.id, { timeoutMs: options.timeoutMs ?? check?.timeoutMs ?? 60000 });
		await genericChecks(stack, execution, prepared);
		await check?.verify(execution, stack, stored);
		return execution;
	} finally {
		await check?.cleanup?.(stack);
	}
}
