/**
 * Self-hosted: the history, where a client learns that a job finished and what it produced (the
 * server has no job status route). A job has an entry only once it is over (succeeded, failed or
 * interrupted); a job taken off the queue before it ran never gets one. Entries are kept in the
 * order jobs finished, at most MAX_ENTRIES (the oldest goes first).
 */
import type { Job, NodeOutput } from '../cloud/types';

type StatusMessage = [string, Record<string, unknown>];

export interface HistoryEntry {
	/** The queue item: [number, prompt_id, prompt, extra_data without secrets, output node ids]. */
	prompt: unknown[];
	outputs: Record<string, NodeOutput>;
	status: { status_str: 'success' | 'error'; completed: boolean; messages: StatusMessage[] };
	meta: Record<string, { node_id: string; display_node: string; parent_node: null; real_node_id: string }>;
}

/** The messages the server also keeps in an entry's status (the others only go to sockets). */
const STATUS_TYPES = new Set(['execution_start', 'execution_cached', 'execution_success', 'execution_error', 'execution_interrupted']);
const END_TYPES = new Set(['execution_success', 'execution_error', 'execution_interrupted']);
const MAX_ENTRIES = 10000;

export class HistoryBook {
	private readonly entries = new Map<string, HistoryEntry>();
	private readonly collecting = new Map<string, StatusMessage[]>();

	/** `queueItem` gives the job's queue item as the history keeps it (secrets left out). */
	constructor(private readonly queueItem: (job: Job) => unknown[]) {}

	/** Sees every JSON message of a job; the job's last one writes its entry. */
	observe(job: Job, message: object): void {
		const { type, data } = message as { type: string; data: Record<string, unknown> };
		if (!STATUS_TYPES.has(type)) return;
		const messages = this.collecting.get(job.promptId) ?? [];
		messages.push([type, { ...data }]);
		this.collecting.set(job.promptId, messages);
		if (!END_TYPES.has(type)) return;
		this.collecting.delete(job.promptId);
		if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
		const success = type === 'execution_success';
		const outputs = structuredClone(job.outputs);
		const meta = Object.fromEntries(
			Object.keys(outputs).map((id) => [id, { node_id: id, display_node: id, parent_node: null, real_node_id: id }] as const),
		);
		this.entries.set(job.promptId, {
			prompt: this.queueItem(job),
			outputs,
			status: { status_str: success ? 'success' : 'error', completed: success, messages },
			meta,
		});
	}

	/** GET /history/{id}: `{[id]: entry}`, or `{}` while the job is not over (or unknown). */
	one(promptId: string): Record<string, HistoryEntry> {
		const entry = this.entries.get(promptId);
		return entry ? { [promptId]: structuredClone(entry) } : {};
	}

	/**
	 * GET /history: entries from `offset` (oldest first), at most `maxItems`. Without an offset,
	 * `maxItems` takes the newest ones, as upstream.
	 */
	list(maxItems?: number, offset = -1): Record<string, HistoryEntry> {
		const out: Record<string, HistoryEntry> = {};
		const start = offset < 0 && maxItems !== undefined ? this.entries.size - maxItems : offset;
		let index = 0;
		for (const [id, entry] of this.entries) {
			if (index >= start) {
				out[id] = entry;
				if (maxItems !== undefined && Object.keys(out).length >= maxItems) break;
			}
			index++;
		}
		return out;
	}

	delete(promptId: string): void {
		this.entries.delete(promptId);
	}

	clear(): void {
		this.entries.clear();
	}

	/** Everything, the messages of jobs still running included. */
	reset(): void {
		this.entries.clear();
		this.collecting.clear();
	}

	/** The entries, for tests (read-only view). */
	view(): ReadonlyMap<string, HistoryEntry> {
		return this.entries;
	}
}
