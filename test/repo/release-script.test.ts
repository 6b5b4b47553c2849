/**
 * `npm run release -- <major|minor|patch|X.Y.Z>` in a temporary clone of this repository: the
 * version in package.json and package-lock.json, the changelog's Unreleased section moved under
 * the new version with its date, one commit and one tag, nothing pushed; and what it refuses.
 * Also `release.mjs check <tag>`, the publish workflow's first step.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const SCRIPT = join('scripts', 'release.mjs');
const IDENTITY = {
	GIT_AUTHOR_NAME: 'Release Test',
	GIT_AUTHOR_EMAIL: 'release@test.invalid',
	GIT_COMMITTER_NAME: 'Release Test',
	GIT_COMMITTER_EMAIL: 'release@test.invalid',
};

let work: string;
let clone: string;

function sh(command: string, args: string[], env: Record<string, string> = {}) {
	return spawnSync(command, args, { cwd: clone, encoding: 'utf8', env: { ...process.env, ...IDENTITY, ...env } });
}
const git = (...args: string[]) => sh('git', args).stdout.trim();
const release = (...args: string[]) => sh(process.execPath, [SCRIPT, ...args], { RELEASE_DATE: '2026-12-01' });
const json = (file: string) => JSON.parse(readFileSync(join(clone, file), 'utf8'));

beforeEach(() => {
	work = mkdtempSync(join(tmpdir(), 'n8n-nodes-host-release-'));
	clone = join(work, 'clone');
	const cloned = spawnSync('git', ['clone', '--quiet', '--depth', '1', `file://${ROOT}`, clone], { encoding: 'utf8' });
	if (cloned.status !== 0) throw new Error(cloned.stderr);
	// The script and changelog as they are in this checkout (committed or not), so the test covers them.
	mkdirSync(join(clone, 'scripts'), { recursive: true });
	copyFileSync(join(ROOT, SCRIPT), join(clone, SCRIPT));
	writeFileSync(
		join(clone, 'CHANGELOG.md'),
		'# Changelog\n\nIntro.\n\n## Unreleased\n\n### Fixed\n- A fix.\n\n## 0.0.9 (2026-01-01)\n\n- Older.\n',
	);
	git('add', '-A');
	git('commit', '--quiet', '--allow-empty', '-m', 'test setup');
});

afterEach(() => {
	rmSync(work, { recursive: true, force: true });
});

it('a patch release: version set in both manifests, changelog moved under it with its date, one commit and one tag', () => {
	const before = json('package.json').version as string;
	const [major, minor, patch] = before.split('.').map(Number);
	const version = `${major}.${minor}.${patch! + 1}`;
	const head = git('rev-parse', 'HEAD');
	const result = release('bump', 'patch');
	expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
	expect(result.stdout).toContain('git push --follow-tags');
	expect(json('package.json').version).toBe(version);
	expect(json('package-lock.json').version).toBe(version);
	expect(json('package-lock.json').packages[''].version).toBe(version);
	expect(readFileSync(join(clone, 'CHANGELOG.md'), 'utf8')).toBe(
		`# Changelog\n\nIntro.\n\n## Unreleased\n\n## ${version} (2026-12-01)\n\n### Fixed\n- A fix.\n\n## 0.0.9 (2026-01-01)\n\n- Older.\n`,
	);
	expect(git('log', '--format=%s', `${head}..HEAD`)).toBe(`Release v${version}`);
	expect(git('status', '--porcelain')).toBe('');
	expect(git('describe', '--tags', '--exact-match', 'HEAD')).toBe(`v${version}`);
	// Nothing pushed: the clone's origin has no such tag.
	expect(spawnSync('git', ['tag', '--list', `v${version}`], { cwd: ROOT, encoding: 'utf8' }).stdout.trim()).toBe('');
	// What the publish workflow checks first now passes for this tag, and fails for any other.
	expect(release('check', `v${version}`).status).toBe(0);
	expect(release('check', `v${major}.${minor}.${patch! + 2}`).stderr).toMatch(/not package\.json's version/);
});

it('minor, major and an explicit version', () => {
	const [major, minor] = (json('package.json').version as string).split('.').map(Number);
	expect(release('bump', 'minor').status).toBe(0);
	expect(json('package.json').version).toBe(`${major}.${minor! + 1}.0`);
	writeFileSync(
		join(clone, 'CHANGELOG.md'),
		readFileSync(join(clone, 'CHANGELOG.md'), 'utf8').replace('## Unreleased\n', '## Unreleased\n\n- More.\n'),
	);
	git('commit', '--quiet', '-am', 'more');
	expect(release('bump', 'major').status).toBe(0);
	expect(json('package.json').version).toBe(`${major! + 1}.0.0`);
	writeFileSync(
		join(clone, 'CHANGELOG.md'),
		readFileSync(join(clone, 'CHANGELOG.md'), 'utf8').replace('## Unreleased\n', '## Unreleased\n\n- Again.\n'),
	);
	git('commit', '--quiet', '-am', 'again');
	expect(release('bump', `${major! + 1}.2.3`).status).toBe(0);
	expect(git('tag', '--list').split('\n')).toEqual([`v${major}.${minor! + 1}.0`, `v${major! + 1}.0.0`, `v${major! + 1}.2.3`]);
});

it('refuses, changing nothing: an unknown bump, a lower version, an empty Unreleased section, uncommitted changes', () => {
	const head = git('rev-parse', 'HEAD');
	expect(release('bump', 'huge').stderr).toMatch(/major, minor, patch or a version X\.Y\.Z/);
	expect(release('bump', '0.0.1').stderr).toMatch(/below the current version/);
	writeFileSync(join(clone, 'CHANGELOG.md'), '# Changelog\n\n## Unreleased\n\n## 0.0.9 (2026-01-01)\n');
	git('commit', '--quiet', '-am', 'empty');
	expect(release('bump', 'patch').stderr).toMatch(/Unreleased section is empty: nothing to release/);
	writeFileSync(join(clone, 'README.md'), 'changed');
	expect(release('bump', 'patch').stderr).toMatch(/working tree has changes/);
	expect(git('tag', '--list')).toBe('');
	expect(git('rev-list', '--count', `${head}..HEAD`)).toBe('1');
});

it('check refuses a tag that is not vX.Y.Z, and a version without its changelog section', () => {
	expect(release('check', 'latest').stderr).toMatch(/not a version tag vX\.Y\.Z/);
	expect(release('check', `v${json('package.json').version}`).stderr).toMatch(/CHANGELOG\.md has no section/);
});
