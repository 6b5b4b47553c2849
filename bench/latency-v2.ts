/**
 * v2_completion_latency_ms_median_sse / _poll: from the simulator's v2 flavour finishing a job (its
 * own `completed_at`) to a Host Cloud Execute run on the v2 jobs API returning that job's outputs,
 * median over 50 jobs each: with the event stream (the terminal `status` event, then one GET), and
 * with the stream off (`501 not_implemented`), polling at a Poll Interval of 1 s.
 * v2_poll_interval_ms_median: the median gap between two GETs of one job while it is polled, which
 * should be the interval the user set.
 *
 * Run by `npm run bench` right after `latency` (v1), so both generations are measured in one run.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { EngineHarness } from '../test/support/engine';
import { type Figures, median, report, ROOT, startRemoteSimulator } from './support';

const JOBS = Number(process.env.BENCH_LATENCY_JOBS ?? 50);
const POLL_SECONDS = 1;

/** The same varied job lengths as latency.ts (7 nodes × 100-400 ms), so a poller's phase is spread. */
function nodeMsSequence(count: number): number[] {
	let seed = 42;
	return Array.from({ length: count }, () => {
		seed = (seed * 1103515245 + 12345) % 2147483648;
		return 100 + Math.floor((seed / 2147483648) * 300);
	});
}
const graph = readFileSync(join(ROOT, 'test/fixtures/txt2img-api.json'), 'utf8');

async function main(): Promise<void> {
	const sim = await startRemoteSimulator({ sim: { flavour: 'v2', nodeMs: 10, parallelLimit: 3, v2: { surface: 'cloud' } } as never });
	const harness = new EngineHarness();
	const credential = harness.addCredential('hostCloudV2Api', { baseUrl: sim.baseUrl, apiKey: sim.apiKey });

	const measure = async (events: 'on' | 'not-implemented'): Promise<{ latencies: number[]; gaps: number[] }> => {
		await sim.query({ command: 'v2Options', v2: { surface: 'cloud', events } });
		const latencies: number[] = [];
		const gaps: number[] = [];
		const lengths = nodeMsSequence(JOBS);
		for (let i = 0; i < JOBS; i++) {
			await sim.query({ command: 'nodeMs', nodeMs: lengths[i] });
			const result = await harness.runNode({
				type: 'hostCloud',
				parameters: {
					apiGeneration: 'v2',
					resource: 'workflow',
					operation: 'execute',
					workflow: graph,
					waitOptions: { pollIntervalSeconds: POLL_SECONDS },
				},
				credentials: { hostCloudV2Api: credential },
			});
			const returnedAt = Date.now();
			if (result.status !== 'success') throw new Error(`run failed: ${result.error('Node')?.message}`);
			const jobId = String(result.items[0]!.json.job_id);
			const [job] = await sim.query<Array<{ completedAt: number | null; reads: number[] }>>({ command: 'v2Jobs', jobIds: [jobId] });
			latencies.push(returnedAt - job!.completedAt!);
			for (let r = 1; r < job!.reads.length; r++) gaps.push(job!.reads[r]! - job!.reads[r - 1]!);
		}
		return { latencies, gaps };
	};

	const sse = await measure('on');
	const poll = await measure('not-implemented');
	await sim.close();
	const figures: Figures = {
		v2_completion_latency_ms_median_sse: median(sse.latencies),
		v2_completion_latency_ms_median_poll: median(poll.latencies),
		v2_poll_interval_ms_median: median(poll.gaps),
		v2_poll_interval_ms_set: POLL_SECONDS * 1000,
		v2_completion_latency_jobs: JOBS,
	};
	report(figures);
}

void main().catch((error: Error) => {
	process.stderr.write(`${error.stack ?? error.message}\n`);
	process.exit(1);
});
