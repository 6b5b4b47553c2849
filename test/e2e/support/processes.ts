/**
 * Child processes of the e2e stack (n8n, npm, apt-get), each in its own process group so that
 * stopping one also stops what it started (n8n's task runner, npm's build scripts).
 *
 * Three layers make sure nothing outlives the run: `stop()` (the normal path), a synchronous kill
 * of every group still running when this process exits or is interrupted, and a detached watchdog
 * per group that kills it when this process disappears without running its handlers (SIGKILL,
 * a CI timeout).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';

export interface GroupProcess {
	readonly pid: number;
	readonly child: ChildProcess;
	/** Resolves with the exit code (or the signal name) once the group leader has exited. */
	readonly exited: Promise<number | string>;
	hasExited(): boolean;
	/** SIGTERM to the whole group, SIGKILL after `graceMs`; resolves when the leader is gone. */
	stop(graceMs?: number): Promise<void>;
	/** SIGKILL to the whole group at once, as a crash or the OOM killer would: nothing shuts down cleanly. */
	kill(): Promise<void>;
}

export interface SpawnGroupOptions {
	cwd?: string;
	env: NodeJS.ProcessEnv;
	/** stdout and stderr are appended to this file; without it they are inherited. */
	logFile?: string;
	/** A folder the group works in, deleted by the watchdog if this process dies without cleaning up. */
	orphanFolder?: string;
}

const running = new Map<number, { watchdog?: ChildProcess }>();
const cleanups = new Set<() => Promise<void>>();
const foldersToRemove = new Set<string>();
let exitHooksInstalled = false;
let shuttingDown = false;

function killGroup(pid: number, signal: NodeJS.Signals): void {
	try {
		process.kill(-pid, signal);
	} catch {
		// Already gone.
	}
}

function killAllNow(): void {
	for (const [pid, { watchdog }] of running) {
		killGroup(pid, 'SIGKILL');
		if (watchdog?.pid) killGroup(watchdog.pid, 'SIGKILL');
	}
	running.clear();
	for (const folder of foldersToRemove) rmSync(folder, { recursive: true, force: true });
	foldersToRemove.clear();
}

/**
 * Runs `cleanup` when this process is interrupted (Ctrl-C, SIGTERM, SIGHUP) before it exits; a
 * second Ctrl-C skips the wait. Returns the function that unregisters it (call it after a normal stop).
 */
export function onInterrupt(cleanup: () => Promise<void>): () => void {
	installExitHooks();
	cleanups.add(cleanup);
	return () => cleanups.delete(cleanup);
}

/** Whether an interrupt (Ctrl-C, SIGTERM, SIGHUP) is stopping this process. */
export function interrupted(): boolean {
	return shuttingDown;
}

/** Deletes `folder` when this process exits, whatever the reason (unless removed before). */
export function removeOnExit(folder: string): () => void {
	installExitHooks();
	foldersToRemove.add(folder);
	return () => {
		foldersToRemove.delete(folder);
		rmSync(folder, { recursive: true, force: true });
	};
}

function installExitHooks(): void {
	if (exitHooksInstalled) return;
	exitHooksInstalled = true;
	process.on('exit', killAllNow);
	const codes = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
	for (const signal of Object.keys(codes) as Array<keyof typeof codes>) {
		process.on(signal, () => {
			if (shuttingDown) {
				killAllNow();
				process.exit(codes[signal]);
			}
			shuttingDown = true;
			const deadline = new Promise((resolve) => setTimeout(resolve, 30000).unref());
			void Promise.race([Promise.allSettled([...cleanups].map(async (cleanup) => await cleanup())), deadline]).finally(() => {
				killAllNow();
				process.exit(codes[signal]);
			});
		});
	}
}

/**
 * A tiny detached shell that outlives a crash of this process: once our pid is gone it stops the
 * group. It polls once a second, so it costs nothing measurable.
 */
