/**
 * n8n in queue mode, as a team that outgrew one process runs it, on loopback: PostgreSQL (the
 * shared database), Redis (the job queue), one main process (editor, REST API, triggers, timers;
 * manual executions offloaded to workers), workers (`n8n worker`) and webhook processors
 * (`n8n webhook`), all with the same encryption key and database, each with this package installed
 * as a community package in its own user folder, binary data in `database` mode. The simulator
 * runs in this process, as in the single-process stack (stack.ts), and the instance gets the same
 * owner, credentials and workflow import (instance-setup.ts).
 *
 * Production webhook and resume URLs (`$execution.resumeUrl`) point at the first webhook processor
 * (N8N_WEBHOOK_URL on every process). Every process writes its own log into one folder, which
 * `keepLogs()` copies away when a case fails. `stop()` stops everything, newest first; when this
 * process is interrupted or dies instead, processes.ts's watchdogs stop every process and delete
 * their folders (under Jest, Ctrl-C ends the process without running its exit hooks).
 */
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { startSimulator, type Simulator, type SimulatorOptions } from '../../../simulator/server';
import { prepareInstance, productionWebhookUrl, type PreparedInstance } from './instance-setup';
import type { WorkflowJson } from './n8n-client';
import { packageLoadProblem, startN8n, type N8nCommand, type N8nServer } from './n8n-server';
import { startPostgres, type PostgresServer } from './postgres';
import { freePort } from './processes';
import { startRedis, type RedisServer } from './redis';
import { defaultProgress, ensureN8nRuntime, type N8nRuntime, type ProgressLog } from './runtime';
import { stopList } from './stop-list';

/** One n8n process of the stack: `main`, `worker-1`, `webhook-1` … (its log is `<name>.log`). */
export interface QueueProcess extends N8nServer {
	name: string;
	command: N8nCommand;
}

export interface QueueStack extends PreparedInstance {
	runtime: N8nRuntime;
	simulator: Simulator;
	postgres: PostgresServer;
	redis: RedisServer;
	main: QueueProcess;
	/** Workers running now (a killed or stopped one leaves this list, its log stays). */
	workers: QueueProcess[];
	/** Webhook processors running now; the first is where N8N_WEBHOOK_URL points. */
	webhookProcessors: QueueProcess[];
	/** Every n8n process started, stopped and killed ones included, for their logs. */
	processes: QueueProcess[];
	/** The folder every process's log is in. */
	logsFolder: string;
	/** `env`: more environment for this worker only (e.g. NODE_OPTIONS to profile it). */
	startWorker(env?: Record<string, string>): Promise<QueueProcess>;
	startWebhookProcessor(): Promise<QueueProcess>;
	/** SIGKILL to the worker's process group (n8n and its task runner), as a crash or the OOM killer would. */
	killWorker(worker: QueueProcess): Promise<void>;
	/** A graceful stop (SIGTERM: n8n waits for its running executions, then exits). */
	stopWorker(worker: QueueProcess): Promise<void>;
	/** The production URL of a trigger's webhook, on `via` (default: the first webhook processor). */
	webhookUrl(workflow: WorkflowJson, nodeName: string, path: string, via?: QueueProcess): string;
	/** Copies every log (n8n's processes, PostgreSQL's, Redis's) into `dir`; returns the files. */
	keepLogs(dir: string): string[];
	stop(): Promise<void>;
}

export interface StartQueueStackOptions {
	/** Workers at the start (default 2). */
	workers?: number;
	/** Webhook processors at the start (default 1). */
	webhookProcessors?: number;
	/** Jobs one worker runs at once (n8n's default: 10). */
	workerConcurrency?: number;
	simulator?: SimulatorOptions;
	/** More environment for every n8n process. */
	n8nEnv?: Record<string, string>;
	progress?: ProgressLog;
}

/**
 * Bull's job lock, shortened from n8n's defaults (60 s lock, renewed every 10 s, checked every
 * 30 s) so that the job of a killed worker is noticed within about 15 s instead of 90 s. Nothing
 * else depends on them: a live worker renews its locks long before they expire.
 */
export const QUEUE_LOCK_SETTINGS = {
	QUEUE_WORKER_LOCK_DURATION: '10000',
	QUEUE_WORKER_LOCK_RENEW_TIME: '2500',
	QUEUE_WORKER_STALLED_INTERVAL: '5000',
};

/** The largest file (MiB) binary data in the database takes in this stack: see N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE below. */
export const DATABASE_FILE_LIMIT_MIB = 255;

