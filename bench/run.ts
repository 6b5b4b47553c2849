/**
 * `npm run bench`: runs each benchmark in fresh child processes, repeats it, reports medians,
 * prints a table and writes bench/results.json. `npm run bench -- <name>` runs one benchmark.
 */
import { cpus } from 'node:os';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

import { type Figures, median, runBenchScript } from './support';

interface Benchmark {
	name: string;
	file: string;
	/** Fresh-process repetitions; the median of each figure is reported. */
	runs: number;
	/** Environment of the measured process (binary data mode, node flags). */
	env?: Record<string, string>;
}

/** Binary data on disk, as n8n stores it by default (the memory mode holds every file by design). */
const FILESYSTEM = { N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem' };
/** Host Cloud on a self-hosted server (behind a reverse proxy) instead of the cloud. */
const SELF_HOSTED = { BENCH_FLAVOUR: 'self-hosted' };

const BENCHMARKS: Benchmark[] = [
	{ name: 'package-load', file: 'package-load.ts', runs: 5 },
	{ name: 'conversion-budgets', file: 'conversion-budgets.ts', runs: 1 },
	{ name: 'latency', file: 'latency.ts', runs: 1 },
	{ name: 'latency-self-hosted', file: 'latency.ts', runs: 1, env: SELF_HOSTED },
	// The v2 jobs API: the event stream and polling, in the same run as v1's latency.
	{ name: 'latency-v2', file: 'latency-v2.ts', runs: 1 },
	{ name: 'batch', file: 'batch.ts', runs: 3 },
	{ name: 'cost-curve', file: 'cost-curve.ts', runs: 3 },
	{ name: 'binary-download', file: 'binary-download.ts', runs: 3, env: FILESYSTEM },
	{ name: 'binary-download-self-hosted', file: 'binary-download.ts', runs: 3, env: { ...FILESYSTEM, ...SELF_HOSTED } },
	{ name: 'music-stream', file: 'music-stream.ts', runs: 3, env: FILESYSTEM },
	// n8n in queue mode (PostgreSQL, Redis, workers): one run, it starts the whole stack itself.
	{ name: 'queue', file: 'queue.ts', runs: 1 },
	// A real n8n 1.x and 2.x in turn: one run, it starts each itself.
	{ name: 'n8n-versions', file: 'n8n-versions.ts', runs: 1 },
];

/** Recorded beside the figures, after them. */
const MACHINE_KEYS = ['node_version', 'cpu_count', 'cpu_model', 'measured_at'];

function runOnce(benchmark: Benchmark): Figures {
	try {
		return runBenchScript(benchmark.file, benchmark.env);
	} catch (error) {
		throw new Error(`${benchmark.name}: ${(error as Error).message}`);
	}
}

function main(): void {
	const only = process.argv.slice(2);
	const selected = only.length ? BENCHMARKS.filter((b) => only.includes(b.name)) : BENCHMARKS;
	if (selected.length === 0) throw new Error(`Unknown benchmark; choose from ${BENCHMARKS.map((b) => b.name).join(', ')}`);
	const resultsFile = join(__dirname, 'results.json');
	const previous = existsSync(resultsFile) ? (JSON.parse(readFileSync(resultsFile, 'utf8')) as Record<string, unknown>) : {};
	// A full run writes its figures in the order of BENCHMARKS; one benchmark alone keeps the others'.
	const kept = only.length ? Object.fromEntries(Object.entries(previous).filter(([key]) => !MACHINE_KEYS.includes(key))) : {};
	const figures: Figures = {};
	for (const benchmark of selected) {
		process.stderr.write(`bench: ${benchmark.name} (${benchmark.runs} run${benchmark.runs > 1 ? 's' : ''})\n`);
		const runs = Array.from({ length: benchmark.runs }, () => runOnce(benchmark));
		for (const key of Object.keys(runs[0]!)) {
			const values = runs.map((r) => r[key]);
			figures[key] = values.every((v) => typeof v === 'number') ? Math.round(median(values as number[]) * 100) / 100 : values[0]!;
		}
	}
	const results = {
		...kept,
		...figures,
		node_version: process.version,
		cpu_count: cpus().length,
		cpu_model: cpus()[0]?.model ?? 'unknown',
		measured_at: new Date().toISOString(),
	};
	writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
	const width = Math.max(...Object.keys(results).map((k) => k.length));
	for (const [key, value] of Object.entries(results)) process.stdout.write(`${key.padEnd(width)}  ${value}\n`);
}

main();
