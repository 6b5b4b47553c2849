/**
 * The package in n8n's queue mode (test/e2e/support/queue-stack.ts: PostgreSQL, Redis, a main
 * process, workers, a webhook processor, binary data in the database, the simulator in this
 * process), three figures:
 *
 * - queue_db_binary_peak_rss_delta_mib: peak resident memory growth of the worker while a 256 MiB
 *   Host Cloud output file, and a music stream carrying 256 MiB of audio, go into binary data in
 *   `database` mode; the larger of the two medians (three runs each, each on a fresh worker that is
 *   the only one, after a warm-up run with small files), each also reported. Peak = the kernel's
 *   high-water mark (VmHWM, reset through clear_refs before the run) over the resident size at
 *   that moment. Whether the main process can then serve the 256 MiB file back is recorded too.
 * - queue_throughput_ratio_2w_over_1w / _4w_over_1w, CPU per execution per worker and the
 *   package's share of it from a profile: bench/queue-throughput.ts.
 * - queue_resume_latency_ms_median: Host Media *Wait for Notification*: from the simulator sending
 *   the task's final notification (delivered at the first attempt, to the webhook processor) to the
 *   resumed execution's stoppedAt, median of 15.
 *
 * BENCH_QUEUE_FILE_MIB sizes the output file and the music (default 256); BENCH_QUEUE_KEEP_LOGS=<folder>
 * keeps every process's log there when the benchmark fails.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';

import type { N8nClient } from '../test/e2e/support/n8n-client';
import { startQueueStack, type QueueProcess, type QueueStack } from '../test/e2e/support/queue-stack';
import { CREDENTIAL_NAMES } from '../test/e2e/support/instance-setup';
import { mediaWaitWorkflow, manualCloudWorkflow } from '../test/e2e/support/queue-workflows';
import { hostNodeType, linearWorkflow, manualTriggerNode } from '../test/e2e/support/workflows';
import { throughputFigures } from './queue-throughput';
import { median, report, type Figures } from './support';

const FILE_BYTES = Number(process.env.BENCH_QUEUE_FILE_MIB ?? 256) * 1024 * 1024;
const RESUMES = 15;
/** Memory measurements per kind (each on a fresh worker); the median is reported. */
const MEMORY_RUNS = 3;
const MIB = 1024 * 1024;

const progress = (line: string) => process.stderr.write(`[bench queue] ${line}\n`);

/** Resident set and its high-water mark of a process, in bytes (from /proc). */
function memoryOf(pid: number): { rss: number; hwm: number } {
	const status = readFileSync(`/proc/${pid}/status`, 'utf8');
	const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
	return { rss: kib('VmRSS'), hwm: kib('VmHWM') };
}

/** Peak growth of the worker's resident memory while `work` runs. */
async function peakGrowthMiB(worker: QueueProcess, work: () => Promise<void>): Promise<number> {
	// "5" resets the peak (VmHWM) to the current resident size.
	writeFileSync(`/proc/${worker.process.pid}/clear_refs`, '5');
	const baseline = memoryOf(worker.process.pid).rss;
	await work();
	return Math.round(((memoryOf(worker.process.pid).hwm - baseline) / MIB) * 10) / 10;
}

async function runManual(client: N8nClient, workflowId: string): Promise<string> {
	const execution = await client.runWorkflow(workflowId, { timeoutMs: 300000 });
	if (execution.status !== 'success')
		throw new Error(`execution ${execution.id} ended as ${execution.status}: ${execution.error?.message ?? ''}`);
	return execution.id;
}

async function storedSizes(stack: QueueStack, executionId: string): Promise<number[]> {
	const rows = await stack.postgres.query(`SELECT "fileSize" FROM binary_data WHERE "sourceId" = '${executionId}'`);
	return rows ? rows.split('\n').map(Number) : [];
}

/**
 * Runs `workflowId` on a fresh worker (the only one), first with small files, then measured with
 * `big` files; answers the worker's peak growth and the execution. A fresh worker per measurement:
 * memory an earlier big file left in a worker's heap would be reused and hide the growth.
 */
async function measuredOnFreshWorker(
	stack: QueueStack,
	workflowId: string,
	sizes: { small: () => void; big: () => void },
): Promise<{ growth: number; executionId: string }> {
	const worker = await stack.startWorker();
	for (const other of stack.workers.filter((candidate) => candidate !== worker)) await stack.stopWorker(other);
	sizes.small();
	await runManual(stack.client, workflowId);
	sizes.big();
	let executionId = '';
	const growth = await peakGrowthMiB(worker, async () => {
		executionId = await runManual(stack.client, workflowId);
	});
	sizes.small();
	return { growth, executionId };
}

