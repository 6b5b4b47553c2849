/**
 * Newline-delimited JSON read as it arrives: one event per line, never the whole response in
 * memory. A line that is not a JSON object (a cut-off chunk, an HTML error page, a line longer
 * than the limit) is reported as malformed so the caller can skip and count it.
 */

import { MAX_JSON_DEPTH, readJson } from '../../../shared/transport/json-reader';

/** An event with the size of its line as sent (what it would cost to keep), or a malformed line. */
export type NdjsonLine = { event: Record<string, unknown>; bytes: number } | { malformed: string };

export interface NdjsonOptions {
	/** Longest line kept; longer lines are skipped as malformed without being held (default 64 MiB). */
	maxLineBytes?: number;
	/**
	 * A field whose value is a large Base64 string (audio chunks): it is decoded straight from the
	 * line's bytes into a Buffer, in slices, and the event carries that Buffer. A whole chunk as one
	 * JavaScript string lands in V8's large-object space, which only a full collection frees, so
	 * a long stream would grow the process by tens of MB between collections.
	 */
	base64Field?: string;
}

/** Decoded in slices this long (a multiple of 4): small strings that die young. */
const BASE64_SLICE = 16 * 1024;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Whether `code` is a letter of Base64, standard or URL-safe. */
const isBase64Letter = (code: number): boolean =>
	(code >= 0x41 && code <= 0x5a) ||
	(code >= 0x61 && code <= 0x7a) ||
	(code >= 0x30 && code <= 0x39) ||
	code === 0x2b ||
	code === 0x2f ||
	code === 0x2d ||
	code === 0x5f;

/**
 * Whether `bytes[start, end)` is Base64 text: its letters, then at most two `=` that complete a
 * group of four. Node's decoder skips what it cannot read, so a chunk of other text would decode to
 * fewer bytes, or none, and leave a silent hole in the audio.
 */
export function isBase64(bytes: Buffer, start = 0, end = bytes.length): boolean {
	let letters = end;
	while (letters > start && end - letters < 2 && bytes[letters - 1] === 0x3d) letters--;
	for (let at = start; at < letters; at++) if (!isBase64Letter(bytes[at]!)) return false;
	const padded = letters < end;
	return (letters - start) % 4 !== 1 && (!padded || (end - start) % 4 === 0);
}

/** Decodes the Base64 text in `bytes[start, end)` without making it one string. */
function decodeBase64(bytes: Buffer, start: number, end: number): Buffer {
	const out = Buffer.allocUnsafe(Math.floor(((end - start) * 3) / 4));
	let written = 0;
	for (let at = start; at < end; at += BASE64_SLICE) {
		written += out.write(bytes.toString('latin1', at, Math.min(at + BASE64_SLICE, end)), written, 'base64');
	}
	return out.subarray(0, written);
}

/**
 * Takes the Base64 value of `field` out of a line: the line without it (to parse as JSON) and the
 * decoded bytes. Undefined when the field is not a plain string value on this line.
 */
function extractBase64(bytes: Buffer, field: string): { rest: Buffer; data: Buffer | undefined } | undefined {
	const marker = Buffer.from(`"${field}":"`);
	const at = bytes.indexOf(marker);
	if (at === -1) return undefined;
	const start = at + marker.length;
	const end = bytes.indexOf(QUOTE, start);
	// Base64 has neither quotes nor backslashes; an escaped value takes the ordinary path.
	if (end === -1 || bytes.subarray(start, end).includes(BACKSLASH)) return undefined;
	// Text that is not Base64 is no audio: the chunk is unreadable (counted), never a shorter one.
	const data = isBase64(bytes, start, end) ? decodeBase64(bytes, start, end) : undefined;
	return { rest: Buffer.concat([bytes.subarray(0, start), bytes.subarray(end)]), data };
}

const NEWLINE = 0x0a;

function parseLine(bytes: Buffer, base64Field?: string): NdjsonLine | undefined {
	const extracted = base64Field ? extractBase64(bytes, base64Field) : undefined;
	const text = (extracted?.rest ?? bytes).toString('utf8').trim();
	if (text === '') return undefined;
	// The line's length is bounded by the reader below; its depth here.
	const reading = readJson(text, { maxChars: Number.MAX_SAFE_INTEGER, maxDepth: MAX_JSON_DEPTH });
	if (!('value' in reading)) return { malformed: reading.bound ? reading.problem : 'not valid JSON' };
	const value = reading.value;
	if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
		const event = value as Record<string, unknown>;
		if (extracted && base64Field) {
			// The value cut out was the event's own only if its place is now empty: else it was a nested
			// object's field of that name (or a repeated key), and the line is read as it came.
			if (event[base64Field] !== '') return parseLine(bytes);
			event[base64Field] = extracted.data;
		}
		return { event, bytes: bytes.length };
	}
	return { malformed: 'not a JSON object' };
}

/** The lines of `source` as events or malformed markers, in order. */
export async function* readNdjson(source: AsyncIterable<Buffer | string>, options: NdjsonOptions = {}): AsyncGenerator<NdjsonLine> {
	const maxLineBytes = options.maxLineBytes ?? 64 * 1024 * 1024;
	let parts: Buffer[] = [];
	let size = 0;
	let overlong = false;
	for await (const piece of source) {
		let chunk = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece;
		for (let newline = chunk.indexOf(NEWLINE); newline !== -1; newline = chunk.indexOf(NEWLINE)) {
			const tail = chunk.subarray(0, newline);
			chunk = chunk.subarray(newline + 1);
			if (overlong || size + tail.length > maxLineBytes) {
				yield { malformed: `longer than ${maxLineBytes} bytes` };
			} else {
				const line = parts.length === 0 ? tail : Buffer.concat([...parts, tail]);
				const parsed = parseLine(line, options.base64Field);
				if (parsed) yield parsed;
			}
			parts = [];
			size = 0;
			overlong = false;
		}
		if (chunk.length === 0 || overlong) continue;
		if (size + chunk.length > maxLineBytes) {
			// Drop what is held and ignore the rest of this line: memory stays bounded.
			overlong = true;
			parts = [];
			size = 0;
			continue;
		}
		// Copy: the source may reuse its buffer for the next chunk.
		parts.push(Buffer.from(chunk));
		size += chunk.length;
	}
	if (overlong) yield { malformed: `longer than ${maxLineBytes} bytes` };
	else if (size > 0) {
		const parsed = parseLine(Buffer.concat(parts), options.base64Field);
		if (parsed) yield parsed;
	}
}
