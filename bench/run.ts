/**
 * `npm run bench`: runs each benchmark in fresh child processes, repeats it, reports medians,
 * prints a table and writes bench/results.json. `npm run bench -- <name>` runs one benchmark.
 */
import { spawnSync } from 'node:child_process';
import { cpus } from 'node:os';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

import { median, ROOT, TSX_CLI } from './support';

interface Benchmark {
	name: string;
	file: string;
	/** Fresh-process repetitions; the median of each figure is reported. */
	runs: number;
	/** Environment of the measured process (binary data mode, node flags). */
	env?: Record<string, string>;
}

const BENCHMARKS: Benchmark[] = [
	{ name: 'package-load', file: 'package-load.ts', runs: 5 },
	{ name: 'latency', file: 'latency.ts', runs: 1 },
	{ name: 'batch', file: 'batch.ts', runs: 3 },
	{ name: 'binary-download', file: 'binary-download.ts', runs: 3, env: { N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem' } },
	{ name: 'music-stream', file: 'music-stream.ts', runs: 3, env: { N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem' } },
];

function runOnce(benchmark: Benchmark): Record<string, number | string> {
	// tsx starts its own node process: the WebSocket flag (Node 20) travels in NODE_OPTIONS.
	const result = spawnSync(process.execPath, [TSX_CLI, join(__dirname, benchmark.file)], {
		cwd: ROOT,
		env: { ...process.env, ...benchmark.env, NODE_OPTIONS: '--experimental-websocket', N8N_LOG_LEVEL: 'error' },
		encoding: 'utf8',
		maxBuffer: 64 * 1024 * 1024,
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	const line = result.stdout.split('\n').find((l) => l.startsWith('BENCH_RESULT '));
	if (result.status !== 0 || !line) {
		throw new Error(`${benchmark.name} failed (exit ${result.status}):\n${result.stdout.slice(-2000)}`);
	}
	return JSON.parse(line.slice('BENCH_RESULT '.length)) as Record<string, number | string>;
}

function main(): void {
	const only = process.argv.slice(2);
	const selected = only.length ? BENCHMARKS.filter((b) => only.includes(b.name)) : BENCHMARKS;
	if (selected.length === 0) throw new Error(`Unknown benchmark; choose from ${BENCHMARKS.map((b) => b.name).join(', ')}`);
	const resultsFile = join(__dirname, 'results.json');
	const previous = existsSync(resultsFile) ? (JSON.parse(readFileSync(resultsFile, 'utf8')) as Record<string, unknown>) : {};
	const figures: Record<string, number | string> = {};
	for (const benchmark of selected) {
		process.stderr.write(`bench: ${benchmark.name} (${benchmark.runs} run${benchmark.runs > 1 ? 's' : ''})\n`);
		const runs = Array.from({ length: benchmark.runs }, () => runOnce(benchmark));
		for (const key of Object.keys(runs[0]!)) {
			const values = runs.map((r) => r[key]);
			figures[key] = values.every((v) => typeof v === 'number') ? Math.round(median(values as number[]) * 100) / 100 : values[0]!;
		}
	}
	const results = {
		...previous,
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
