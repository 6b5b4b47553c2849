/**
 * What a music stream's non-audio events leave in the output items: bounded, with echoed secrets
 * replaced. The service decides how large its events are, and n8n keeps every output item in the
 * execution's run data (saved to the database, sent to the editor, copied by later nodes), so a
 * service's megabytes must not land there whole. Secrets are replaced before anything is cut: a
 * cut could split one in two and leave half of it readable.
 */
import type { IDataObject } from 'n8n-workflow';

import { redact, redactDeep } from '../../../shared/transport/redaction';
import { clipText } from '../../../shared/transport/service-values';

// The real service's events are a few hundred bytes (a title with its tags is the largest) and a
// stream has a handful of them besides its audio: these bounds keep every real event whole, while
// a hostile stream leaves some tens of KiB per item, not megabytes.
/** Events kept, by count. */
const MAX_EVENTS = 100;
/** One event, as its JSON line was sent (or as kept, if larger): a larger one is kept as a marker with its type and size. */
const MAX_EVENT_BYTES = 2 * 1024;
/** All kept events of an item together, markers included; the events after them are only counted (events_omitted). */
const MAX_EVENTS_BYTES = 32 * 1024;
/** A text kept from an event (a title, an error message): the package clips a service's words at 500 characters elsewhere too. */
const MAX_TEXT_CHARS = 500;
/** Any other value kept from an event (display_tags, copy_index ...), as JSON. */
const MAX_VALUE_BYTES = 1024;

const CUT = 'too large to keep';

/** A text from the service as the output keeps it: secrets replaced, then clipped. */
export const keptText = (text: string, secrets: string[]): string => clipText(redact(text, secrets), MAX_TEXT_CHARS);

/** Any value from an event as the output keeps it: a text clipped, anything else whole or as a marker with its size. */
export function keptValue(value: unknown, secrets: string[]): IDataObject[string] {
	if (typeof value === 'string') return keptText(value, secrets);
	const json = JSON.stringify(value);
	if (json === undefined) return undefined;
	const bytes = Buffer.byteLength(json);
	return bytes <= MAX_VALUE_BYTES ? (redactDeep(value, secrets) as IDataObject[string]) : { cut: CUT, size_bytes: bytes };
}

/** The non-audio events of one stream, kept in order until the bounds are reached, the rest counted. */
export class MusicEventLog {
	private readonly kept: IDataObject[] = [];
	private keptBytes = 0;
	private seen = 0;
	private full = false;

	constructor(private readonly secrets: string[]) {}

	/** Records an event; `lineBytes` is the size of its line as the service sent it. */
	add(event: Record<string, unknown>, lineBytes: number): void {
		this.seen++;
		if (this.full) return;
		const entry = this.entry(event, lineBytes);
		// +1 for the comma between entries: the bound is on the JSON of the whole list.
		const bytes = Buffer.byteLength(JSON.stringify(entry)) + 1;
		if (this.kept.length >= MAX_EVENTS || this.keptBytes + bytes > MAX_EVENTS_BYTES) {
			// The kept events stay a prefix of the stream: what follows is only counted.
			this.full = true;
			return;
		}
		this.kept.push(entry);
		this.keptBytes += bytes;
	}

	/** The output's `events`, and `events_omitted` when some were left out. */
	json(): IDataObject {
		const omitted = this.seen - this.kept.length;
		return { events: this.kept, ...(omitted > 0 ? { events_omitted: omitted } : {}) };
	}

	/** The event as kept, or a marker when it is too large (measured before it is copied or stringified whole). */
	private entry(event: Record<string, unknown>, lineBytes: number): IDataObject {
		const marker = (size: number): IDataObject => ({
			...(typeof event.type === 'string' ? { type: keptText(event.type, this.secrets) } : {}),
			cut: CUT,
			size_bytes: size,
		});
		if (lineBytes > MAX_EVENT_BYTES) return marker(lineBytes);
		// The NDJSON reader hands any `data` text over as decoded bytes; kept, it is the text again.
		const plain = Buffer.isBuffer(event.data) ? { ...event, data: event.data.toString('base64') } : event;
		const entry = redactDeep(plain, this.secrets) as IDataObject;
		// Parsing can make a line longer (a number such as 1e9 is written out in full).
		const bytes = Buffer.byteLength(JSON.stringify(entry));
		return bytes > MAX_EVENT_BYTES ? marker(bytes) : entry;
	}
}
