import { readNdjson, type NdjsonLine } from '../../../../../nodes/HostMedia/helpers/music/ndjson';

async function* chunks(...parts: Array<string | Buffer>): AsyncGenerator<Buffer> {
	for (const part of parts) yield Buffer.isBuffer(part) ? part : Buffer.from(part, 'utf8');
}

async function collect(source: AsyncIterable<Buffer>, maxLineBytes?: number): Promise<NdjsonLine[]> {
	const out: NdjsonLine[] = [];
	for await (const line of readNdjson(source, { maxLineBytes })) out.push(line);
	return out;
}

describe('readNdjson', () => {
	it('reads events split anywhere across chunks, CRLF and blank lines included', async () => {
		const text = '{"type":"title","title":"Ä song"}\r\n\n{"type":"duration","duration_sec":2.5}\n{"type":"complete"}';
		const bytes = Buffer.from(text, 'utf8');
		// Split inside the two-byte Ä as well.
		const pieces = [bytes.subarray(0, 7), bytes.subarray(7, 30), bytes.subarray(30, 31), bytes.subarray(31)];
		expect(await collect(chunks(...pieces))).toEqual([
			// The size of each line as sent, in bytes (Ä is two, the CR counts).
			{ event: { type: 'title', title: 'Ä song' }, bytes: 35 },
			{ event: { type: 'duration', duration_sec: 2.5 }, bytes: 38 },
			{ event: { type: 'complete' }, bytes: 19 },
		]);
	});

	it('reports broken lines as malformed and goes on', async () => {
		const lines = await collect(chunks('{"type":"audio_chunk","data":"UklG\n<html>502</html>\n[1,2]\n"text"\n{"type":"complete"}\n'));
		expect(lines).toEqual([
			{ malformed: 'not valid JSON' },
			{ malformed: 'not valid JSON' },
			{ malformed: 'not a JSON object' },
			{ malformed: 'not a JSON object' },
			{ event: { type: 'complete' }, bytes: 19 },
		]);
	});

	it('skips a line longer than the limit without holding it, and reads the next', async () => {
		const long = 'x'.repeat(100);
		const lines = await collect(chunks(`{"a":"${long.slice(0, 40)}`, long.slice(40), `"}\n{"b":1}\n`), 64);
		expect(lines).toEqual([{ malformed: 'longer than 64 bytes' }, { event: { b: 1 }, bytes: 7 }]);
	});

	it('reads a last line without a newline', async () => {
		expect(await collect(chunks('{"a":1}\n{"b":', '2}'))).toEqual([
			{ event: { a: 1 }, bytes: 7 },
			{ event: { b: 2 }, bytes: 7 },
		]);
	});
});

describe('readNdjson with a Base64 field', () => {
	async function* pieces(text: string, size: number): AsyncGenerator<Buffer> {
		const bytes = Buffer.from(text);
		for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
	}

	async function events(text: string, size = 7): Promise<Array<Record<string, unknown>>> {
		const out: Array<Record<string, unknown>> = [];
		for await (const line of readNdjson(pieces(text, size), { base64Field: 'data' })) if ('event' in line) out.push(line.event);
		return out;
	}

	it('decodes the field straight into a Buffer, across slice and chunk boundaries', async () => {
		const audio = Buffer.from(Array.from({ length: 70_001 }, (_, i) => (i * 31) % 256));
		const text = `${JSON.stringify({ type: 'audio_chunk', stream_index: 1, data: audio.toString('base64') })}\n{"type":"complete"}\n`;
		const [chunk, done] = await events(text, 4093);
		expect(Buffer.isBuffer(chunk!.data)).toBe(true);
		expect((chunk!.data as Buffer).equals(audio)).toBe(true);
		expect(chunk).toMatchObject({ type: 'audio_chunk', stream_index: 1 });
		expect(done).toEqual({ type: 'complete' });
	});

	it('leaves lines without the field, and escaped values, to the ordinary parser', async () => {
		const [title, escaped] = await events('{"type":"title","title":"A \\"quoted\\" song"}\n{"type":"audio_chunk","data":"QUJD\\/"}\n');
		expect(title).toEqual({ type: 'title', title: 'A "quoted" song' });
		expect(escaped!.data).toBe('QUJD/');
	});
});
