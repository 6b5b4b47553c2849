/**
 * The messages a progress socket keeps for jobs nobody watches yet while submits are under way:
 * a short job can finish before its submit answers its prompt_id. Other jobs of the account fill
 * the store too, so it is bounded for all submits together (the oldest jobs' messages go first),
 * and a submit during which some were dropped is told so: its outputs then come from the job's
 * record, never from a list that may have lost a message.
 */

/** The kept messages' bounds, for all submits under way together. */
const KEPT_LIMIT = 5000;
const KEPT_CHARS = 32 * 1024 * 1024;

export class KeptMessages<Message> {
	/** Submits under way: while there are some, messages of unknown jobs are kept. */
	private submitting = 0;
	private readonly kept = new Map<string, { messages: Message[]; chars: number }>();
	private count = 0;
	private chars = 0;
	/** Kept jobs dropped to stay within the bounds, ever: a submit during which it grew cannot trust what is kept. */
	private drops = 0;

	/** Whether messages of unknown jobs are kept now (a submit is under way). */
	get wanted(): boolean {
		return this.submitting > 0;
	}

	/** A submit starts. Answers the mark `take` wants. */
	begin(): number {
		this.submitting++;
		return this.drops;
	}

	/** A submit ended (answered or failed); when none is left, nothing more needs keeping. */
	end(): void {
		this.submitting = Math.max(0, this.submitting - 1);
		if (this.submitting === 0) {
			this.kept.clear();
			this.count = 0;
			this.chars = 0;
		}
	}

	/** Keeps a message of `chars` characters for a job, within the bounds. */
	keep(promptId: string, message: Message, chars: number): void {
		const entry = this.kept.get(promptId) ?? { messages: [], chars: 0 };
		if (entry.messages.length === 0) this.kept.set(promptId, entry);
		entry.messages.push(message);
		entry.chars += chars;
		this.count++;
		this.chars += chars;
		this.prune();
	}

	/** A job's kept messages, in the order they came; `whole` is false when any were dropped since `mark`. */
	take(promptId: string, mark: number): { messages: Message[]; whole: boolean } {
		const entry = this.kept.get(promptId);
		const whole = this.drops === mark;
		if (!entry) return { messages: [], whole };
		this.kept.delete(promptId);
		this.count -= entry.messages.length;
		this.chars -= entry.chars;
		return { messages: entry.messages, whole };
	}

	/** Drops the oldest jobs' messages until the store is within its bounds. */
	private prune(): void {
		for (const [promptId, entry] of this.kept) {
			if (this.count <= KEPT_LIMIT && this.chars <= KEPT_CHARS) return;
			this.kept.delete(promptId);
			this.count -= entry.messages.length;
			this.chars -= entry.chars;
			this.drops++;
		}
	}
}
