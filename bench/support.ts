/**
 * Shared plumbing of the benchmarks: a simulator in its own process (so its memory is not
 * counted), in either flavour with the Host Cloud credential that reaches it, a resident-memory
 * sampler, medians, and the one-JSON-line protocol each benchmark process uses to report its
 * figures to bench/run.ts (and to the tests that run a benchmark script).
 */
import { spawn, spawnSync, type ChildProcess, type SpawnSyncOptionsWithStringEncoding } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Socket } from 'node:net';
import { join } from 'node:path';
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import type { Flavour, SimulatorOptions } from '../simulator/server';
import { hostCloudCredential } from '../test/support/cloud-credential';

export const ROOT = join(__dirname, '..');
export const TSX_CLI = join(ROOT, 'node_modules/tsx/dist/cli.mjs');

/** What bench/simulator-process.ts is started with. */
export interface RemoteSimulatorOptions {
	/** startSimulator's options (JSON only: no log function). */
	sim?: Omit<SimulatorOptions, 'log'>;
	outputSize?: number;
	music?: Record<string, number>;
}

export interface SimulatorBanner {
	baseUrl: string;
	wsBaseUrl: string;
	registryUrl: string;
	storageUrl: string;
	apiKey: string;
	accessToken: string;
	flavour: Flavour;
}

export interface RemoteSimulator extends SimulatorBanner {
	/** Ask the simulator process for its counters and job timestamps. */
	query<T>(command: Record<string, unknown>): Promise<T>;
	close(): Promise<void>;
}

