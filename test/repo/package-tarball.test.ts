/**
 * What users install: the tarball `npm pack` makes from this checkout (`npm test` builds dist/
 * first). It must hold dist/ with every node and credential package.json registers, their codex
 * files and icons, the README, the licence and nothing else; install the way n8n 2.41.1 installs a
 * community package without pulling anything in; and pass the scanner's lint of shipped files.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { filesNeededBy } from '../support/package-files';

const ROOT = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

let work: string;
let unpacked: string;
let entries: string[];

function run(command: string, args: string[], cwd: string): string {
	const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });
	if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
	return result.stdout;
}

beforeAll(() => {
	work = mkdtempSync(join(tmpdir(), 'n8n-nodes-host-pack-'));
	const [packed] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], ROOT)) as Array<{ filename: string }>;
	const tarball = join(work, packed!.filename);
	entries = run('tar', ['-tzf', tarball], work)
		.split('\n')
		.filter(Boolean)
		.map((entry) => entry.replace(/^package\//, ''));
	unpacked = join(work, 'package');
	run('tar', ['-xzf', tarball, '-C', work], work);
}, 120000);

afterAll(() => {
	if (work) rmSync(work, { recursive: true, force: true });
});

describe('the tarball', () => {
	it('holds package.json, the README, the licence and dist/, nothing else', () => {
		const outside = entries.filter((entry) => !entry.startsWith('dist/'));
		expect(outside.sort()).toEqual(['LICENSE', 'README.md', 'package.json']);
		expect(readFileSync(join(unpacked, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
	});

	it('holds every registered node and credential with its codex file and both icons', () => {
		const registered: string[] = [...pkg.n8n.nodes, ...pkg.n8n.credentials];
		const needed = registered.map((file) => ({ file, ...filesNeededBy(file) }));
		for (const { file, icons } of needed) expect({ file, icons: icons.length }).toEqual({ file, icons: 2 });
		const files = needed.flatMap(({ file, codex, icons }) => [file, ...(codex ? [codex] : []), ...icons]);
		expect(files.filter((file) => !entries.includes(file))).toEqual([]);
	});

	it('ships only the compiled nodes, credentials and icons: no tests, simulator, benchmarks, examples or sources', () => {
		const dist = entries.filter((entry) => entry.startsWith('dist/'));
		expect(dist.filter((entry) => !/^dist\/(nodes|credentials|icons)\//.test(entry))).toEqual([]);
		expect(dist.filter((entry) => /(^|\/)(test|simulator|bench|examples)\/|\.test\.|\.ts$(?<!\.d\.ts)/.test(entry))).toEqual([]);
		// A source map may only describe a shipped file.
		for (const map of dist.filter((entry) => entry.endsWith('.map'))) expect(entries).toContain(map.replace(/\.map$/, ''));
	});

	it('has no code that reads the environment, the file system or starts processes (n8n verification)', () => {
		const code = entries.filter((entry) => entry.endsWith('.js'));
		const offending = code.filter((entry) =>
			/process\.env|require\("(node:)?(fs|child_process|fs\/promises)"\)/.test(readFileSync(join(unpacked, entry), 'utf8')),
		);
		expect(offending).toEqual([]);
	});

	it('installs as n8n 2.41.1 installs a community package, pulling nothing in', () => {
		// n8n strips these from the unpacked package.json, then runs `npm install` in its folder.
		const manifest = JSON.parse(readFileSync(join(unpacked, 'package.json'), 'utf8'));
		const { devDependencies: _dev, peerDependencies: _peer, optionalDependencies: _optional, ...installed } = manifest;
		const folder = join(work, 'installed');
		mkdirSync(folder);
		writeFileSync(join(folder, 'package.json'), JSON.stringify(installed, null, 2));
		run(
			'npm',
			[
				'install',
				'--offline',
				'--audit=false',
				'--fund=false',
				'--bin-links=false',
				'--install-strategy=shallow',
				'--ignore-scripts=true',
				'--package-lock=false',
			],
			folder,
		);
		const modules = join(folder, 'node_modules');
		expect(existsSync(modules) ? readdirSync(modules).filter((name) => !name.startsWith('.')) : []).toEqual([]);
		expect(installed.dependencies ?? {}).toEqual({});
	});

	it("passes the lint n8n's scanner runs on the shipped files (community rules, no console output)", () => {
		// The scanner's tarball leg: the community rules and no console on every .js, .d.ts and .json.
		// ESLint runs in its own process: the rules are ES modules, which Jest's CommonJS cannot load.
		const config = join(work, 'scanner.config.mjs');
		const from = (name: string) => JSON.stringify(require.resolve(name, { paths: [ROOT] }));
		writeFileSync(
			config,
			[
				`import communityNodes from ${from('@n8n/eslint-plugin-community-nodes')};`,
				`import tsParser from ${from('@typescript-eslint/parser')};`,
				'export default [',
				'	communityNodes.configs.recommended,',
				"	{ rules: { 'no-console': 'error' } },",
				"	{ files: ['**/*.json', '**/*.ts'], languageOptions: { parser: tsParser } },",
				'];',
			].join('\n'),
		);
		const files = entries.filter((entry) => /\.(js|ts|json)$/.test(entry));
		const eslint = spawnSync(
			process.execPath,
			[join(ROOT, 'node_modules', 'eslint', 'bin', 'eslint.js'), '--config', config, '--no-inline-config', '--format', 'json', ...files],
			{ cwd: unpacked, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
		);
		const results = JSON.parse(eslint.stdout || '[]') as Array<{
			filePath: string;
			messages: Array<{ severity: number; ruleId: string; message: string }>;
		}>;
		const errors = results.flatMap((result) =>
			result.messages
				.filter((message) => message.severity === 2)
				.map((message) => `${result.filePath.slice(unpacked.length + 1)}: ${message.ruleId} ${message.message}`),
		);
		expect({ errors, stderr: eslint.stderr }).toEqual({ errors: [], stderr: '' });
		expect(results).toHaveLength(files.length);
	}, 120000);
});
