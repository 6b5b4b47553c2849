/**
 * What a status answer says about the task it was asked about. An answer must be about that task:
 * one that names another (a gateway's cache keyed wrongly, a reply meant for another request) is
 * well formed and within every bound, and still not this task's status, so it is never taken as
 * it, nor are its files passed on. Polling, Get Task Status and the resume webhook all read their
 * answers here, so the check is made the same way everywhere.
 */
import { normaliseTask, type NormalisedTask } from '../../../shared/tasks/task-status';
import { clipText } from '../../../shared/transport/service-values';
import type { TaskRef } from '../../transport/media-api';

/** Why an answer is not the status of the task asked, in words; and the other task's id, if it named one. */
export interface AnswerProblem {
	problem: string;
	otherTaskId?: string;
}

/** The task asked about, as its answer reports it; or why the answer is not its status. */
export type StatusAnswer = { task: NormalisedTask } | AnswerProblem;

/** A task id another task's answer names, as messages show it (a word, never a text). */
const SHOWN_ID_CHARS = 100;

/** Reads a status answer of `asked`: its task, or the problem (no task ID and status, or another task's). */
export function statusAnswerOf(answer: unknown, asked: TaskRef): StatusAnswer {
	const task = normaliseTask(answer);
	if (!task) return { problem: 'the status answer has no task ID and status' };
	if (task.task_id === asked.taskId) return { task };
	const otherTaskId = clipText(task.task_id, SHOWN_ID_CHARS);
	return { problem: `the service's status answer is about another task, ${otherTaskId}, not ${asked.taskId}`, otherTaskId };
}
