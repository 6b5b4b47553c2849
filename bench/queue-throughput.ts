/**
 * Queue-mode throughput, measured and profiled (bench/queue.ts runs it on its stack): 120
 * executions (a production webhook called 120 times at once through the webhook processor, one
 * cloud job of 7 nodes × 500 ms each, the simulator's parallel limit 200, n8n's default of 10 jobs
 * at once per worker) with 1, 2 and 4 workers.
 *
 * - Wall time: first request sent → last execution's stoppedAt in n8n's database; the median of
 *   two batches per worker count, each started once the machine's 1-minute load is below 1.0
 *   (waited for up to 3 minutes; when a batch started above it, one more is run and the quiet ones count).
 * - CPU per execution per worker: each worker process's user + system time (/proc/<pid>/stat)
 *   over the batch, divided by the executions it ran (its log's "Worker finished execution").
 * - The package's share: after the measured batches of each count, one worker is replaced by one
 *   started with `--cpu-prof`, a further batch runs, and that worker's profile (cut to the batch's
 *   window) says which share of its main thread's samples was the package's own code and which ran
 *   with the package on the stack (bench/cpu-profile.ts); times those shares the main thread's CPU
 *   time over the batch (/proc/<pid>/task/<pid>/stat), per execution that worker ran. Profiles and
 *   their summaries are kept in bench/tmp/queue-profile/ (out of git).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import type { QueueProcess, QueueStack } from '../test/e2e/support/queue-stack';
import { postJson, webhookCloudWorkflow } from '../test/e2e/support/queue-workflows';
import { waitFor } from '../test/e2e/support/wait';
import { summariseProfile } from './cpu-profile';
import { machineLoad, median, ROOT, waitForQuietMachine, type Figures } from './support';

const BATCH = 120;
const WARM_UP = 20;
const WORKER_COUNTS = [1, 2, 4];
const JOB_NODE_MS = 500;
/** Measured batches per worker count (the median is reported), and how many more a busy machine may cost. */
const BATCHES = 2;
const EXTRA_BATCHES = 1;
const QUIET_LOAD = 1.0;
const QUIET_WAIT_MS = 180000;
const PROFILE_DIR = join(ROOT, 'bench', 'tmp', 'queue-profile');
/** Where the installed package's code is, in every worker's user folder. */
const PACKAGE_DIST = '/node_modules/n8n-nodes-host/dist/';
/** Linux reports CPU time in clock ticks of 1/100 s. */
const MS_PER_TICK = 10;

const progress = (line: string) => process.stderr.write(`[bench queue] ${line}\n`);
const round = (value: number, places = 1) => Math.round(value * 10 ** places) / 10 ** places;
const nowUs = () => Number(process.hrtime.bigint() / 1000n);

/** User + system CPU time so far, ms (fields 14 and 15 of a /proc stat file). */
function cpuMsIn(statFile: string): number {
	const fields = readFileSync(statFile, 'utf8').split(') ')[1]!.split(' ');
	return (Number(fields[11]) + Number(fields[12])) * MS_PER_TICK;
}

/** A worker's CPU time so far: the whole process's, and its main thread's (where the nodes run; the rest is GC helpers, I/O, compilers). */
function cpuOf(pid: number): { processMs: number; mainThreadMs: number } {
	return { processMs: cpuMsIn(`/proc/${pid}/stat`), mainThreadMs: cpuMsIn(`/proc/${pid}/task/${pid}/stat`) };
}

/** How many of `ids` the worker ran, from its log. */
function executionsRunBy(worker: QueueProcess, ids: Set<string>): number {
	const finished = readFileSync(worker.logFile, 'utf8').matchAll(/Worker finished execution (\d+)/g);
	return [...finished].filter((match) => ids.has(match[1]!)).length;
}

interface Batch {
	wallMs: number;
	loadBefore: number;
	quiet: boolean;
	/** All workers' CPU over all executions, ms. */
	cpuMsPerExecution: number;
	perWorker: Array<{ name: string; executions: number; cpuMs: number; mainThreadCpuMs: number }>;
	fromUs: number;
	toUs: number;
}

