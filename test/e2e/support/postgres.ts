/**
 * A throw-away PostgreSQL server for n8n's queue mode: Debian's server binaries (the `postgresql`
 * package, installed with apt-get when missing), a fresh cluster in a temporary folder, a free
 * loopback port, no durability (fsync off: the data lives as long as the test run). PostgreSQL
 * refuses to run as root, so as root the cluster belongs to the `postgres` user the package
 * creates and both `initdb` and the server run as that user (setpriv, which execs in place, so
 * the server is the leader of its own process group and is stopped with it).
 */
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { ensureDebianPackage } from './debian-packages';
import { freePort, removeOnExit, runToCompletion, spawnGroup, tailOf, type GroupProcess } from './processes';
import { defaultProgress, type ProgressLog } from './runtime';

const POSTGRES_ROOT = '/usr/lib/postgresql';
const SERVER_USER = 'postgres';
/** The database n8n gets; the superuser is `postgres`, trusted on loopback (no password). */
export const N8N_DATABASE = 'n8n';

export interface PostgresServer {
	host: string;
	port: number;
	user: string;
	database: string;
	/** The temporary folder: cluster, socket and log. */
	folder: string;
	logFile: string;
	process: GroupProcess;
	/** Runs SQL with psql and returns its unaligned, tuples-only output (rows on lines, fields split by |). */
	query(sql: string, database?: string): Promise<string>;
	/** Fast shutdown (clients disconnected at once), then the folder is deleted. */
	stop(): Promise<void>;
}

/** The newest installed server's bin folder (/usr/lib/postgresql/<version>/bin). */
function serverBinDir(): string | undefined {
	if (!existsSync(POSTGRES_ROOT)) return undefined;
	const versions = readdirSync(POSTGRES_ROOT)
		.filter((name) => /^\d+$/.test(name) && existsSync(join(POSTGRES_ROOT, name, 'bin', 'postgres')))
		.sort((a, b) => Number(b) - Number(a));
	return versions[0] === undefined ? undefined : join(POSTGRES_ROOT, versions[0], 'bin');
}

async function ensureServerBinaries(progress: ProgressLog): Promise<string> {
	await ensureDebianPackage(
		{
			name: 'postgresql',
			provides: `${POSTGRES_ROOT}/<version>/bin/postgres`,
			label: 'PostgreSQL',
			present: () => serverBinDir() !== undefined,
		},
		progress,
	);
	return serverBinDir()!;
}

function userIds(name: string): { uid: number; gid: number } {
	const line = readFileSync('/etc/passwd', 'utf8')
		.split('\n')
		.find((entry) => entry.startsWith(`${name}:`));
	if (!line) throw new Error(`There is no "${name}" user; Debian's postgresql package creates it (apt-get install -y postgresql)`);
	const [, , uid, gid] = line.split(':');
	return { uid: Number(uid), gid: Number(gid) };
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/** The command line that runs `binary` as the cluster's owner (itself when this process is not root). */
function asServerUser(binary: string, args: string[]): [string, string[]] {
	return isRoot()
		? ['setpriv', [`--reuid=${SERVER_USER}`, `--regid=${SERVER_USER}`, '--init-groups', '--', binary, ...args]]
		: [binary, args];
}

export async function startPostgres(progress: ProgressLog = defaultProgress): Promise<PostgresServer> {
	const binDir = await ensureServerBinaries(progress);
	const folder = mkdtempSync(join(tmpdir(), 'n8n-nodes-host-pg-'));
	const removeFolder = removeOnExit(folder);
	if (isRoot()) {
		const { uid, gid } = userIds(SERVER_USER);
		chownSync(folder, uid, gid);
	}
	const dataDir = join(folder, 'data');
	const logFile = join(folder, 'postgres.log');
	const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' };
	const [initdb, initdbArgs] = asServerUser(join(binDir, 'initdb'), [
		'-D',
		dataDir,
		'-U',
		SERVER_USER,
		'--auth=trust',
		'--encoding=UTF8',
		'--no-sync',
		'--no-instructions',
	]);
	try {
		await runToCompletion(initdb, initdbArgs, { cwd: folder, env, logFile, what: 'initdb' });
	} catch (error) {
		removeFolder();
		throw error;
	}

	const port = await freePort();
	const [server, serverArgs] = asServerUser(join(binDir, 'postgres'), [
		'-D',
		dataDir,
		'-p',
		String(port),
		'-k',
		folder,
		'-c',
		'listen_addresses=127.0.0.1',
		// A test database: nothing has to survive a crash, so nothing waits for the disk.
		'-c',
		'fsync=off',
		'-c',
		'synchronous_commit=off',
		'-c',
		'full_page_writes=off',
		'-c',
		'max_connections=200',
	]);
	const group = spawnGroup(server, serverArgs, { cwd: folder, env, logFile, orphanFolder: folder });

	const psql = join(binDir, 'psql');
	const query = async (sql: string, database = N8N_DATABASE) => {
		const { stdout } = await promisify(execFile)(
			existsSync(psql) ? psql : 'psql',
			['-h', '127.0.0.1', '-p', String(port), '-U', SERVER_USER, '-d', database, '-v', 'ON_ERROR_STOP=1', '-At', '-c', sql],
			{ env: { ...env, PGCONNECT_TIMEOUT: '5' }, maxBuffer: 16 * 1024 * 1024 },
		);
		return stdout.trim();
	};
	const stop = async () => {
		// SIGINT is PostgreSQL's fast shutdown; SIGTERM (what stop() sends) would wait for every client to leave.
		if (!group.hasExited()) process.kill(group.pid, 'SIGINT');
		await group.stop(10000);
		removeFolder();
	};

	const deadline = Date.now() + 60000;
	for (;;) {
		try {
			await query('SELECT 1', 'postgres');
			break;
		} catch (error) {
			if (group.hasExited() || Date.now() > deadline) {
				await stop();
				throw new Error(`PostgreSQL did not start (${(error as Error).message.trim()}). Last lines of its log:\n${tailOf(logFile, 20)}`);
			}
			await new Promise((resolve) => setTimeout(resolve, 200));
		}
	}
	await query(`CREATE DATABASE ${N8N_DATABASE}`, 'postgres');
	return { host: '127.0.0.1', port, user: SERVER_USER, database: N8N_DATABASE, folder, logFile, process: group, query, stop };
}
