/**
 * The cloud jobs the trigger follows while they run: what their messages said, within bounds. Only
 * the file references of `executed` messages are kept (an output's other data may be large), at
 * most MAX_FILES_PER_JOB per job and MAX_KEPT_CHARS for all; past them, a job's outputs come from
 * its record when it ends. At most MAX_HEARD_JOBS are followed; the oldest are then left to their
 * status at the listener's next looks.
 */
import type { IDataObject } from 'n8n-workflow';

import { isRecord } from '../../../shared/items/validation';
import type { ExecutionErrorInfo } from '../jobs/errors';
import { collectExecuted } from '../jobs/tracked-job';
import type { EndedJob, JobEnd } from './ended-job';

const MAX_HEARD_JOBS = 2_000;
const MAX_FILES_PER_JOB = 2_000;
const MAX_KEPT_CHARS = 16 * 1024 * 1024;

export interface HeardJob {
	/** File references of its `executed` messages by node id. */
	outputs: Record<string, IDataObject>;
	files: number;
	chars: number;
	/** Whether any message of it came on the socket. */
	heardOnSocket: boolean;
	/** When a queue read first listed it running. */
	runningSince?: number;
	/** Every message since its start was heard: the outputs collected are whole. */
	whole: boolean;
	facts: Pick<EndedJob, 'tag' | 'classes'>;
	lastHeard: number;
	ended?: { end: JobEnd; error?: ExecutionErrorInfo };
}

/** An output's file references (`[{filename, subfolder, type}]` lists), the rest left out; and their size in characters. */
function fileReferencesOf(output: unknown): { refs: IDataObject; count: number; chars: number } {
	const refs: IDataObject = {};
	let count = 0;
	let chars = 0;
	if (!isRecord(output)) return { refs, count, chars };
	for (const [key, value] of Object.entries(output)) {
		if (!Array.isArray(value)) continue;
		const files = value.filter((entry) => isRecord(entry) && typeof entry.filename === 'string');
		if (files.length === 0) continue;
		const kept = files.map((entry) => {
			const ref = entry as IDataObject;
			return {
				filename: ref.filename,
				subfolder: typeof ref.subfolder === 'string' ? ref.subfolder : '',
				type: typeof ref.type === 'string' ? ref.type : 'output',
			};
		});
		// An own key, whatever its name (`__proto__` included).
		Object.defineProperty(refs, key, { value: kept, enumerable: true, writable: true, configurable: true });
		count += kept.length;
		chars += key.length + kept.reduce((sum, ref) => sum + String(ref.filename).length + ref.subfolder.length + ref.type.length, 0);
	}
	return { refs, count, chars };
}

export class HeardJobs {
	private readonly jobs = new Map<string, HeardJob>();
	private keptChars = 0;

	get(promptId: string): HeardJob | undefined {
		return this.jobs.get(promptId);
	}

	has(promptId: string): boolean {
		return this.jobs.has(promptId);
	}

	keys(): IterableIterator<string> {
		return this.jobs.keys();
	}

	values(): IterableIterator<HeardJob> {
		return this.jobs.values();
	}

	/** A job heard of now (from its first message, `fromStart`, or from the queue); the oldest make room. */
	add(promptId: string, fromStart: boolean): HeardJob {
		const job: HeardJob = { outputs: {}, files: 0, chars: 0, heardOnSocket: false, whole: fromStart, facts: {}, lastHeard: Date.now() };
		this.jobs.set(promptId, job);
		for (const oldest of this.jobs.keys()) {
			if (this.jobs.size <= MAX_HEARD_JOBS) break;
			this.delete(oldest);
		}
		return job;
	}

	delete(promptId: string): void {
		const job = this.jobs.get(promptId);
		if (job) this.dropFiles(job);
		this.jobs.delete(promptId);
	}

	/** Keeps the file references an `executed` message reports, within the bounds. */
	keepFiles(job: HeardJob, data: Record<string, unknown>): void {
		if (!job.whole) return;
		const { refs, count, chars } = fileReferencesOf(data.output);
		if (job.files + count > MAX_FILES_PER_JOB || this.keptChars + chars > MAX_KEPT_CHARS) {
			this.dropFiles(job);
			return;
		}
		job.files += count;
		job.chars += chars;
		this.keptChars += chars;
		collectExecuted(job.outputs, { ...data, output: refs });
	}

	/** Its files are no longer whole: they come from its record. */
	dropFiles(job: HeardJob): void {
		job.whole = false;
		this.keptChars -= job.chars;
		job.outputs = {};
		job.files = 0;
		job.chars = 0;
	}
}
