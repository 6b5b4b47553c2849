/**
 * A throw-away Redis for n8n's queue mode (its job queue, Bull): Debian's `redis-server`
 * (installed with apt-get when missing) on a free loopback port, nothing saved to disk, its
 * working folder temporary. `command()` runs one Redis command with `redis-cli`, which the
 * package brings along.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { ensureDebianPackage } from './debian-packages';
import { cleanEnv, freePort, removeOnExit, spawnGroup, tailOf, type GroupProcess } from './processes';
import { defaultProgress, type ProgressLog } from './runtime';

const REDIS_SERVER = '/usr/bin/redis-server';
const REDIS_CLI = '/usr/bin/redis-cli';

export interface RedisServer {
	host: string;
	port: number;
	logFile: string;
	process: GroupProcess;
	/** One command (e.g. `LLEN bull:jobs:active`); resolves with redis-cli's raw answer, trimmed. */
	command(...args: string[]): Promise<string>;
	stop(): Promise<void>;
}

/**
 * Starts Redis in `folder` (default: a new temporary one), which is deleted when Redis is stopped,
 * and, by the watchdog of its process group, when this process dies without stopping it.
 */
export async function startRedis(
	progress: ProgressLog = defaultProgress,
	folder = mkdtempSync(join(tmpdir(), 'n8n-nodes-host-redis-')),
): Promise<RedisServer> {
	const removeFolder = removeOnExit(folder);
	try {
		await ensureDebianPackage({ name: 'redis-server', provides: REDIS_SERVER, label: 'Redis' }, progress);
	} catch (error) {
		removeFolder();
		throw error;
	}
	const port = await freePort();
	const logFile = join(folder, 'redis.log');
	const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', folder, '--daemonize', 'no'];
	const group = spawnGroup(REDIS_SERVER, args, { cwd: folder, env: cleanEnv(), logFile, orphanFolder: folder });

	const command = async (...commandArgs: string[]) => {
		const cli = existsSync(REDIS_CLI) ? REDIS_CLI : 'redis-cli';
		const { stdout } = await promisify(execFile)(cli, ['-h', '127.0.0.1', '-p', String(port), '--raw', ...commandArgs], {
			env: cleanEnv(),
		});
		return stdout.trim();
	};
	const stop = async () => {
		await group.stop(5000);
		removeFolder();
	};

	const deadline = Date.now() + 30000;
	while ((await command('PING').catch(() => '')) !== 'PONG') {
		if (group.hasExited() || Date.now() > deadline) {
			await stop();
			throw new Error(`Redis did not start. Last lines of its log:\n${tailOf(logFile, 20)}`);
		}
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
	return { host: '127.0.0.1', port, logFile, process: group, command, stop };
}
