/**
 * The README's manual install, as a self-hoster does it: `cd ~/.n8n/nodes && npm install <the
 * package>`, here with the tarball `npm pack` makes of this checkout (built by the suite's npm
 * script), on Node 22 (n8n 1.x) and on Node 24 (n8n 2.x). It must install this one package: the
 * peer n8n-workflow is optional, so npm does not pull it (and isolated-vm, which it needs, with it)
 * in beside the n8n that already has its own. npm is this project's, run by each runtime's Node.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { PACKAGE_NAME, REPO_ROOT } from '../../support/n8n-server';
import { cleanEnv, runToCompletion } from '../../support/processes';
import { cacheDir, ensureN8nRuntime, N8N_1_RUNTIME, N8N_2_RUNTIME, type RuntimeVersions } from '../../support/runtime';

/** The npm that runs this suite (npm run sets npm_execpath), else the one on PATH. */
function npmCli(): string {
	const running = process.env.npm_execpath;
	if (running?.endsWith('npm-cli.js')) return running;
	return join(execFileSync('npm', ['root', '-g'], { encoding: 'utf8' }).trim(), 'npm', 'bin', 'npm-cli.js');
}

/** Every package in a node_modules folder, scoped ones as `@scope/name`. */
function installedPackages(nodeModules: string): string[] {
	if (!existsSync(nodeModules)) return [];
	return readdirSync(nodeModules)
		.filter((entry) => !entry.startsWith('.'))
		.flatMap((entry) => (entry.startsWith('@') ? readdirSync(join(nodeModules, entry)).map((name) => `${entry}/${name}`) : [entry]));
}

describe("the README's manual install (npm install in ~/.n8n/nodes)", () => {
	let work: string;
	let tarball: string;

	beforeAll(() => {
		work = mkdtempSync(join(tmpdir(), 'n8n-nodes-host-manual-install-'));
		const packed = execFileSync('npm', ['pack', '--json', '--pack-destination', work], {
			cwd: REPO_ROOT,
			encoding: 'utf8',
			env: { ...process.env, npm_config_update_notifier: 'false' },
		});
		tarball = join(work, (JSON.parse(packed) as Array<{ filename: string }>)[0]!.filename);
	}, 120000);

	afterAll(() => {
		if (work) rmSync(work, { recursive: true, force: true });
	});

	it.each([
		['Node 22 (n8n 1.x)', N8N_1_RUNTIME],
		['Node 24 (n8n 2.x)', N8N_2_RUNTIME],
	] as Array<[string, RuntimeVersions]>)(
		'with %s installs n8n-nodes-host and nothing else',
		async (label, versions) => {
			// Installed already when the suites ran before (CI); else installed here, once.
			const runtime = await ensureN8nRuntime((line) => process.stderr.write(`[e2e:n8n1] ${line}\n`), versions);
			const home = join(work, `home-node-${versions.node}`);
			const nodesFolder = join(home, '.n8n', 'nodes');
			mkdirSync(nodesFolder, { recursive: true });
			await runToCompletion(runtime.nodeBinary, [npmCli(), 'install', tarball], {
				cwd: nodesFolder,
				env: cleanEnv({
					HOME: home,
					PATH: `${join(runtime.nodeBinary, '..')}:${process.env.PATH ?? ''}`,
					// The registry is asked as usual; what it already sent the runtimes' installs comes from their cache.
					npm_config_cache: join(cacheDir(), 'npm-cache'),
					npm_config_prefer_offline: 'true',
					npm_config_update_notifier: 'false',
					npm_config_fund: 'false',
					npm_config_audit: 'false',
				}),
				logFile: join(work, `npm-install-node-${versions.node}.log`),
				what: `npm install of the package with ${label}`,
			});
			expect(installedPackages(join(nodesFolder, 'node_modules'))).toEqual([PACKAGE_NAME]);
			const lock = JSON.parse(readFileSync(join(nodesFolder, 'package-lock.json'), 'utf8')) as { packages: Record<string, unknown> };
			expect(Object.keys(lock.packages).sort()).toEqual(['', `node_modules/${PACKAGE_NAME}`]);
		},
		25 * 60 * 1000,
	);
});
