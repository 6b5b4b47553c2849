/**
 * The reliability figures (bench/reliability.json): each suite owns one section of the file and
 * replaces only that. Written only when RELIABILITY_FIGURES=1 (`npm run reliability`), so an
 * ordinary test run leaves the committed figures alone.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
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
