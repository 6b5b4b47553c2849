/**
 * A Host Cloud job's state, read from its status word with the task status vocabulary
 * (`shared/tasks/task-status.ts`), with one difference: a cancelled job is told apart from a
 * failed one, and any word that is not final means "still running" (the real service's status
 * endpoints do not all use the spec's words).
 */
import { taskStateOf } from '../../../shared/tasks/task-status';

export type CloudJobState = 'completed' | 'failed' | 'cancelled' | 'running';

const CANCELLED_WORDS = new Set(['cancelled', 'canceled', 'interrupted']);

export function cloudJobStateOf(raw: unknown): CloudJobState {
	if (typeof raw === 'string' && CANCELLED_WORDS.has(raw.trim().toLowerCase())) return 'cancelled';
	const state = taskStateOf(raw);
	if (state === 'succeeded') return 'completed';
	if (state === 'failed') return 'failed';
	return 'running';
}
