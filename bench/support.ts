/**
 * Shared plumbing of the benchmarks: a simulator in its own process (so its memory is not
 * counted), a resident-memory sampler, medians, and the one-JSON-line protocol each benchmark
 * process uses to report its figures to bench/run.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..');
export const TSX_CLI = join(ROOT, 'node_modules/tsx/dist/cli.mjs');

export interface SimulatorBanner {
	baseUrl: string;
	wsBaseUrl: string;
	registryUrl: string;
	storageUrl: string;
	apiKey: string;
	accessToken: string;
}

export interface RemoteSimulator extends SimulatorBanner {
	/** Ask the simulator process for its counters and job timestamps. */
	query<T>(command: Record<string, unknown>): Promise<T>;
	close(): Promise<void>;
}

/** Starts bench/simulator-process.ts with options; talks to it over IPC. */
export async function startRemoteSimulator(options: Record<string, unknown>): Promise<RemoteSimulator> {
	const child: ChildProcess = spawn(process.execPath, [TSX_CLI, join(__dirname, 'simulator-process.ts'), JSON.stringify(options)], {
		stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
	});
	// A benchmark that fails and exits must not leave its simulator running.
	const killChild = () => child.kill('SIGTERM');
	process.on('exit', killChild);
	const pending = new Map<number, (value: unknown) => void>();
	let nextId = 0;
	const banner = await new Promise<SimulatorBanner>((resolve, reject) => {
		child.once('message', (message) => resolve(message as SimulatorBanner));
		child.once('exit', (code) => reject(new Error(`simulator process exited with ${code}`)));
	});
	child.on('message', (message) => {
		const { id, result } = message as { id: number; result: unknown };
		pending.get(id)?.(result);
		pending.delete(id);
	});
	return {
		...banner,
		query<T>(command: Record<string, unknown>) {
			const id = ++nextId;
			return new Promise<T>((resolve) => {
				pending.set(id, resolve as (value: unknown) => void);
				child.send({ id, ...command });
			});
		},
		close() {
			process.off('exit', killChild);
			return new Promise<void>((resolve) => {
				child.once('exit', () => resolve());
				child.kill('SIGTERM');
			});
		},
	};
}

/** Samples this process's resident memory every few ms; `peakDeltaMiB` is growth over the start. */
export function startRssSampler(intervalMs = 5): { stop(): { baselineMiB: number; peakMiB: number; peakDeltaMiB: number } } {
	const baseline = process.memoryUsage().rss;
	let peak = baseline;
	const timer = setInterval(() => {
		peak = Math.max(peak, process.memoryUsage().rss);
	}, intervalMs);
	return {
		stop() {
			clearInterval(timer);
			peak = Math.max(peak, process.memoryUsage().rss);
			const mib = (bytes: number) => bytes / (1024 * 1024);
			return { baselineMiB: mib(baseline), peakMiB: mib(peak), peakDeltaMiB: mib(peak - baseline) };
		},
	};
}

export function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** A benchmark process ends by printing one line `BENCH_RESULT {json}` that run.ts collects. */
export function report(figures: Record<string, number | string>): void {
	process.stdout.write(`BENCH_RESULT ${JSON.stringify(figures)}\n`);
}
