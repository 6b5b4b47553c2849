/**
 * v2: the live event streams (GET /api/v2/jobs/{id}/events, Server-Sent Events). On connect a
 * stream gets the job's snapshot (a `status` event, the latest `progress`, the latest `preview`),
 * then every change as it happens, and ends after the terminal `status` event. Frames carry no
 * `id` (no replay). Streams are counted per account for the too_many_streams limit.
 */
import type { ServerResponse } from 'node:http';

import { isFinished, type JobEvent, type V2Job, type V2JobBook } from './jobs';

interface Stream {
	job: V2Job;
	res: ServerResponse;
	/** Events written so far, and after how many the v2DropStream fault cuts the connection. */
	sent: number;
	dropAfter?: number;
}

/** How an event's data is written: the job object for `status`, the Output object for `output`. */
export type EventData = (e: JobEvent) => unknown;

export class EventStreams {
	private readonly streams = new Set<Stream>();

	constructor(
		book: V2JobBook,
		private readonly dataOf: EventData,
	) {
		book.listen((e) => {
			for (const stream of [...this.streams]) if (stream.job === e.job) this.write(stream, e);
		});
	}

	/** Streams open now, of every account. */
	count(): number {
		return this.streams.size;
	}

	/** Streams the account has open now. */
	openFor(accountId: string): number {
		return [...this.streams].filter((s) => s.job.accountId === accountId).length;
	}

	/** Answers 200 and keeps the response as the job's stream, snapshot first. */
	open(res: ServerResponse, job: V2Job, dropAfter?: number): void {
		res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
		const stream: Stream = { job, res, sent: 0, dropAfter };
		this.streams.add(stream);
		res.on('close', () => this.streams.delete(stream));
		this.write(stream, { event: 'status', job, data: job });
		if (job.progress && this.streams.has(stream)) this.write(stream, { event: 'progress', job, data: job.progress });
		if (job.preview && this.streams.has(stream)) this.write(stream, { event: 'preview', job, data: job.preview });
	}

	/** Ends every stream (reset, close). */
	closeAll(): void {
		for (const stream of this.streams) stream.res.destroy();
		this.streams.clear();
	}

	private write(stream: Stream, e: JobEvent): void {
		if (!this.streams.has(stream)) return;
		const frame = `event: ${e.event}\ndata: ${JSON.stringify(this.dataOf(e))}\n\n`;
		stream.sent++;
		if (e.event === 'status' && isFinished(e.job)) {
			this.streams.delete(stream);
			stream.res.end(frame);
		} else if (stream.dropAfter !== undefined && stream.sent >= stream.dropAfter) {
			// Cut once this frame is out: the connection ends without the end of the stream.
			this.streams.delete(stream);
			stream.res.write(frame, () => stream.res.destroy());
		} else stream.res.write(frame);
	}
}
