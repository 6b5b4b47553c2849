/**
 * The reliability figures (bench/reliability.json): each suite owns one section of the file and
 * replaces only that. Written only when RELIABILITY_FIGURES=1 (`npm run reliability`), so an
 * ordinary test run leaves the committed figures alone.
 */
import { closeSync, existsSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const FILE = join(__dirname, '..', '..', 'bench', 'reliability.json');

/** Replaces `section` of the figures (nothing is written unless figures were asked for). */
export function recordReliability(section: string, figures: Record<string, unknown>): void {
	if (process.env.RELIABILITY_FIGURES !== '1') return;
	const all = existsSync(FILE) ? (JSON.parse(readFileSync(FILE, 'utf8')) as Record<string, unknown>) : {};
	all[section] = { recorded_at: new Date().toISOString(), ...figures };
	writeFileSync(FILE, `${JSON.stringify(all, null, '\t')}\n`);
}

/** Reads `section` of the figures as recorded so far (for a suite that adds parts one by one). */
export function recordedReliability(section: string): Record<string, unknown> {
	const all = existsSync(FILE) ? (JSON.parse(readFileSync(FILE, 'utf8')) as Record<string, unknown>) : {};
	return (all[section] ?? {}) as Record<string, unknown>;
}

/**
 * Replaces `part` of `section`, keeping its other parts: `figures`, or what `update` makes of the
 * part as recorded so far. The parts of a suite are test files Jest runs side by side: without the
 * lock, two that read the file before either wrote it lose a part.
 */
export function recordReliabilityPart(
	section: string,
	part: string,
	figures: Record<string, unknown> | ((earlier: Record<string, unknown> | undefined) => Record<string, unknown>),
): void {
	if (process.env.RELIABILITY_FIGURES !== '1') return;
	underLock(`${FILE}.lock`, () => {
		const { recorded_at: _at, ...parts } = recordedReliability(section);
		const next = typeof figures === 'function' ? figures(parts[part] as Record<string, unknown> | undefined) : figures;
		recordReliability(section, { ...parts, [part]: next });
	});
}

/** Runs `work` holding `lock` (a file only one process can create); a lock held 5 s was left by a killed worker. */
function underLock(lock: string, work: () => void): void {
	const since = Date.now();
	for (;;) {
		try {
			closeSync(openSync(lock, 'wx'));
			break;
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
			if (Date.now() - since > 5000) rmSync(lock, { force: true });
			else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
		}
	}
	try {
		work();
	} finally {
		rmSync(lock, { force: true });
	}
}