/** Calls the production webhook `count` times at once; answers the wall time to the last end and the executions. */
async function runBatch(stack: QueueStack, workflowId: string, url: string, count: number, label: string) {
	const rows = async (sql: string) => (await stack.postgres.query(sql)).split('\n').filter(Boolean);
	const [lastKnown] = await rows(`SELECT coalesce(max(id), 0) FROM execution_entity`);
	const sentAt = Date.now();
	const answers = await Promise.all(Array.from({ length: count }, (_, index) => postJson(url, { tag: `${label}-${index}` })));
	if (answers.some((answer) => answer.status !== 200))
		throw new Error(`${label}: the webhook answered ${answers.map((a) => a.status).join(',')}`);
	// n8n's REST API lists at most 100 executions: the database has them all.
	const ended = await waitFor(
		`${label}: ${count} executions to end`,
		async () => {
			const found = await rows(
				`SELECT id, status, (extract(epoch from "stoppedAt") * 1000)::bigint FROM execution_entity WHERE "workflowId" = '${workflowId}' AND id > ${lastKnown} AND "stoppedAt" IS NOT NULL`,
			);
			return found.length >= count ? found.map((row) => row.split('|')) : undefined;
		},
		{ timeoutMs: 300000, intervalMs: 250 },
	);
	const failed = ended.filter(([, status]) => status !== 'success');
	if (failed.length) throw new Error(`${label}: ${failed.length} execution(s) did not succeed (${failed[0]!.join(' ')})`);
	return { wallMs: Math.max(...ended.map(([, , stoppedAt]) => Number(stoppedAt))) - sentAt, ids: new Set(ended.map(([id]) => id!)) };
}

/** One measured batch, once the machine is quiet, with each worker's CPU over it. */
async function measuredBatch(stack: QueueStack, workflowId: string, url: string, label: string): Promise<Batch> {
	const { load, quiet } = await waitForQuietMachine(QUIET_LOAD, QUIET_WAIT_MS);
	const workers = [...stack.workers];
	const before = workers.map((worker) => cpuOf(worker.process.pid));
	const fromUs = nowUs();
	const { wallMs, ids } = await runBatch(stack, workflowId, url, BATCH, label);
	const toUs = nowUs();
	const perWorker = workers.map((worker, index) => {
		const after = cpuOf(worker.process.pid);
		return {
			name: worker.name,
			executions: executionsRunBy(worker, ids),
			cpuMs: after.processMs - before[index]!.processMs,
			mainThreadCpuMs: after.mainThreadMs - before[index]!.mainThreadMs,
		};
	});
	const ran = perWorker.reduce((sum, worker) => sum + worker.executions, 0);
	if (ran !== BATCH) throw new Error(`${label}: the workers' logs name ${ran} of the ${BATCH} executions`);
	const cpuMsPerExecution = perWorker.reduce((sum, worker) => sum + worker.cpuMs, 0) / ran;
	const each = perWorker.map((w) => `${w.name} ${w.executions} ran, ${round(w.cpuMs / w.executions)} ms CPU each`).join('; ');
	progress(`${label}: ${wallMs} ms (load ${load}${quiet ? '' : ', busy machine'}): ${each}`);
	return { wallMs, loadBefore: load, quiet, cpuMsPerExecution, perWorker, fromUs, toUs };
}

/** The median of the batches started on a quiet machine (of all, if none was), up to BATCHES + EXTRA_BATCHES. */
async function measuredBatches(stack: QueueStack, workflowId: string, url: string, workers: number): Promise<Batch[]> {
	const batches: Batch[] = [];
	while (batches.filter((batch) => batch.quiet).length < BATCHES && batches.length < BATCHES + EXTRA_BATCHES)
		batches.push(await measuredBatch(stack, workflowId, url, `batch-${workers}w-${batches.length}`));
	const quiet = batches.filter((batch) => batch.quiet);
	return quiet.length ? quiet : batches;
}

