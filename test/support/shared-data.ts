/**
 * Data kept outside the repository, in ../shared (public data sets, the real upstream server's
 * scripts): found beside this checkout, or beside the local repository it was cloned from (a CI
 * clone in a temporary folder). Never copied into the project. A clone with nothing beside it
 * still passes `npm test`: the tests that read such data skip (describeWithShared).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';

const REPO = join(__dirname, '..', '..');

/** What each data set is and where it comes from, for the line a skip prints. */
const SHARED_DATA = {
	'ui-format': 'real saved ComfyUI workflows, public data kept outside the repository',
	'real-server': "the real upstream server's start scripts, kept outside the repository",
} as const;

export type SharedData = keyof typeof SHARED_DATA;

function clonedFrom(): string | undefined {
	try {
		const origin = execFileSync('git', ['config', '--get', 'remote.origin.url'], { cwd: REPO, encoding: 'utf8' }).trim();
		return isAbsolute(origin) ? origin : undefined;
	} catch {
		return undefined;
	}
}

/** ../shared/<name> beside this checkout or its origin; the first of them when neither has it. */
export function sharedDir(name: SharedData): string {
	return (
		[REPO, clonedFrom()]
			.filter((dir): dir is string => dir !== undefined)
			.map((dir) => join(dir, '..', 'shared', name))
			.find((dir) => existsSync(dir)) ?? join(REPO, '..', 'shared', name)
	);
}

/**
 * The one place that decides "data there, or skip": `define` (the tests, given the data's folder)
 * runs inside describe(title) when ../shared/<name> is found; else one skipped test stands for them,
 * under a describe whose title says what is missing. Nothing of the data is read then (a test.each
 * over an absent folder would throw while Jest collects), and test/summary-reporter.js prints that
 * title once per run, however many files skip for the same data.
 */
export function describeWithShared(name: SharedData, title: string, define: (dir: string) => void): void {
	const dir = sharedDir(name);
	if (existsSync(dir)) {
		describe(title, () => define(dir));
		return;
	}
	describe.skip(`skipped: ../shared/${name} (${SHARED_DATA[name]}) is not beside this checkout or its origin`, () => {
		test(title, () => undefined);
	});
}
