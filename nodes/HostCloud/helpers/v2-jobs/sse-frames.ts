/**
 * Server-Sent Events read as they arrive: line by line, one frame (`event:` and `data:` lines up to
 * a blank line) at a time, never the whole stream in memory. A frame longer than the bound is
 * skipped without being held, and a frame whose data is not a JSON object is reported as
 * malformed, so the caller can count it and re-read the job rather than believe it.
 */
import { MAX_JSON_DEPTH, readJson } from '../../../shared/transport/json-reader';

/** A frame: its event name (`message` when none) and its data, a JSON object; or a malformed one. */
export type SseFrame = { event: string; data: Record<string, unknown> } | { malformed: string };

/** Longest frame kept: a job's status (its outputs included) is far smaller; a preview image is skipped past it. */
export const MAX_FRAME_BYTES = 1024 * 1024;

const NEWLINE = 0x0a;

/** One frame's lines so far, and how many bytes they hold. */
class FrameLines {
	event = '';
	data: string[] = [];
	bytes = 0;
	overlong = false;

	add(line: string, maxBytes: number): void {
		if (this.overlong) return;
		this.bytes += Buffer.byteLength(line);
		if (this.bytes > maxBytes) {
			// What is held is dropped: memory stays bounded.
			this.overlong = true;
			this.data = [];
			return;
		}
		const colon = line.indexOf(':');
		// A line starting with ':' is a comment (a keep-alive).
		if (colon === 0) return;
		const field = colon === -1 ? line : line.slice(0, colon);
		const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
		if (field === 'event') this.event = value;
		else if (field === 'data') this.data.push(value);
	}

	/** The frame these lines make, or undefined for lines that carried no data. */
	frame(maxBytes: number): SseFrame | undefined {
		if (this.overlong) return { malformed: `longer than ${maxBytes} bytes` };
		if (this.data.length === 0) return undefined;
		const reading = readJson(this.data.join('\n'), { maxChars: maxBytes, maxDepth: MAX_JSON_DEPTH });
		if (!('value' in reading)) return { malformed: reading.bound ? reading.problem : 'its data is not valid JSON' };
		const value = reading.value;
		if (typeof value !== 'object' || value === null || Array.isArray(value)) return { malformed: 'its data is not a JSON object' };
		return { event: this.event || 'message', data: value as Record<string, unknown> };
	}
}

/** The frames of `source` in order; a line is at most `maxBytes` (longer ones are skipped, never held). */
export async function* readSseFrames(source: AsyncIterable<Buffer | string>, maxBytes = MAX_FRAME_BYTES): AsyncGenerator<SseFrame> {
	let lines = new FrameLines();
	let parts: Buffer[] = [];
	let size = 0;
	for await (const piece of source) {
		let chunk = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece;
		for (let newline = chunk.indexOf(NEWLINE); newline !== -1; newline = chunk.indexOf(NEWLINE)) {
			const tail = chunk.subarray(0, newline);
			chunk = chunk.subarray(newline + 1);
			const overlong = size + tail.length > maxBytes;
			const line = overlong
				? ''
				: Buffer.concat([...parts, tail])
						.toString('utf8')
						.replace(/\r$/, '');
			parts = [];
			size = 0;
			if (overlong) lines.overlong = true;
			else if (line !== '') lines.add(line, maxBytes);
			else {
				// A blank line ends the frame.
				const frame = lines.frame(maxBytes);
				lines = new FrameLines();
				if (frame) yield frame;
			}
		}
		if (chunk.length === 0) continue;
		if (size + chunk.length > maxBytes) {
			lines.overlong = true;
			parts = [];
			size = maxBytes + 1;
			continue;
		}
		// Copy: the source may reuse its buffer for the next chunk.
		parts.push(Buffer.from(chunk));
		size += chunk.length;
	}
}