function startWatchdog(groupPid: number, folder?: string): ChildProcess | undefined {
	const removeFolder = folder ? `rm -rf -- '${folder.replace(/'/g, `'\\''`)}';` : '';
	const script = `while kill -0 ${process.pid} 2>/dev/null && kill -0 -${groupPid} 2>/dev/null; do sleep 1; done; if ! kill -0 ${process.pid} 2>/dev/null; then kill -TERM -${groupPid} 2>/dev/null; sleep 5; kill -KILL -${groupPid} 2>/dev/null; ${removeFolder} fi; exit 0`;
	try {
		const watchdog = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' });
		watchdog.unref();
		return watchdog;
	} catch {
		return undefined;
	}
}

export function spawnGroup(command: string, args: string[], options: SpawnGroupOptions): GroupProcess {
	installExitHooks();
	const fd = options.logFile ? openSync(options.logFile, 'a') : undefined;
	const child = spawn(command, args, {
		cwd: options.cwd,
		env: options.env,
		detached: true,
		stdio: fd === undefined ? 'inherit' : ['ignore', fd, fd],
	});
	if (fd !== undefined) closeSync(fd);
	if (child.pid === undefined) throw new Error(`Could not start ${command}`);
	const pid = child.pid;
	running.set(pid, { watchdog: startWatchdog(pid, options.orphanFolder) });

	let done = false;
	const exited = new Promise<number | string>((resolve) => {
		child.once('exit', (code, signal) => {
			done = true;
			resolve(code ?? signal ?? 'unknown');
		});
		child.once('error', (error) => {
			done = true;
			resolve(error.message);
		});
	});

	const forget = () => {
		const entry = running.get(pid);
		if (entry?.watchdog?.pid) killGroup(entry.watchdog.pid, 'SIGKILL');
		running.delete(pid);
	};

	/** SIGKILL to the group (children of the leader, such as task runners, too), then waits for the leader. */
	const killNow = async () => {
		killGroup(pid, 'SIGKILL');
		await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
		forget();
	};

	return {
		pid,
		child,
		exited,
		hasExited: () => done,
		async stop(graceMs = 15000) {
			killGroup(pid, 'SIGTERM');
			const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), graceMs).unref());
			if (!done) await Promise.race([exited, timer]);
			// Children of the leader (task runners) may still be finishing: make sure the group is gone.
			await killNow();
		},
		kill: killNow,
	};
}

/** Runs a command to completion in its own group; rejects with the log's tail when it fails. */
export async function runToCompletion(command: string, args: string[], options: SpawnGroupOptions & { what: string }): Promise<void> {
	const group = spawnGroup(command, args, options);
	const result = await group.exited;
	await group.stop(1000);
	if (result !== 0) {
		const tail = options.logFile ? `\n--- last lines of ${options.logFile} ---\n${tailOf(options.logFile, 30)}` : '';
		throw new Error(`${options.what} failed (exit ${result})${tail}`);
	}
}

export function tailOf(file: string, lines: number): string {
	try {
		return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
	} catch {
		return '(no log)';
	}
}

/** Listens on `port` of loopback (0: any) and closes again; resolves with the port, rejects when it is taken. */
function bindOnce(port: number): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.unref();
		server.once('error', reject);
		server.listen(port, '127.0.0.1', () => {
			const address = server.address();
			const bound = typeof address === 'object' && address ? address.port : 0;
			server.close(() => resolve(bound));
		});
	});
}

/** A free TCP port on loopback, chosen by the OS. */
export function freePort(): Promise<number> {
	return bindOnce(0);
}

/** Whether a server could listen on `port` of loopback now. */
export async function portIsFree(port: number): Promise<boolean> {
	return await bindOnce(port).then(
		() => true,
		() => false,
	);
}

/** The environment for a child: this one without npm's, Node's, Jest's and n8n's per-run settings. */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [key, value] of Object.entries(process.env)) {
		// NODE_ENV=test (set by Jest) would put n8n into its unit-test mode, where it refuses to load nodes.
		if (/^npm_/i.test(key) || /^(NODE_OPTIONS|NODE_ENV|INIT_CWD|JEST_WORKER_ID)$/.test(key) || /^N8N_/.test(key)) continue;
		env[key] = value;
	}
	return { ...env, ...extra };
}