/** Whether the main process serves a stored file back whole (the editor's download), or why not. */
async function readBack(stack: QueueStack, executionId: string, expectedBytes: number): Promise<string> {
	try {
		const execution = await stack.client.getExecution(executionId);
		const binary = Object.values(execution.runData['Run graph']![0]!.data!.main![0]![0]!.binary!)[0]!;
		const bytes = await stack.client.binaryContent(binary);
		return bytes.length === expectedBytes ? 'ok' : `short: ${bytes.length} bytes`;
	} catch (error) {
		const logged = /Cannot create a string longer than \S+ characters/.exec(readFileSync(stack.main.logFile, 'utf8'))?.[0];
		return `failed: ${(error as Error).message.slice(0, 120)}${logged ? ` (main's log: ${logged})` : ''}`;
	}
}

async function databaseBinaryFigures(stack: QueueStack): Promise<Figures> {
	const { importWorkflow, simulator } = stack;
	const cloud = await importWorkflow(manualCloudWorkflow('Bench: cloud file into the database', { downloadFiles: true }));
	const music = await importWorkflow(
		linearWorkflow('Bench: music into the database', [
			manualTriggerNode(),
			{
				name: 'Generate music',
				type: hostNodeType('hostMedia'),
				typeVersion: 2,
				parameters: { resource: 'music', operation: 'generate', prompt: 'a long calm piece' },
				credentials: { hostApi: { name: CREDENTIAL_NAMES.hostApi } },
			},
		]),
	);
	const fileSizes = { small: () => simulator.cloud.setOutputSize(undefined), big: () => simulator.cloud.setOutputSize(FILE_BYTES) };
	const musicOf = (bytes: number) => () =>
		Object.assign(simulator.proxy.music, { streams: 1, audioBytesPerStream: bytes, chunkBytes: 256 * 1024 });
	const musicSizes = { small: musicOf(MIB), big: musicOf(FILE_BYTES) };

	const downloads: number[] = [];
	const streams: number[] = [];
	let lastDownload = '';
	for (let run = 0; run < MEMORY_RUNS; run++) {
		const download = await measuredOnFreshWorker(stack, cloud.id, fileSizes);
		downloads.push(download.growth);
		lastDownload = download.executionId;
		const stored = await storedSizes(stack, download.executionId);
		progress(
			`${FILE_BYTES / MIB} MiB output file into the database: worker grew by ${download.growth} MiB (stored: ${stored.join(', ')} bytes)`,
		);
		const stream = await measuredOnFreshWorker(stack, music.id, musicSizes);
		streams.push(stream.growth);
		const storedMusic = await storedSizes(stack, stream.executionId);
		progress(
			`music stream of ${FILE_BYTES / MIB} MiB into the database: worker grew by ${stream.growth} MiB (stored: ${storedMusic.join(', ')} bytes)`,
		);
	}
	const readBackResult = await readBack(stack, lastDownload, FILE_BYTES);
	progress(`reading the ${FILE_BYTES / MIB} MiB file back through the main process: ${readBackResult}`);
	const download = median(downloads);
	const stream = median(streams);
	return {
		queue_db_binary_peak_rss_delta_mib: Math.max(download, stream),
		queue_db_binary_download_peak_rss_delta_mib: download,
		queue_db_binary_music_peak_rss_delta_mib: stream,
		queue_db_binary_file_mib: FILE_BYTES / MIB,
		queue_db_binary_read_back: readBackResult,
	};
}

async function resumeLatencyFigures(stack: QueueStack): Promise<Figures> {
	const { client, importWorkflow, simulator } = stack;
	const workflow = await importWorkflow(mediaWaitWorkflow('Bench: resume latency', { downloadFiles: false }));
	// Long enough between states for each notification to be answered before the next is sent.
	simulator.options.videoStepMs = 600;
	const latencies: number[] = [];
	for (let run = 0; run < RESUMES + 1; run++) {
		const executionId = await client.startWorkflow(workflow.id);
		const done = await client.waitForExecution(executionId, { timeoutMs: 60000 });
		if (done.status !== 'success') throw new Error(`resume run ${run}: execution ${executionId} ended as ${done.status}`);
		const final = simulator.proxy.deliveries.find(
			(delivery) => delivery.url.includes(`/webhook-waiting/${executionId}?`) && JSON.stringify(delivery.body).includes('"success"'),
		);
		if (!final?.delivered || final.attempts !== 1)
			throw new Error(`resume run ${run}: the final notification took ${final?.attempts} attempt(s)`);
		// The first run warms the webhook processor's and the workers' paths up.
		if (run > 0) latencies.push(Date.parse(done.stoppedAt!) - final.at);
	}
	progress(`resume latencies (ms): ${latencies.join(', ')}`);
	return {
		queue_resume_latency_ms_median: median(latencies),
		queue_resume_latency_ms_max: Math.max(...latencies),
		queue_resume_runs: latencies.length,
	};
}

async function main(): Promise<void> {
	const stack = await startQueueStack({
		workers: 1,
		webhookProcessors: 1,
		simulator: { parallelLimit: 200 },
		// n8n's own limit (the stack's is lower, to refuse files it could not read back): 256 MiB must be stored.
		n8nEnv: { N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE: '512' },
		progress,
	});
	try {
		const figures: Figures = {
			...(await throughputFigures(stack)),
			...(await resumeLatencyFigures(stack)),
		};
		Object.assign(figures, await databaseBinaryFigures(stack));
		report(figures);
	} catch (error) {
		if (process.env.BENCH_QUEUE_KEEP_LOGS) cpSync(stack.logsFolder, process.env.BENCH_QUEUE_KEEP_LOGS, { recursive: true });
		throw error;
	} finally {
		await stack.stop();
	}
}

void main().catch((error: Error) => {
	process.stderr.write(`${error.stack ?? error.message}\n`);
	process.exit(1);
});
