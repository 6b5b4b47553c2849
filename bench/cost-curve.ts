/**
 * The cost curve of a Host Cloud batch: one node run of 10, 100 and 1000 jobs at *Max Concurrent
 * Jobs* 50 against a simulator that runs 50 at once.
 *
 * - `batch_overhead_ratio_<n>`: wall time over the ideal (waves of 50 × the simulator's own mean
 *   job time; one wave when n ≤ 50);
 * - `cpu_ms_per_job_<n>`: CPU time (user + system) of this process, the n8n side, per job;
 * - `heap_kib_per_inflight_job`: what one more job in flight adds to the heap (after a full GC),
 *   from 5 and 50 jobs held in flight at once, so the run's fixed cost drops out;
 * - `completion_latency_ms_p99_ws` / `_p50_ws_short`: from the simulator finishing a job to the
 *   node run returning its outputs, over 200 one-job runs of short jobs (WebSocket path).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { EngineHarness } from '../test/support/engine';
import { type Figures, median, report, ROOT, startHostCloudSimulator } from './support';

const LIMIT = 50;
const SIZES = [10, 100, 1000];
const LATENCY_JOBS = 200;
const graph = readFileSync(join(ROOT, 'test/fixtures/txt2img-api.json'), 'utf8');

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapAfterGc(): number {
	gc();
	gc();
	return process.memoryUsage().heapUsed;
}

function percentile(values: number[], p: number): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const round = (value: number, places = 3) => Math.round(value * 10 ** places) / 10 ** places;

async function main(): Promise<void> {
	const { sim, credential: data } = await startHostCloudSimulator('cloud', { sim: { nodeMs: 50, parallelLimit: LIMIT } });
	const harness = new EngineHarness();
	const credential = harness.addCredential('hostCloudApi', data);
	const batch = (jobs: number) =>
		harness.runNode(
			{
				type: 'hostCloud',
				parameters: { resource: 'workflow', operation: 'execute', workflow: graph, additionalFields: { maxConcurrentJobs: LIMIT } },
				credentials: { hostCloudApi: credential },
			},
			Array.from({ length: jobs }, (_, i) => ({ json: { i } })),
		);
	const promptIds = (items: Array<{ json: Record<string, unknown> }>) => items.map((item) => String(item.json.prompt_id));
	const jobTimes = (ids: string[]) => sim.query<Array<{ startedAt?: number; finishedAt?: number }>>({ command: 'jobs', promptIds: ids });

	// Warm-up: the engine, the first connection and V8's optimised code, then a clean simulator.
	await batch(LIMIT);
	await sim.query({ command: 'reset' });

	const figures: Figures = {};
	for (const jobs of SIZES) {
		const cpuBefore = process.cpuUsage();
		const started = Date.now();
		const result = await batch(jobs);
		const wall = Date.now() - started;
		const cpu = process.cpuUsage(cpuBefore);
		if (result.status !== 'success' || result.items.length !== jobs)
			throw new Error(`batch of ${jobs} failed: ${result.error('Node')?.message}`);
		const times = await jobTimes(promptIds(result.items));
		const meanJobMs = times.reduce((sum, job) => sum + (job.finishedAt! - job.startedAt!), 0) / times.length;
		const ideal = Math.ceil(jobs / LIMIT) * meanJobMs;
		figures[`batch_overhead_ratio_${jobs}`] = round(wall / ideal);
		figures[`batch_wall_ms_${jobs}`] = wall;
		figures[`cpu_ms_per_job_${jobs}`] = round((cpu.user + cpu.system) / 1000 / jobs);
		await sim.query({ command: 'reset' });
	}
	figures.cpu_per_job_ratio_1000_over_10 = round(Number(figures.cpu_ms_per_job_1000) / Number(figures.cpu_ms_per_job_10), 2);

	// Heap held per job in flight: jobs long enough (7 nodes × 300 ms) to sample while all run.
	await sim.query({ command: 'nodeMs', nodeMs: 300 });
	const heapInFlight = async (jobs: number): Promise<number> => {
		const baseline = heapAfterGc();
		const run = batch(jobs);
		while ((await sim.query<number>({ command: 'running' })) < jobs) await new Promise((resolve) => setTimeout(resolve, 10));
		const held = heapAfterGc() - baseline;
		const result = await run;
		if (result.status !== 'success') throw new Error(`in-flight run of ${jobs} failed: ${result.error('Node')?.message}`);
		await sim.query({ command: 'reset' });
		return held;
	};
	const few = await heapInFlight(5);
	const many = await heapInFlight(LIMIT);
	figures.heap_kib_per_inflight_job = round((many - few) / (LIMIT - 5) / 1024, 1);

	// Completion latency: short jobs one at a time, so each return is timed on its own.
	await sim.query({ command: 'nodeMs', nodeMs: 10 });
	const latencies: number[] = [];
	for (let i = 0; i < LATENCY_JOBS; i++) {
		const result = await batch(1);
		const returnedAt = Date.now();
		if (result.status !== 'success') throw new Error(`one-job run failed: ${result.error('Node')?.message}`);
		const [job] = await jobTimes(promptIds(result.items));
		latencies.push(returnedAt - job!.finishedAt!);
	}
	figures.completion_latency_ms_p99_ws = percentile(latencies, 99);
	figures.completion_latency_ms_p50_ws_short = median(latencies);
	figures.completion_latency_p99_jobs = LATENCY_JOBS;
	await sim.close();
	report(figures);
}

void main().catch((error: Error) => {
	process.stderr.write(`${error.stack ?? error.message}\n`);
	process.exit(1);
});
