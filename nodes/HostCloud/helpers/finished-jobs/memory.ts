/**
 * What the Host Cloud Trigger remembers, in the workflow's static data: n8n saves it when the
 * workflow is activated and each time the trigger starts a flow, so it outlasts a restart. Lists
 * are bounded by count and size (`trigger-memory.ts`); each is assigned anew, since n8n notices only
 * an assignment to the static data.
 */
import { newestWithin } from '../../../shared/tasks/trigger-memory';

interface StoredMemory {
	/** Jobs already judged (passed on or filtered out), oldest first. */
	done?: unknown;
	/** Cloud: jobs seen queued or running, looked up by prompt_id after a gap or a restart. */
	watching?: unknown;
	/** Self-hosted: whether the history was read once (that first read only remembers). */
	historyRead?: unknown;
	/** The job that last started a flow. */
	lastPassed?: unknown;
}

const texts = (value: unknown): string[] => (Array.isArray(value) ? value.filter((key): key is string => typeof key === 'string') : []);

export class TriggerMemory {
	private readonly stored: StoredMemory;
	private readonly doneSet: Set<string>;

	/** Over the node's static data (a test run's memory is a plain object, never saved). */
	constructor(stored: object) {
		this.stored = stored as StoredMemory;
		this.doneSet = new Set(texts(this.stored.done));
	}

	isDone(promptId: string): boolean {
		return this.doneSet.has(promptId);
	}

	/** The job that last started a flow (what a test run shows first: it passed every filter then). */
	get lastPassed(): string | undefined {
		return typeof this.stored.lastPassed === 'string' ? this.stored.lastPassed : undefined;
	}

	set lastPassed(promptId: string | undefined) {
		if (promptId !== this.lastPassed) this.stored.lastPassed = promptId;
	}

	/** Remembers jobs as judged (and no longer watched), keeping the newest within the bounds. */
	markDone(promptIds: string[]): void {
		if (promptIds.length === 0) return;
		const done = newestWithin([...texts(this.stored.done).filter((id) => !promptIds.includes(id)), ...promptIds]);
		this.stored.done = done;
		this.doneSet.clear();
		for (const id of done) this.doneSet.add(id);
		this.watching = this.watching.filter((id) => !promptIds.includes(id));
	}

	get watching(): string[] {
		return texts(this.stored.watching);
	}

	set watching(promptIds: string[]) {
		const next = newestWithin(promptIds);
		if (JSON.stringify(next) !== JSON.stringify(this.watching)) this.stored.watching = next;
	}

	get historyRead(): boolean {
		return this.stored.historyRead === true;
	}

	set historyRead(value: boolean) {
		if (value !== this.historyRead) this.stored.historyRead = value;
	}
}
