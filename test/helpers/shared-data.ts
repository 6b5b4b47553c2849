/**
 * Data kept outside the repository, in ../shared (public data sets, the real upstream server's
 * scripts): found beside this checkout, or beside the local repository it was cloned from (a CI
 * clone in a temporary folder). Never copied into the project.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';

const REPO = join(__dirname, '..', '..');

function clonedFrom(): string | undefined {
	try {
		const origin = execFileSync('git', ['config', '--get', 'remote.origin.url'], { cwd: REPO, encoding: 'utf8' }).trim();
		return isAbsolute(origin) ? origin : undefined;
	} catch {
		return undefined;
	}
}

/** ../shared/<name> beside this checkout or its origin; the first of them when neither has it. */
export function sharedDir(name: string): string {
	return (
		[REPO, clonedFrom()]
			.filter((dir): dir is string => dir !== undefined)
			.map((dir) => join(dir, '..', 'shared', name))
			.find((dir) => existsSync(dir)) ?? join(REPO, '..', 'shared', name)
	);
}
