#!/usr/bin/env node
/**
 * The release path's two local steps (no dependencies, so it runs before `npm ci`):
 *
 *   node scripts/release.mjs bump <major|minor|patch|X.Y.Z>   (`npm run release -- patch`)
 *     sets the version in package.json and package-lock.json, moves CHANGELOG.md's Unreleased
 *     section under "## X.Y.Z (date)", commits "Release vX.Y.Z" and tags vX.Y.Z. Nothing is
 *     pushed: `git push --follow-tags` is the maintainer's act, and the tag starts the publish
 *     workflow.
 *   node scripts/release.mjs check <tag>
 *     what the publish workflow asks first: the tag is vX.Y.Z, X.Y.Z is package.json's version,
 *     and CHANGELOG.md has a section for it.
 *
 * RELEASE_DATE=YYYY-MM-DD fixes the date written into the changelog (tests); else today (UTC).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const VERSION = /^(\d+)\.(\d+)\.(\d+)$/;

class ReleaseError extends Error {}

const read = (file) => readFileSync(join(ROOT, file), 'utf8');
const git = (...args) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** The next version: a bump of `current`, or an explicit X.Y.Z not below it. */
export function nextVersion(current, wanted) {
	const parts = VERSION.exec(current);
	if (!parts) throw new ReleaseError(`package.json's version "${current}" is not X.Y.Z`);
	const [major, minor, patch] = parts.slice(1).map(Number);
	if (wanted === 'major') return `${major + 1}.0.0`;
	if (wanted === 'minor') return `${major}.${minor + 1}.0`;
	if (wanted === 'patch') return `${major}.${minor}.${patch + 1}`;
	const explicit = VERSION.exec(wanted ?? '');
	if (!explicit) throw new ReleaseError(`Say which release: major, minor, patch or a version X.Y.Z (got "${wanted ?? ''}")`);
	const [a, b] = [explicit.slice(1).map(Number), [major, minor, patch]];
	if ((a[0] - b[0] || a[1] - b[1] || a[2] - b[2]) < 0) throw new ReleaseError(`${wanted} is below the current version ${current}`);
	return wanted;
}

/** The changelog with its Unreleased section under "## version (date)" and a new, empty Unreleased above. */
export function releaseChangelog(changelog, version, date) {
	const lines = changelog.split('\n');
	const start = lines.findIndex((line) => /^## Unreleased\s*$/.test(line));
	if (start === -1) throw new ReleaseError('CHANGELOG.md has no "## Unreleased" section');
	const next = lines.findIndex((line, index) => index > start && /^## /.test(line));
	const body = lines.slice(start + 1, next === -1 ? undefined : next);
	if (body.every((line) => line.trim() === '')) throw new ReleaseError("CHANGELOG.md's Unreleased section is empty: nothing to release");
	if (lines.some((line) => line.startsWith(`## ${version} `) || line === `## ${version}`)) {
		throw new ReleaseError(`CHANGELOG.md already has a section for ${version}`);
	}
	return [...lines.slice(0, start), '## Unreleased', '', `## ${version} (${date})`, ...lines.slice(start + 1)].join('\n');
}

/** What `check` refuses, or undefined when the tag may be published. */
export function tagProblem(tag, packageVersion, changelog) {
	const version = /^v(\d+\.\d+\.\d+)$/.exec(tag ?? '')?.[1];
	if (!version) return `The tag "${tag ?? ''}" is not a version tag vX.Y.Z`;
	if (version !== packageVersion) return `The tag ${tag} is not package.json's version ${packageVersion}`;
	if (!changelog.split('\n').some((line) => line.startsWith(`## ${version} (`) || line === `## ${version}`)) {
		return `CHANGELOG.md has no section "## ${version} (date)"`;
	}
	return undefined;
}

function setVersion(file, version, lock) {
	const data = JSON.parse(read(file));
	data.version = version;
	if (lock && data.packages?.['']) data.packages[''].version = version;
	writeFileSync(join(ROOT, file), `${JSON.stringify(data, null, 2)}\n`);
}

function bump(wanted) {
	if (git('status', '--porcelain') !== '') throw new ReleaseError('The working tree has changes: commit or stash them first');
	const current = JSON.parse(read('package.json')).version;
	const version = nextVersion(current, wanted);
	if (git('tag', '--list', `v${version}`) !== '') throw new ReleaseError(`The tag v${version} exists already`);
	const date = process.env.RELEASE_DATE ?? new Date().toISOString().slice(0, 10);
	const changelog = releaseChangelog(read('CHANGELOG.md'), version, date);
	setVersion('package.json', version, false);
	setVersion('package-lock.json', version, true);
	writeFileSync(join(ROOT, 'CHANGELOG.md'), changelog);
	git('add', 'package.json', 'package-lock.json', 'CHANGELOG.md');
	git('commit', '--quiet', '-m', `Release v${version}`);
	git('tag', '-a', `v${version}`, '-m', `v${version}`);
	process.stdout.write(`Released v${version} (${date}) locally: commit and tag made.\nPublish with: git push --follow-tags\n`);
}

function check(tag) {
	const problem = tagProblem(tag, JSON.parse(read('package.json')).version, read('CHANGELOG.md'));
	if (problem) throw new ReleaseError(problem);
	process.stdout.write(`${tag} may be published\n`);
}

const [command, argument] = process.argv.slice(2);
if (import.meta.url === `file://${process.argv[1]}`) {
	try {
		if (command === 'bump') bump(argument);
		else if (command === 'check') check(argument);
		else throw new ReleaseError('Usage: release.mjs bump <major|minor|patch|X.Y.Z> | check <tag>');
	} catch (error) {
		if (!(error instanceof ReleaseError)) throw error;
		process.stderr.write(`release: ${error.message}\n`);
		process.exit(1);
	}
}
