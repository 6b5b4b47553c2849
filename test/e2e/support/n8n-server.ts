/**
 * A real n8n server for the demo and the e2e suite: a fresh user folder in the system temp
 * folder, this package installed into it as a community package, free loopback ports, and an
 * environment that needs no network (no telemetry, version checks or templates). It can be killed
 * (SIGKILL, as a crash) and started again on the same user folder, database, encryption key and port.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { cleanEnv, freePort, portIsFree, removeOnExit, spawnGroup, tailOf, type GroupProcess } from './processes';
import type { N8nRuntime } from './runtime';

export const REPO_ROOT = resolve(__dirname, '..', '..', '..');
export const PACKAGE_NAME = 'n8n-nodes-host';

export interface N8nServer {
	/** http://127.0.0.1:<port> (no trailing slash). */
	url: string;
	port: number;
	/** N8N_USER_FOLDER; n8n keeps its data in `<userFolder>/.n8n`. */
	userFolder: string;
	/** The folder nodes may read and write files in (`~/.n8n-files` of this n8n). */
	filesDir: string;
	/** n8n's output, of every start in turn. */
	logFile: string;
	/** The n8n process now (a new one after restart()). */
	readonly process: GroupProcess;
	/** The last lines n8n printed, for error messages. */
	logTail(lines?: number): string;
	/**
	 * Kills n8n and its task runner at once with SIGKILL, as a crash or the OOM killer would: no
	 * shutdown runs. The user folder (database, encryption key, settings) stays for restart().
	 */
	kill(): Promise<void>;
	/**
	 * Starts n8n again (after kill() or a crash) on the same user folder, database, encryption key
	 * and port, and resolves once it is ready. The port must stay: waiting executions' resume URLs,
	 * already sent to the service, name it (see restart-port below).
	 */
	restart(): Promise<void>;
	/** Stops n8n (and its task runner) and deletes the user folder unless kept. */
	stop(): Promise<void>;
}

export interface StartN8nOptions {
	runtime: N8nRuntime;
	/** The built package to install (package.json + dist/); default: this repository. */
	packageDir?: string;
	/** Extra environment for n8n (N8N_* settings of a test). */
	env?: Record<string, string>;
	/** Keep the user folder after stop (for debugging); also when E2E_KEEP=1. */
	keepUserFolder?: boolean;
	/** How long to wait for n8n to become ready. */
	readyTimeoutMs?: number;
	/**
	 * What to run (queue mode): `start` (default, the main process), `worker` (runs executions; its
	 * health server on `port` answers the readiness check) or `webhook` (a webhook processor).
	 */
	command?: N8nCommand;
	/** More command-line arguments (e.g. `--concurrency=5` for a worker). */
	args?: string[];
	/** The port to listen on, when it must be known before n8n starts (default: a free one). */
	port?: number;
	/** Where the log goes (default `<userFolder>/n8n.log`), e.g. beside the other processes' of a queue-mode stack. */
	logFile?: string;
}

export type N8nCommand = 'start' | 'worker' | 'webhook';

/** A worker serves no editor: its health server (on the port given) is what says it is ready. */
function commandEnvironment(command: N8nCommand, port: number): Record<string, string> {
	return command === 'worker'
		? { QUEUE_HEALTH_CHECK_ACTIVE: 'true', QUEUE_HEALTH_CHECK_PORT: String(port), N8N_WORKER_SERVER_ADDRESS: '127.0.0.1' }
		: {};
}

/**
 * Copies the built package where n8n's community-package loader looks:
 * `<userFolder>/.n8n/nodes/node_modules/n8n-nodes-host/` (package.json + dist/), the layout
 * `npm install n8n-nodes-host` in `~/.n8n/nodes` produces.
 */