/** Starts bench/simulator-process.ts with options; talks to it over IPC. */
export async function startRemoteSimulator(options: RemoteSimulatorOptions): Promise<RemoteSimulator> {
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

/** The server Host Cloud runs on in a benchmark: BENCH_FLAVOUR=self-hosted, else the cloud. */
export function benchFlavour(): Flavour {
	const given = process.env.BENCH_FLAVOUR ?? 'cloud';
	if (given !== 'cloud' && given !== 'self-hosted') throw new Error(`BENCH_FLAVOUR is "${given}"; use cloud or self-hosted`);
	return given;
}

/** What a figure's name carries after its subject for a flavour: the cloud's names stay as they were. */
export function flavourTag(flavour: Flavour): string {
	return flavour === 'self-hosted' ? '_self_hosted' : '';
}

/**
 * The reverse proxy in front of the self-hosted simulator wants this header, so every request and
 * the WebSocket upgrade go the way they do behind a real proxy (the credential's Proxy Headers).
 */
const BENCH_PROXY = { header: 'X-Bench-Proxy-Token', value: 'bench-proxy-secret' };

/**
 * Starts the simulator in `flavour` (self-hosted: behind the proxy above) and returns it with the
 * Host Cloud credential data that reaches it.
 */
export async function startHostCloudSimulator(
	flavour: Flavour,
	options: RemoteSimulatorOptions = {},
): Promise<{ sim: RemoteSimulator; credential: ICredentialDataDecryptedObject }> {
	const proxy = flavour === 'self-hosted' ? BENCH_PROXY : undefined;
	const sim = await startRemoteSimulator(proxy ? { ...options, sim: { ...options.sim, flavour, proxyAuth: proxy } } : options);
	return { sim, credential: hostCloudCredential({ flavour, baseUrl: sim.baseUrl, apiKey: sim.apiKey, proxy }) };
}

/**
 * Run with --expose-gc (else undefined): two full collections, then what this process still holds,
 * its heap and its Buffers. Sampled every `intervalMs` (half a second, or BENCH_RETAINED_EVERY_MS)
 * or as long as the last sample's collections took, if longer; or, with BENCH_RETAINED_EVERY_MIB,
 * each time that many more MiB have come in on any socket of the process instead: the samples then
 * fall inside the transfer however fast or slow the machine is (a transfer over between two timed
 * samples was never measured). `maxDeltaMiB` is the most over the start, `samples` how many were
 * taken. Garbage is not counted, so a busy machine (collecting later, or less) cannot raise it as
 * it can resident memory: this is the figure the tests hold to a bound.
 */
export function startRetainedSampler(
	intervalMs = Number(process.env.BENCH_RETAINED_EVERY_MS) || 500,
	everyMiB = Number(process.env.BENCH_RETAINED_EVERY_MIB) || 0,
): { stop(): { maxDeltaMiB: number; samples: number } } | undefined {
	const gc = (globalThis as { gc?: () => void }).gc;
	if (!gc) return undefined;
	let lastTook = 0;
	const held = () => {
		const started = performance.now();
		// Twice: the Buffers the first collection finds unreachable are still counted after it (their
		// memory goes at the next one), which showed up to half of a 64 MiB download the node had let go.
		gc();
		gc();
		lastTook = performance.now() - started;
		const { heapUsed, arrayBuffers } = process.memoryUsage();
		return heapUsed + arrayBuffers;
	};
	const baseline = held();
	let most = baseline;
	let samples = 0;
	const sample = () => {
		most = Math.max(most, held());
		samples++;
	};
	const stopSampling =
		everyMiB > 0 ? sampleAsBytesArrive(everyMiB * 1024 * 1024, sample) : sampleOnATimer(intervalMs, () => lastTook, sample);
	return {
		stop() {
			stopSampling();
			return { maxDeltaMiB: Math.round(((most - baseline) / (1024 * 1024)) * 10) / 10, samples };
		},
	};
}

/** Calls `sample` every `intervalMs`, or as long as the last sample took if longer; returns the stop. */
function sampleOnATimer(intervalMs: number, lastTook: () => number, sample: () => void): () => void {
	let timer: NodeJS.Timeout;
	const next = () => {
		timer = setTimeout(
			() => {
				sample();
				next();
			},
			Math.max(intervalMs, lastTook()),
		);
	};
	next();
	return () => clearTimeout(timer);
}

/** Calls `sample` each time `bytes` more have come in on the process's sockets (as they are handed on); returns the stop. */
function sampleAsBytesArrive(bytes: number, sample: () => void): () => void {
	const prototype = Socket.prototype as unknown as { push(chunk: unknown, encoding?: BufferEncoding): boolean };
	const push = prototype.push;
	let received = 0;
	let nextAt = bytes;
	prototype.push = function (this: Socket, chunk: unknown, encoding?: BufferEncoding) {
		received += Buffer.isBuffer(chunk) ? chunk.length : 0;
		if (received >= nextAt) {
			nextAt += bytes;
			sample();
		}
		return push.call(this, chunk, encoding);
	};
	return () => void delete (prototype as { push?: unknown }).push;
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

export type Figures = Record<string, number | string>;

/** The machine's 1-minute load average. */
export function machineLoad(): number {
	return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
}

/**
 * The machine is shared (other work runs tests now and then): waits up to `maxWaitMs` for the
 * 1-minute load average to fall below `below`, and answers the load then and whether it did.
 */
export async function waitForQuietMachine(below: number, maxWaitMs: number): Promise<{ load: number; quiet: boolean }> {
	const deadline = Date.now() + maxWaitMs;
	for (;;) {
		const load = machineLoad();
		if (load < below || Date.now() > deadline) return { load, quiet: load < below };
		await new Promise((resolve) => setTimeout(resolve, 5000));
	}
}

const RESULT_PREFIX = 'BENCH_RESULT ';

/** A benchmark process ends by printing one line `BENCH_RESULT {json}` that run.ts collects. */
export function report(figures: Figures): void {
	process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(figures)}\n`);
}

/**
 * Runs one benchmark script (a file of bench/) in a fresh process and returns the figures it
 * reported; throws with the end of its output when it fails or reports nothing.
 */
export function runBenchScript(file: string, env: Record<string, string> = {}, timeoutMs?: number): Figures {
	// tsx starts its own node process: the WebSocket flag (Node 20) travels in NODE_OPTIONS.
	// Node honours `detached` in spawnSync too (its types leave it out).
	const options: SpawnSyncOptionsWithStringEncoding & { detached: boolean } = {
		cwd: ROOT,
		env: { ...process.env, NODE_OPTIONS: '--experimental-websocket', N8N_LOG_LEVEL: 'error', ...env },
		encoding: 'utf8',
		maxBuffer: 64 * 1024 * 1024,
		stdio: ['ignore', 'pipe', 'pipe'],
		timeout: timeoutMs,
		// Its own process group: the time-out signals tsx alone, which leaves the script's node process
		// and its simulator process (bench/simulator-process.ts) running; the group is ended below.
		detached: true,
	};
	const result = spawnSync(process.execPath, [TSX_CLI, join(__dirname, file)], options);
	endProcessGroup(result.pid);
	const line = (result.stdout ?? '').split('\n').find((l) => l.startsWith(RESULT_PREFIX));
	if (result.status !== 0 || !line) {
		const why = result.error ? result.error.message : `exit ${result.status ?? result.signal}`;
		throw new Error(`${file} failed (${why}):\n${(result.stdout ?? '').slice(-2000)}${(result.stderr ?? '').slice(-2000)}`);
	}
	return JSON.parse(line.slice(RESULT_PREFIX.length)) as Figures;
}

/** Ends what is left of a process group (a script that timed out, or a child it did not close); none left is fine. */
function endProcessGroup(leader: number | undefined): void {
	if (!leader) return;
	try {
		process.kill(-leader, 'SIGKILL');
	} catch {
		// ESRCH: the whole group has already exited.
	}
}