/** Replaces the first worker by a profiled one, runs a batch, and summarises that worker's profile. */
async function profiledBatch(stack: QueueStack, workflowId: string, url: string, workers: number): Promise<Figures> {
	const dir = join(PROFILE_DIR, `${workers}w`);
	rmSync(dir, { recursive: true, force: true });
	mkdirSync(dir, { recursive: true });
	await stack.stopWorker(stack.workers[0]!);
	const profiled = await stack.startWorker({ NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${dir}` });
	await runBatch(stack, workflowId, url, WARM_UP, `warm-profiled-${workers}w`);
	const batch = await measuredBatch(stack, workflowId, url, `profiled-${workers}w`);
	const pid = profiled.process.pid;
	// The profile is written when the process exits.
	await stack.stopWorker(profiled);
	await stack.startWorker();
	// Named CPU.<date>.<time>.<pid>.<thread>.<sequence>.cpuprofile: thread 0 is the main thread, where the nodes run.
	const file = readdirSync(dir).find((name) => name.includes(`.${pid}.0.`) && name.endsWith('.cpuprofile'));
	if (!file) throw new Error(`no CPU profile of worker ${pid} in ${dir}`);
	const summary = summariseProfile(join(dir, file), PACKAGE_DIST, batch.fromUs, batch.toUs);
	const ran = batch.perWorker.find((worker) => worker.name === profiled.name)!;
	// V8 samples on a wall-clock timer, so a sample also counts time the thread waited for a core (the
	// whole stack shares two): the profile gives each origin's share, the main thread's CPU time the ms.
	const cpuPerSampledMs = ran.mainThreadCpuMs / summary.busyMs;
	const perExecution = (ms: number) => round((ms * cpuPerSampledMs) / ran.executions, 2);
	writeFileSync(
		join(dir, 'summary.json'),
		`${JSON.stringify({ workers, batch, profiledWorker: ran, cpuPerSampledMs, ...summary }, null, 2)}\n`,
	);
	progress(
		`profile of ${profiled.name} with ${workers} worker(s) (${ran.executions} executions, ${round(ran.cpuMs / ran.executions)} ms CPU each while profiled): ` +
			`main thread ${perExecution(summary.busyMs)} ms (${round(summary.busyMs / ran.executions)} ms sampled), package code ${perExecution(summary.packageSelfMs)} ms, ` +
			`with the package on the stack ${perExecution(summary.packageInitiatedMs)} ms per execution; ` +
			`by origin: ${summary.byOrigin
				.slice(0, 8)
				.map(({ origin, ms }) => `${origin} ${perExecution(ms)}`)
				.join(', ')} (details: ${join(dir, 'summary.json')})`,
	);
	return {
		[`queue_package_cpu_ms_per_execution_${workers}w`]: perExecution(summary.packageSelfMs),
		[`queue_package_initiated_cpu_ms_per_execution_${workers}w`]: perExecution(summary.packageInitiatedMs),
		[`queue_package_share_of_main_thread_pct_${workers}w`]: round((summary.packageSelfMs / summary.busyMs) * 100),
		[`queue_profiled_main_thread_ms_per_execution_${workers}w`]: perExecution(summary.busyMs),
		[`queue_profiled_cpu_ms_per_execution_${workers}w`]: round(ran.cpuMs / ran.executions),
	};
}

export async function throughputFigures(stack: QueueStack): Promise<Figures> {
	const { client, importWorkflow, simulator, webhookProcessors } = stack;
	const loadAtStart = machineLoad();
	simulator.options.nodeMs = JOB_NODE_MS;
	const { workflow: json, path } = webhookCloudWorkflow(`Bench: ${BATCH} executions`, { downloadFiles: false });
	const workflow = await importWorkflow(json);
	await client.activateWorkflow(workflow.id);
	const url = `${webhookProcessors[0]!.url}/webhook/${path}`;
	await waitFor('the production webhook', async () => (await postJson(url, { tag: 'live' })).status === 200, {
		timeoutMs: 20000,
		intervalMs: 250,
	});
	const figures: Figures = { queue_load_at_start: loadAtStart };
	const walls: Record<number, number> = {};
	for (const workers of WORKER_COUNTS) {
		while (stack.workers.length < workers) await stack.startWorker();
		await runBatch(stack, workflow.id, url, WARM_UP, `warm-${workers}w`);
		const batches = await measuredBatches(stack, workflow.id, url, workers);
		walls[workers] = median(batches.map((batch) => batch.wallMs));
		figures[`queue_batch_wall_ms_${workers}w`] = walls[workers];
		figures[`queue_cpu_ms_per_execution_${workers}w`] = round(median(batches.map((batch) => batch.cpuMsPerExecution)));
		figures[`queue_load_before_batches_${workers}w`] = batches.map((batch) => batch.loadBefore).join(', ');
		figures[`queue_batch_walls_ms_${workers}w`] = batches.map((batch) => batch.wallMs).join(', ');
		figures[`queue_cpu_ms_per_execution_by_batch_${workers}w`] = batches.map((batch) => round(batch.cpuMsPerExecution)).join(', ');
		Object.assign(figures, await profiledBatch(stack, workflow.id, url, workers));
	}
	await client.deactivateWorkflow(workflow.id);
	simulator.options.nodeMs = 20;
	return {
		queue_throughput_ratio_2w_over_1w: round(walls[1]! / walls[2]!, 2),
		queue_throughput_ratio_4w_over_1w: round(walls[1]! / walls[4]!, 2),
		...figures,
		queue_batch_executions: BATCH,
		queue_batch_job_ms: JOB_NODE_MS * 7,
	};
}