export function installBuiltPackage(userFolder: string, packageDir = REPO_ROOT): string {
	const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
		name: string;
		version: string;
		n8n?: { nodes?: string[]; credentials?: string[] };
	};
	const registered = [...(manifest.n8n?.nodes ?? []), ...(manifest.n8n?.credentials ?? [])];
	const missing = registered.filter((file) => !existsSync(join(packageDir, file)));
	if (missing.length > 0) {
		throw new Error(`The package is not built (missing ${missing.join(', ')}). Run \`npm run build\` first.`);
	}
	const nodesFolder = join(userFolder, '.n8n', 'nodes');
	const target = join(nodesFolder, 'node_modules', manifest.name);
	mkdirSync(target, { recursive: true });
	cpSync(join(packageDir, 'package.json'), join(target, 'package.json'));
	cpSync(join(packageDir, 'dist'), join(target, 'dist'), { recursive: true });
	writeFileSync(
		join(nodesFolder, 'package.json'),
		`${JSON.stringify({ name: 'installed-nodes', private: true, dependencies: { [manifest.name]: manifest.version } }, null, 2)}\n`,
	);
	return target;
}

/** n8n settings for a private, offline instance on loopback. */
function n8nEnvironment(userFolder: string, port: number, brokerPort: number, extra: Record<string, string>): NodeJS.ProcessEnv {
	const url = `http://127.0.0.1:${port}/`;
	return cleanEnv({
		N8N_RESTRICT_FILE_ACCESS_TO: join(userFolder, '.n8n-files'),
		// n8n and anything it starts write only inside the user folder.
		HOME: userFolder,
		XDG_CONFIG_HOME: join(userFolder, '.config'),
		XDG_CACHE_HOME: join(userFolder, '.cache'),
		// n8n keeps its own folders in the system temp folder (data table uploads): here, in ours.
		TMPDIR: join(userFolder, 'tmp'),
		N8N_USER_FOLDER: userFolder,
		N8N_PORT: String(port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		N8N_EDITOR_BASE_URL: url,
		N8N_WEBHOOK_URL: url,
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_SECURE_COOKIE: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
		N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_LOG_LEVEL: 'info',
		N8N_LOG_OUTPUT: 'console',
		EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all',
		EXECUTIONS_DATA_SAVE_MANUAL_EXECUTIONS: 'true',
		GENERIC_TIMEZONE: 'UTC',
		TZ: 'UTC',
		// Requests to the simulator on loopback never go through a proxy the machine may define.
		NO_PROXY: '127.0.0.1,localhost',
		no_proxy: '127.0.0.1,localhost',
		...extra,
	});
}

/**
 * Why n8n could not load this package, from its log ("Failed to load package ..." and the error
 * lines after it), or undefined when it loaded.
 */
export function packageLoadProblem(logFile: string, packageName = PACKAGE_NAME): string | undefined {
	let lines: string[];
	try {
		lines = readFileSync(logFile, 'utf8').split('\n');
	} catch {
		return undefined;
	}
	const at = lines.findIndex((line) => line.includes(`Failed to load package "${packageName}"`));
	if (at < 0) return undefined;
	return lines
		.slice(at, at + 12)
		.filter((line) => !line.includes('/node_modules/n8n') && !line.includes('/node_modules/@n8n'))
		.join('\n');
}

/**
 * What answers once n8n is ready: `/healthz/readiness` waits for the database migrations; the
 * main process of n8n 1.x says ready before its REST API is mounted (nodes still loading), so that
 * is waited for too (2.x mounts it first).
 */
function readinessPaths(command: N8nCommand): string[] {
	return command === 'start' ? ['/healthz/readiness', '/rest/settings'] : ['/healthz/readiness'];
}

async function isReady(url: string, paths: string[]): Promise<boolean> {
	try {
		for (const path of paths) {
			const response = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(2000) });
			await response.arrayBuffer();
			if (!response.ok) return false;
		}
		return true;
	} catch {
		return false;
	}
}

/** How long a restart waits for the killed n8n's port to be free again (the kernel frees it at once). */
const PORT_RELEASE_MS = 10000;

