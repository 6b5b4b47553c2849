/**
 * Shared parts of the bad-input sweep (issue 13 item 4): the seed fast-check runs with (printed,
 * replayable with BAD_INPUT_SEED, which every part of the sweep takes; test/support/suite-seed.ts),
 * what counts as an uncaught error, and the tally each part (a test file of
 * test/engine/sweeps/bad-input-*) writes to bench/reliability.json under `bad_input.<part>` when
 * RELIABILITY_FIGURES=1 (test/support/reliability.ts).
 */
import { recordReliabilityPart } from './reliability';
import { suiteSeed } from './suite-seed';

export const SEED = suiteSeed('BAD_INPUT_SEED');

/** Properties per operation: modest, so the sweep stays well under a minute on 2 cores. */
export const RUNS = Number(process.env.BAD_INPUT_RUNS ?? 30);

/** Jest's time for one swept operation, grown with BAD_INPUT_RUNS (a deeper sweep is slower, not stuck). */
export const SWEEP_TIMEOUT_MS = 30_000 * Math.max(1, RUNS / 30);

/**
 * An error a user should never see: a JavaScript failure (TypeError, RangeError...) rather than an
 * n8n error with a message about the input. n8n wraps what a node throws, so the cause is checked too.
 */
export function uncaughtError(error: unknown): string | undefined {
	if (!error) return undefined;
	// The run data may hold the error as a plain copy: its `name` says what it was.
	const nameOf = (value: unknown): string => {
		const record = value as { name?: unknown; constructor?: { name?: string } };
		return typeof record.name === 'string' && record.name !== 'Error' ? record.name : (record.constructor?.name ?? typeof value);
	};
	const cause = (error as { cause?: unknown }).cause;
	for (const link of cause && typeof cause === 'object' ? [error, cause] : [error]) {
		if (JAVASCRIPT_ERRORS.includes(nameOf(link))) return `${nameOf(link)}: ${(link as Error).message}`;
	}
	if (!N8N_ERRORS.includes(nameOf(error))) return `${nameOf(error)}: ${(error as Error).message}`;
	return undefined;
}

const JAVASCRIPT_ERRORS = ['TypeError', 'RangeError', 'SyntaxError', 'ReferenceError', 'AggregateError', 'URIError'];
// WorkflowHasIssuesError: n8n's own check of required parameters, before the node runs.
const N8N_ERRORS = ['NodeOperationError', 'NodeApiError', 'WorkflowOperationError', 'WorkflowHasIssuesError', 'ExpressionError'];

export interface Tally {
	inputs_tried: number;
	uncaught_errors: number;
	refused_before_sending: number;
	malformed_answers_tried: number;
	secrets_found: number;
}

export const tally: Tally = {
	inputs_tried: 0,
	uncaught_errors: 0,
	refused_before_sending: 0,
	malformed_answers_tried: 0,
	secrets_found: 0,
};

/** Adds this file's figures under bad_input.<part>, keeping the other parts (one per test file of the sweep). */
export function recordFigures(part: string, figures: Record<string, number>): void {
	recordReliabilityPart('bad_input', part, { ...figures, seed: SEED });
}
