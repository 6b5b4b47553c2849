/**
 * The completion latency through a real n8n on each line the package supports, n8n 1.x (1.123 on
 * Node 22) and 2.x (2.41 on Node 24), each started with the e2e suite's stack
 * (test/e2e/support/stack.ts; the simulator in this process): a manual run of Manual Trigger →
 * Host Cloud (Execute Workflow, the text-to-image graph, a job of 7 × 100 ms), from the simulator
 * finishing the job (its own timestamp) to n8n holding the node's outputs (the end of the node's
 * run in the execution's run data, n8n's own timestamps), median of BENCH_N8N_RUNS runs (default
 * 20) over the WebSocket and as many with Use Live Progress off (polling every 2 s, the default).
 *
 * Figures: n8n1_completion_latency_ms_median_ws / _poll, the same for n8n2, and the ratios
 * n8n1_over_n8n2_completion_latency_ws / _poll (target: within 2).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { N8N_1_RUNTIME, N8N_2_RUNTIME, type RuntimeVersions } from '../test/e2e/support/runtime';
import { startHostStack, type HostStack } from '../test/e2e/support/stack';
import { describeFailure } from '../test/e2e/support/n8n-client';
import { hostNodeType, linearWorkflow, manualTriggerNode } from '../test/e2e/support/workflows';
import { median, report, ROOT, type Figures } from './support';

const RUNS = Number(process.env.BENCH_N8N_RUNS ?? 20);
const NODE_NAME = 'Run graph';
const GRAPH = readFileSync(join(ROOT, 'test/fixtures/txt2img-api.json'), 'utf8');

/** Milliseconds from each job's end on the simulator to the end of the Host Cloud node's run. */
async function latencies(stack: HostStack, useWebSocket: boolean, runs = RUNS): Promise<number[]> {
	const workflow = await stack.importWorkflow(
		linearWorkflow(`Bench: completion latency (${useWebSocket ? 'WebSocket' : 'polling'})`, [
			manualTriggerNode(),
			{
				name: NODE_NAME,
				type: hostNodeType('hostCloud'),
				typeVersion: 2,
				parameters: { resource: 'workflow', operation: 'execute', workflow: GRAPH, waitOptions: { useWebSocket } },
				credentials: { hostCloudApi: { name: 'Host Cloud API' } },
			},
		]),
	);
	const measured: number[] = [];
	for (let run = 0; run < runs; run++) {
		const execution = await stack.client.runWorkflow(workflow.id, { timeoutMs: 300000 });
		if (execution.status !== 'success') throw new Error(`run ${run + 1} failed: ${describeFailure(execution)}`);
		const [nodeRun] = execution.runData[NODE_NAME]!;
		const promptId = String(nodeRun!.data!.main![0]![0]!.json.prompt_id);
		const finishedAt = stack.simulator.cloud.jobs.get(promptId)?.finishedAt;
		if (finishedAt === undefined) throw new Error(`job ${promptId} has no end on the simulator`);
		measured.push(nodeRun!.startTime + nodeRun!.executionTime - finishedAt);
	}
	return measured;
}

async function measureLine(tag: string, runtime: RuntimeVersions): Promise<Figures> {
	const progress = (line: string) => process.stderr.write(`[bench n8n-versions ${tag}] ${line}\n`);
	const stack = await startHostStack({ runtime, importExamples: false, simulator: { nodeMs: 100 }, progress });
	try {
		// One run first, not counted: n8n loads the node and opens its caches on the first execution.
		await latencies(stack, true, 1);
		const ws = await latencies(stack, true);
		const poll = await latencies(stack, false);
		progress(`WebSocket: ${ws.join(', ')} ms; polling: ${poll.join(', ')} ms`);
		return {
			[`${tag}_completion_latency_ms_median_ws`]: median(ws),
			[`${tag}_completion_latency_ms_median_poll`]: median(poll),
			[`${tag}_version`]: `n8n ${runtime.n8n} on Node ${runtime.node}`,
		};
	} finally {
		await stack.stop();
	}
}

async function main(): Promise<void> {
	const n8n1 = await measureLine('n8n1', N8N_1_RUNTIME);
	const n8n2 = await measureLine('n8n2', N8N_2_RUNTIME);
	const ratio = (key: string) =>
		Math.round(((n8n1[`n8n1_${key}`] as number) / Math.max(n8n2[`n8n2_${key}`] as number, 1)) * 100) / 100;
	report({
		...n8n1,
		...n8n2,
		n8n1_over_n8n2_completion_latency_ws: ratio('completion_latency_ms_median_ws'),
		n8n1_over_n8n2_completion_latency_poll: ratio('completion_latency_ms_median_poll'),
		n8n_versions_runs: RUNS,
	});
}

void main().catch((error: Error) => {
	process.stderr.write(`${error.stack ?? error.message}\n`);
	process.exit(1);
});
