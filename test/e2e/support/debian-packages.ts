/**
 * Debian packages the e2e suites run (Chromium for the editor case, PostgreSQL and Redis for queue
 * mode): used where they are, installed with apt-get when missing and this process is root (as in
 * CI), never downloaded from anywhere else. apt-get's output goes to a log in the runtime cache.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { cleanEnv, runToCompletion } from './processes';
import { cacheDir, defaultProgress, type ProgressLog } from './runtime';

export interface DebianPackage {
	/** The package to install, e.g. `redis-server`. */
	name: string;
	/** A file the package provides; when it exists, nothing is installed. */
	provides: string;
	/** How the progress lines name it, e.g. "Redis". */
	label: string;
	/** Whether it is installed, where one fixed path cannot tell (default: `provides` exists). */
	present?: () => boolean;
}

/** Debian's hook that invoke-rc.d asks before starting a service (exit 101: do not). */
const POLICY_RC_D = '/usr/sbin/policy-rc.d';

const isPresent = (pkg: DebianPackage) => (pkg.present ?? (() => existsSync(pkg.provides)))();

/** Makes sure `pkg.provides` exists, installing the package with apt-get when it does not. */
export async function ensureDebianPackage(pkg: DebianPackage, progress: ProgressLog = defaultProgress): Promise<void> {
	await ensureDebianPackages([pkg], progress);
}

/** The same for several packages: the missing ones come from one apt-get update and one install. */
export async function ensureDebianPackages(packages: DebianPackage[], progress: ProgressLog = defaultProgress): Promise<void> {
	const missing = packages.filter((pkg) => !isPresent(pkg));
	if (missing.length === 0) return;
	const pkg: DebianPackage = {
		name: missing.map((entry) => entry.name).join(' '),
		provides: missing.map((entry) => entry.provides).join(', '),
		label: missing.map((entry) => entry.label).join(', '),
		present: () => missing.every(isPresent),
	};
	const present = pkg.present!;
	if (typeof process.getuid === 'function' && process.getuid() !== 0) {
		throw new Error(
			`${pkg.provides} is missing. Install Debian's ${pkg.label} first: sudo apt-get update && sudo apt-get install -y ${pkg.name}`,
		);
	}
	mkdirSync(cacheDir(), { recursive: true });
	const logFile = join(cacheDir(), `apt-${missing.map((entry) => entry.name).join('+')}.log`);
	writeFileSync(logFile, '');
	const env = cleanEnv({ DEBIAN_FRONTEND: 'noninteractive' });
	// Another suite may be installing a package at the same moment: wait for dpkg's lock rather than fail.
	const lockWait = ['-o', 'DPkg::Lock::Timeout=300'];
	const started = Date.now();
	progress(`installing ${pkg.label} from Debian's packages (apt-get; about a minute; log: ${logFile})`);
	const heartbeat = setInterval(() => progress(`installing ${pkg.label}… ${Math.round((Date.now() - started) / 1000)}s`), 15000);
	// Debian starts a daemon it installs (sshd, mosquitto, postgresql...) on every address: the suites
	// start their own on loopback, so a policy that forbids starting services holds during the install.
	const policy = existsSync(POLICY_RC_D) ? undefined : POLICY_RC_D;
	if (policy) writeFileSync(policy, '#!/bin/sh\n# n8n-nodes-host e2e: no daemon starts during this install\nexit 101\n', { mode: 0o755 });
	try {
		await runToCompletion('apt-get', [...lockWait, 'update', '-q'], { env, logFile, what: 'apt-get update' });
		await runToCompletion('apt-get', [...lockWait, 'install', '-y', '-q', ...missing.map((entry) => entry.name)], {
			env,
			logFile,
			what: `apt-get install ${pkg.name}`,
		});
	} finally {
		clearInterval(heartbeat);
		if (policy) rmSync(policy, { force: true });
	}
	if (!present()) throw new Error(`apt-get installed ${pkg.name} but ${pkg.provides} is missing; see ${logFile}`);
	progress(`${pkg.label} installed in ${Math.round((Date.now() - started) / 1000)}s`);
}
