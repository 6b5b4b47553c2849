/**
 * The v2 event stream read line by line (`v2-jobs/sse-frames.ts`): frames split anywhere across
 * chunks, comments and CRLF, several data lines; a frame past the bound skipped without being held
 * and reported; data that is not a JSON object reported, never believed.
 */
import { readSseFrames, type SseFrame } from '../../../../../nodes/HostCloud/helpers/v2-jobs/sse-frames';

async function framesOf(chunks: Array<string | Buffer>, maxBytes?: number): Promise<SseFrame[]> {
	const frames: SseFrame[] = [];
	async function* source() {
		for (const chunk of chunks) yield typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
	}
	for await (const frame of readSseFrames(source(), maxBytes)) frames.push(frame);
	return frames;
}

test('frames split across chunks at any byte are read whole, in order', async () => {
	const text =
		'event: status\ndata: {"status":"queued","queue_position":2}\n\n: keep-alive\n\nevent: progress\r\ndata: {"value":0.5,\r\ndata: "nodes_done":1,"nodes_total":2}\r\n\r\n';
	const bytes = Buffer.from(text);
	for (const cut of [1, 7, 20, 61]) {
		const frames = await framesOf([bytes.subarray(0, cut), bytes.subarray(cut)]);
		expect(frames).toEqual([
			{ event: 'status', data: { status: 'queued', queue_position: 2 } },
			{ event: 'progress', data: { value: 0.5, nodes_done: 1, nodes_total: 2 } },
		]);
	}
});

test('a frame longer than the bound is reported, and the frames after it are read', async () => {
	const big = `event: preview\ndata: {"data_base64":"${'A'.repeat(5000)}"}\n\n`;
	const frames = await framesOf([big.slice(0, 1000), big.slice(1000), 'event: status\ndata: {"status":"succeeded"}\n\n'], 1024);
	expect(frames).toEqual([{ malformed: 'longer than 1024 bytes' }, { event: 'status', data: { status: 'succeeded' } }]);
});

test('data that is not a JSON object is reported as malformed', async () => {
	const frames = await framesOf(['event: status\ndata: [1,2]\n\nevent: status\ndata: {"status":\n\ndata: "x"\n\n']);
	expect(frames).toEqual([
		{ malformed: 'its data is not a JSON object' },
		{ malformed: 'its data is not valid JSON' },
		{ malformed: 'its data is not a JSON object' },
	]);
});

test('an unfinished frame at the end of the stream is not a frame', async () => {
	expect(await framesOf(['event: status\ndata: {"status":"succeeded"}\n'])).toEqual([]);
});
