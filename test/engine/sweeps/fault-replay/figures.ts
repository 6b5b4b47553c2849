/**
 * The replay's figures (bench/reliability.json → `fault_replay`, written when RELIABILITY_FIGURES=1).
 * Each file of the replay tallies its own runs. A run records under its part (the sample, all
 * paths, or the paths FAULT_PATHS names: a full run in parts) each file's tally by the file's
 * name, and the part's figures are their sums: the same totals one file of the whole replay gave.
 */
import { SEED } from '../../../support/hostile-structures';
import { recordReliabilityPart } from '../../../support/reliability';
import { FULL, TARGETS } from './settings';

export interface Figures {
	/** The paths of the part (FAULT_PATHS narrows them), the same in every file. */
	paths: number;
	paths_run: number;
	requests_recorded: number;
	faults_available: number;
	runs: number;
	defects_found: number;
	by_rule: Record<string, number>;
}

/** This file's tally. */
export const figures: Figures = {
	paths: 0,
	paths_run: 0,
	requests_recorded: 0,
	faults_available: 0,
	runs: 0,
	defects_found: 0,
	by_rule: {},
};

/** The part's figures from its files' tallies. */
export function sumOf(tallies: Figures[]): Figures {
	const sum = (name: Exclude<keyof Figures, 'by_rule'>) => tallies.reduce((total, tally) => total + tally[name], 0);
	const byRule: Record<string, number> = {};
	for (const tally of tallies) for (const [rule, count] of Object.entries(tally.by_rule)) byRule[rule] = (byRule[rule] ?? 0) + count;
	return {
		paths: Math.max(0, ...tallies.map((tally) => tally.paths)),
		paths_run: sum('paths_run'),
		requests_recorded: sum('requests_recorded'),
		faults_available: sum('faults_available'),
		runs: sum('runs'),
		defects_found: sum('defects_found'),
		by_rule: byRule,
	};
}

/** Adds this file's tally, as `file`, to its part's figures (nothing is written unless figures were asked for). */
export function recordFigures(file: string): void {
	if (process.env.RELIABILITY_FIGURES !== '1') return;
	const part = process.env.FAULT_PATHS ?? (FULL ? 'all paths' : 'sample');
	// The files of a run end at about the same time in parallel workers: the part is updated under a lock.
	recordReliabilityPart('fault_replay', part, (earlier) => {
		const files = { ...((earlier as { files?: Record<string, Figures> } | undefined)?.files ?? {}), [file]: { ...figures } };
		return { mode: FULL ? 'full' : 'sample', seed: SEED, targets_per_answer: TARGETS, ...sumOf(Object.values(files)), files };
	});
}
