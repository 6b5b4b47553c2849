/**
 * The seed of a suite that draws at random (the chaos suites, the bad-input sweep). By default it
 * comes from the checked-out commit, so CI's run of a commit draws exactly what its author's run of
 * that commit drew, and each new commit explores new draws. `<NAME>=<n>` replays a printed seed;
 * `<NAME>=random` draws a fresh one.
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';

const LIMIT = 2 ** 31;

function commitSeed(): number | undefined {
	try {
		const head = execFileSync('git', ['rev-parse', 'HEAD'], {
			cwd: path.resolve(__dirname, '../..'),
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'ignore'],
		}).trim();
		return /^[0-9a-f]{40}$/.test(head) ? parseInt(head.slice(0, 8), 16) % LIMIT : undefined;
	} catch {
		return undefined; // not a git checkout (an unpacked tarball): a fresh seed instead
	}
}

export function suiteSeed(variable: string): number {
	const given = process.env[variable]?.trim();
	if (given && given !== 'random') {
		const seed = Number(given);
		if (!Number.isInteger(seed)) throw new Error(`${variable} must be a whole number or "random" (got "${given}")`);
		return seed;
	}
	return (given === 'random' ? undefined : commitSeed()) ?? Math.floor(Math.random() * LIMIT);
}
