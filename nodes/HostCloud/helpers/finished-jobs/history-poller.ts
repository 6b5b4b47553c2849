/**
 * A self-hosted server's finished jobs, from its history: the upstream server sends a job's
 * messages only to the client that submitted it, so the trigger reads `GET /history` now and then.
 * The first read only remembers what had already ended; each later one passes on what ended since.
 */
import type { IDataObject, ITriggerFunctions } from 'n8n-workflow';

import { isRecord } from '../../../shared/items/validation';
import { readRecentHistory } from '../../transport/cloud-api';
import { errorInfoFrom } from '../job-reports/execution-errors';
import { recordFromHistory } from '../job-reports/lookup';
import { usablePromptId } from '../ownership/own-jobs';
import { endOf, entryFacts, passesFilters, type EndedJob } from './ended-job';
import type { TriggerMemory } from './memory';
import type { TriggerSettings } from './settings';

/** How many of the latest jobs each read asks for: more than this ending between two reads are partly missed. */
export const HISTORY_WINDOW = 100;

/** The ended jobs of a history answer (`{[prompt_id]: entry}`, oldest first), in the trigger's words. */
export function endedJobsOf(history: unknown, settings: TriggerSettings): EndedJob[] {
	if (!isRecord(history)) return [];
	// The newest HISTORY_WINDOW, even from a server that answers more than it was asked for.
	return Object.entries(history)
		.slice(-HISTORY_WINDOW)
		.flatMap(([promptId, entry]) => {
			if (!usablePromptId(promptId) || !isRecord(entry)) return [];
			const record = recordFromHistory(entry as IDataObject);
			const end = endOf(record.status);
			if (!end) return [];
			const error = isRecord(record.execution_error) ? errorInfoFrom(record.execution_error) : undefined;
			const outputs = isRecord(record.outputs) ? record.outputs : {};
			return [{ promptId, end, outputs, ...(error ? { error } : {}), ...entryFacts(entry.prompt, settings) }];
		});
}

export class HistoryPoller {
	constructor(
		private readonly context: ITriggerFunctions,
		private readonly settings: TriggerSettings,
		private readonly memory: TriggerMemory,
		private readonly onJob: (job: EndedJob) => Promise<void>,
		/** Fires when the trigger is closed: a read under way is ended. */
		private readonly stop: AbortSignal,
	) {}

	private async endedJobs(): Promise<EndedJob[]> {
		const history = await readRecentHistory(this.context, HISTORY_WINDOW, {
			action: 'reading the history for finished jobs',
			stop: this.stop,
		});
		return endedJobsOf(history, this.settings);
	}

	/** One read: the first only remembers; later ones pass on, once each, the jobs that ended since. */
	async poll(): Promise<void> {
		const ended = await this.endedJobs();
		if (!this.memory.historyRead) {
			this.memory.markDone(ended.map((job) => job.promptId));
			this.memory.historyRead = true;
			return;
		}
		for (const job of ended) {
			if (this.memory.isDone(job.promptId)) continue;
			// Remembered before the flow starts: n8n saves the memory as the trigger starts it.
			this.memory.markDone([job.promptId]);
			if (passesFilters(job, this.settings)) await this.onJob(job);
		}
	}

	/** For a test run: the newest ended job the filters pass; without one, what ended is remembered as a first read. */
	async latest(): Promise<EndedJob | undefined> {
		const ended = await this.endedJobs();
		const latest = ended.filter((job) => passesFilters(job, this.settings)).at(-1);
		if (!latest) {
			this.memory.markDone(ended.map((job) => job.promptId));
			this.memory.historyRead = true;
		}
		return latest;
	}
}
