/**
 * What a conversion assumed, in words a user reads next to the converted workflow: nodes not sent
 * (muted, bypassed), saved values the editor never sends, subgraph instances rebound to the current
 * definition, node ids renumbered, values missing from a saved node. The converter still succeeds;
 * these say why the server gets what it gets.
 */
/** A long workflow can assume the same thing hundreds of times: the list stays readable. */
const MAX_NOTES = 40;
/** Titles and names come from the file: one can be megabytes, repeated in every note naming it. */
const MAX_NAME = 80;
/** All notes together, so they stay a small part of the item whatever the file holds. */
const MAX_TOTAL = 16_000;

/** A title or name from the file, cut to a length a note can quote. */
export function clip(text: string, max = MAX_NAME): string {
	return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Names quoted in a note, the first few of them: a file can list thousands. */
export function quotedNames(names: string[], max = 5): string {
	const listed = names.slice(0, max).map((name) => `"${clip(name)}"`);
	return names.length > max ? `${listed.join(', ')} and ${names.length - max} more` : listed.join(', ');
}

export class ConversionNotes {
	private readonly list: string[] = [];
	private readonly seen = new Set<string>();
	private size = 0;
	private dropped = 0;

	add(note: string): void {
		if (this.seen.has(note)) return;
		const fits = this.list.length < MAX_NOTES && this.size + note.length <= MAX_TOTAL;
		if (fits) {
			this.seen.add(note);
			this.list.push(note);
			this.size += note.length;
		} else this.dropped++;
	}

	get all(): string[] {
		return this.dropped > 0 ? [...this.list, `… and ${this.dropped} more notes like these`] : [...this.list];
	}
}