export async function startQueueStack(options: StartQueueStackOptions = {}): Promise<QueueStack> {
	const progress = options.progress ?? defaultProgress;
	const stops = stopList(progress);

	try {
		const runtime = await ensureN8nRuntime(progress);
		// Redis works in the stack's folder and the processes' logs go there too: it is deleted with
		// Redis, also by Redis's watchdog when this process dies (under Jest, exit hooks do not run).
		const stackFolder = mkdtempSync(join(tmpdir(), 'n8n-nodes-host-queue-'));
		const logsFolder = join(stackFolder, 'logs');
		mkdirSync(logsFolder);

		const started = Date.now();
		const [postgres, redis] = await Promise.all([startPostgres(progress), startRedis(progress, stackFolder)]);
		stops.add(
			() => postgres.stop(),
			() => redis.stop(),
		);
		progress(`PostgreSQL on port ${postgres.port}, Redis on port ${redis.port}`);

		const simulator = await startSimulator(options.simulator ?? {});
		stops.add(() => simulator.close());

		const webhookPort = await freePort();
		const sharedEnv: Record<string, string> = {
			EXECUTIONS_MODE: 'queue',
			OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
			QUEUE_BULL_REDIS_HOST: redis.host,
			QUEUE_BULL_REDIS_PORT: String(redis.port),
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: postgres.host,
			DB_POSTGRESDB_PORT: String(postgres.port),
			DB_POSTGRESDB_DATABASE: postgres.database,
			DB_POSTGRESDB_USER: postgres.user,
			DB_POSTGRESDB_PASSWORD: '',
			N8N_ENCRYPTION_KEY: randomBytes(24).toString('hex'),
			N8N_DEFAULT_BINARY_DATA_MODE: 'database',
			// n8n 2.41.1 stores files up to 512 MiB in PostgreSQL by default but cannot read back one of
			// 256 MiB or more (the bytea arrives as hex text longer than V8's longest string): such files
			// are refused when stored, as the README advises, rather than kept unreadable.
			N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE: String(DATABASE_FILE_LIMIT_MIB),
			// Resume URLs and production webhook URLs go to the webhook processor (behind a load balancer in real life).
			N8N_WEBHOOK_URL: `http://127.0.0.1:${webhookPort}/`,
			N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '10',
			...QUEUE_LOCK_SETTINGS,
			...options.n8nEnv,
		};

		const processes: QueueProcess[] = [];
		const workers: QueueProcess[] = [];
		const webhookProcessors: QueueProcess[] = [];
		const counts: Record<N8nCommand, number> = { start: 0, worker: 0, webhook: 0 };
		const launch = async (command: N8nCommand, port?: number, env: Record<string, string> = {}): Promise<QueueProcess> => {
			const name = command === 'start' ? 'main' : `${command}-${++counts[command]}`;
			const begun = Date.now();
			const args = command === 'worker' && options.workerConcurrency ? [`--concurrency=${options.workerConcurrency}`] : [];
			const server = await startN8n({
				runtime,
				command,
				args,
				port,
				env: { ...sharedEnv, ...env },
				logFile: join(logsFolder, `${name}.log`),
			});
			const member: QueueProcess = { ...server, name, command };
			processes.push(member);
			stops.add(() => server.stop());
			const loadProblem = packageLoadProblem(server.logFile);
			if (loadProblem) throw new Error(`${name} could not load the built package (check \`npm run build\`):\n${loadProblem}`);
			progress(`${name} ready in ${((Date.now() - begun) / 1000).toFixed(1)}s (${server.url})`);
			return member;
		};
		const startWorker = async (env?: Record<string, string>) => {
			const worker = await launch('worker', undefined, env);
			workers.push(worker);
			return worker;
		};
		let webhookPortTaken = false;
		const startWebhookProcessor = async () => {
			// Decided before the first await: processors started together must not both take N8N_WEBHOOK_URL's port.
			const port = webhookPortTaken ? undefined : webhookPort;
			webhookPortTaken = true;
			const processor = await launch('webhook', port);
			webhookProcessors.push(processor);
			return processor;
		};
		const leave = (worker: QueueProcess) => {
			const at = workers.indexOf(worker);
			if (at >= 0) workers.splice(at, 1);
		};

		progress(
			`starting n8n ${runtime.n8nVersion} in queue mode: main, ${options.workers ?? 2} worker(s), ${options.webhookProcessors ?? 1} webhook processor(s)`,
		);
		// The main process creates the schema; the others start once it is there.
		const main = await launch('start');
		const [instance] = await Promise.all([
			prepareInstance(main, simulator),
			...Array.from({ length: options.workers ?? 2 }, () => startWorker()),
			...Array.from({ length: options.webhookProcessors ?? 1 }, () => startWebhookProcessor()),
		]);
		progress(`queue-mode stack ready in ${((Date.now() - started) / 1000).toFixed(1)}s`);

		return {
			...instance,
			runtime,
			simulator,
			postgres,
			redis,
			main,
			workers,
			webhookProcessors,
			processes,
			logsFolder,
			startWorker,
			startWebhookProcessor,
			async killWorker(worker) {
				leave(worker);
				try {
					process.kill(-worker.process.pid, 'SIGKILL');
				} catch {
					// Already gone.
				}
				await worker.process.exited;
				await worker.stop();
			},
			async stopWorker(worker) {
				leave(worker);
				await worker.stop();
			},
			webhookUrl: (workflow, nodeName, path, via = webhookProcessors[0]) => {
				if (!via) throw new Error('No webhook processor is running');
				return productionWebhookUrl(via.url, workflow, nodeName, path);
			},
			keepLogs(dir) {
				mkdirSync(dir, { recursive: true });
				cpSync(logsFolder, dir, { recursive: true });
				cpSync(postgres.logFile, join(dir, 'postgres.log'));
				cpSync(redis.logFile, join(dir, 'redis.log'));
				return readdirSync(dir).map((file) => join(dir, file));
			},
			async stop() {
				await stops.release();
			},
		};
	} catch (error) {
		await stops.release();
		throw error;
	}
}
