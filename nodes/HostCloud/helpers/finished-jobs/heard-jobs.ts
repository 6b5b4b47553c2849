/**
 * The cloud jobs the trigger follows while they run: what their messages and queue entries said,
 * within one bound. Everything kept counts against MAX_KEPT_BYTES: each job's record and prompt_id,
 * who started it and its node types (`entryFacts`), and the file references of its `executed`
 * messages (an output's other data may be large, and is never kept), at most MAX_FILES_PER_JOB per
 * job. Past the bound, a job's files are let go (its outputs then come from its record when it
 * ends) and its facts are not kept (it is judged as a job never seen in the queue); a new job past
 * it, or past MAX_HEARD_JOBS, lets the oldest go: they are left to their status at the listener's
 * next looks (their prompt_ids stay in the trigger's memory).
 */
import type { IDataObject } from 'n8n-workflow';

import { isRecord } from '../../../shared/items/validation';
import type { ExecutionErrorInfo } from '../job-reports/execution-errors';
import { collectExecuted } from '../job-reports/executed-outputs';
import type { JobEnd, JobFacts } from './ended-job';

const MAX_HEARD_JOBS = 2_000;
const MAX_FILES_PER_JOB = 2_000;
/** The most the followed jobs keep together, in bytes. */
export const MAX_KEPT_BYTES = 32 * 1024 * 1024;
/** A job's record besides its texts (the object and its fields): a flood of small jobs counts too. */
export const JOB_RECORD_BYTES = 256;

/** The bytes a text takes in memory, at most: two a character (UTF-16). */
export const textBytes = (text: string): number => 2 * text.length;

/** The bytes of every text in a value (its strings and its keys, at any depth). */
export function bytesOfTexts(value: unknown): number {
	if (typeof value === 'string') return textBytes(value);
	if (Array.isArray(value)) return value.reduce((sum: number, entry) => sum + bytesOfTexts(entry), 0);
	if (!isRecord(value)) return 0;
	return Object.entries(value).reduce((sum, [key, entry]) => sum + textBytes(key) + bytesOfTexts(entry), 0);
}

export interface HeardJob {
	/** File references of its `executed` messages by node id. */
	outputs: Record<string, IDataObject>;
	files: number;
	/** What its file references take, and what the rest of it takes (record, prompt_id, facts), in bytes. */
	fileBytes: number;
	ownBytes: number;
	/** Whether any message of it came on the socket. */
	heardOnSocket: boolean;
	/** When a queue read first listed it running. */
	runningSince?: number;
	/** Every message since its start was heard: the outputs collected are whole. */
	whole: boolean;
	facts: JobFacts;
	lastHeard: number;
	ended?: { end: JobEnd; error?: ExecutionErrorInfo };
}

/** An output's file references (`[{filename, subfolder, type}]` lists), the rest left out; and their size in bytes. */
function fileReferencesOf(output: unknown): { refs: IDataObject; count: number; bytes: number } {
	const refs: IDataObject = {};
	let count = 0;
	if (!isRecord(output)) return { refs, count, bytes: 0 };
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
	}
	return { refs, count, bytes: bytesOfTexts(refs) };
}

export class HeardJobs {
	private readonly jobs = new Map<string, HeardJob>();
	private kept = 0;

	/** What all followed jobs keep, in bytes. */
	get keptBytes(): number {
		return this.kept;
	}

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
		const ownBytes = JOB_RECORD_BYTES + textBytes(promptId);
		const job: HeardJob = {
			outputs: {},
			files: 0,
			fileBytes: 0,
			ownBytes,
			heardOnSocket: false,
			whole: fromStart,
			facts: {},
			lastHeard: Date.now(),
		};
		this.jobs.set(promptId, job);
		this.kept += ownBytes;
		this.makeRoom(job);
		return job;
	}

	delete(promptId: string): void {
		const job = this.jobs.get(promptId);
		if (!job) return;
		this.dropFiles(job);
		this.kept -= job.ownBytes;
		this.jobs.delete(promptId);
	}

	/**
	 * What its queue entry told of a job (who started it, its node types), when it fits the bound;
	 * else none is kept, and the job is judged as one never seen in the queue.
	 */
	setFacts(job: HeardJob, facts: JobFacts): void {
		const before = bytesOfTexts(job.facts);
		const after = bytesOfTexts(facts);
		const fits = this.kept - before + after <= MAX_KEPT_BYTES;
		job.facts = fits ? facts : {};
		job.ownBytes += (fits ? after : 0) - before;
		this.kept += (fits ? after : 0) - before;
	}

	/** Keeps the file references an `executed` message reports, within the bounds. */
	keepFiles(job: HeardJob, data: Record<string, unknown>): void {
		if (!job.whole) return;
		const { refs, count, bytes } = fileReferencesOf(data.output);
		if (job.files + count > MAX_FILES_PER_JOB || this.kept + bytes > MAX_KEPT_BYTES) {
			this.dropFiles(job);
			return;
		}
		job.files += count;
		job.fileBytes += bytes;
		this.kept += bytes;
		collectExecuted(job.outputs, { ...data, output: refs });
	}

	/** Its files are no longer whole: they come from its record. */
	dropFiles(job: HeardJob): void {
		job.whole = false;
		this.kept -= job.fileBytes;
		job.outputs = {};
		job.files = 0;
		job.fileBytes = 0;
	}

	/** Lets the oldest jobs but `job` go until all are within the bounds; whether that was enough. */
	private makeRoom(job: HeardJob): boolean {
		const over = () => this.jobs.size > MAX_HEARD_JOBS || this.kept > MAX_KEPT_BYTES;
		for (const [promptId, oldest] of this.jobs) {
			if (!over()) break;
			// One that ended is let go too: its prompt_id stays watched, so the next look finds its end again.
			if (oldest !== job) this.delete(promptId);
		}
		return !over();
	}
}