/**
 * Waits until n8n answers ready, or throws with its log's tail when it exits or times out:
 * `/healthz` answers as soon as the HTTP server listens, but only `/healthz/readiness` waits for
 * the database migrations.
 */
async function waitUntilReady(url: string, command: N8nCommand, child: GroupProcess, logFile: string, timeoutMs: number): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!(await isReady(url, readinessPaths(command)))) {
		if (child.hasExited()) {
			throw new Error(`n8n exited before it was ready (exit ${await child.exited}). Last lines of its log:\n${tailOf(logFile, 40)}`);
		}
		if (Date.now() > deadline) {
			throw new Error(`n8n was not ready within ${Math.round(timeoutMs / 1000)}s. Last lines of its log:\n${tailOf(logFile, 40)}`);
		}
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
}

/** Starts n8n and resolves once it is ready. */
export async function startN8n(options: StartN8nOptions): Promise<N8nServer> {
	const userFolder = mkdtempSync(join(tmpdir(), 'n8n-nodes-host-n8n-'));
	const keep = options.keepUserFolder ?? process.env.E2E_KEEP === '1';
	const removeUserFolder = keep ? () => undefined : removeOnExit(userFolder);
	installBuiltPackage(userFolder, options.packageDir);
	const filesDir = join(userFolder, '.n8n-files');
	mkdirSync(filesDir, { recursive: true });
	mkdirSync(join(userFolder, 'tmp'));

	const port = options.port ?? (await freePort());
	const url = `http://127.0.0.1:${port}`;
	const logFile = options.logFile ?? join(userFolder, 'n8n.log');
	const readyTimeoutMs = options.readyTimeoutMs ?? 180000;
	const command = options.command ?? 'start';

	/** Spawns n8n on `port`; the task broker gets a free port of its own each time (only n8n talks to it). */
	const launch = async (): Promise<GroupProcess> => {
		let brokerPort = await freePort();
		while (brokerPort === port) brokerPort = await freePort();
		return spawnGroup(options.runtime.nodeBinary, [options.runtime.n8nEntry, command, ...(options.args ?? [])], {
			cwd: userFolder,
			env: n8nEnvironment(userFolder, port, brokerPort, { ...commandEnvironment(command, port), ...options.env }),
			logFile,
			orphanFolder: keep ? undefined : userFolder,
		});
	};

	let child = await launch();
	const server: N8nServer = {
		url,
		port,
		userFolder,
		filesDir,
		logFile,
		get process() {
			return child;
		},
		logTail: (lines = 40) => tailOf(logFile, lines),
		async kill() {
			await child.kill();
		},
		async restart() {
			if (!child.hasExited()) throw new Error('n8n is still running: kill() or stop it before restart()');
			// restart-port: a new port would strand every waiting execution, since the service
			// notifies the resume URL it was given, with this port in it. So wait for this one.
			const deadline = Date.now() + PORT_RELEASE_MS;
			while (!(await portIsFree(port))) {
				if (Date.now() > deadline) {
					throw new Error(
						`Port ${port} is still taken ${PORT_RELEASE_MS / 1000}s after n8n stopped, so n8n cannot start again on it; another port would strand the waiting executions, whose resume URLs name ${port}.`,
					);
				}
				await new Promise((resolve) => setTimeout(resolve, 100));
			}
			writeFileSync(logFile, `\n---- n8n restarted at ${new Date().toISOString()} ----\n`, { flag: 'a' });
			child = await launch();
			try {
				await waitUntilReady(url, command, child, logFile, readyTimeoutMs);
			} catch (error) {
				await child.stop();
				throw error;
			}
		},
		async stop() {
			await child.stop();
			removeUserFolder();
		},
	};

	try {
		await waitUntilReady(url, command, child, logFile, readyTimeoutMs);
	} catch (error) {
		await server.stop();
		throw error;
	}
	return server;
}
