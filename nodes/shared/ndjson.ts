/**
 * Newline-delimited JSON read as it arrives: one event per line, never the whole response in
 * memory. A line that is not a JSON object (a cut-off chunk, an HTML error page, a line longer
 * than the limit) is reported as malformed so the caller can skip and count it.
 */

export type NdjsonLine = { event: Record<string, unknown> } | { malformed: string };

export interface NdjsonOptions {
	/** Longest line kept; longer lines are skipped as malformed without being held (default 64 MiB). */
	maxLineBytes?: number;
}

const NEWLINE = 0x0a;

function parseLine(bytes: Buffer): NdjsonLine | undefined {
	const text = bytes.toString('utf8').trim();
	if (text === '') return undefined;
	try {
		const value = JSON.parse(text) as unknown;
		if (typeof value === 'object' && value !== null && !Array.isArray(value)) return { event: value as Record<string, unknown> };
		return { malformed: 'not a JSON object' };
	} catch {
		return { malformed: 'not valid JSON' };
	}
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
				const parsed = parseLine(line);
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
		const parsed = parseLine(Buffer.concat(parts));
		if (parsed) yield parsed;
	}
}
