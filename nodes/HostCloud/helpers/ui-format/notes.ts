/**
 * What a conversion assumed, in words a user reads next to the converted workflow: nodes not sent
 * (muted, bypassed), saved values the editor never sends, subgraph instances rebound to the current
 * definition, node ids renumbered, values missing from a saved node. The converter still succeeds;
 * these say why the server gets what it gets.
 */
/** A long workflow can assume the same thing hundreds of times: the list stays readable. */
const MAX_NOTES = 40;

export class ConversionNotes {
	private readonly list: string[] = [];
	private dropped = 0;

	add(note: string): void {
		if (this.list.includes(note)) return;
		if (this.list.length < MAX_NOTES) this.list.push(note);
		else this.dropped++;
	}

	get all(): string[] {
		return this.dropped > 0 ? [...this.list, `… and ${this.dropped} more notes like these`] : [...this.list];
	}
}
