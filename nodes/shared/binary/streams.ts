/**
 * Streaming without holding whole files: a byte channel with backpressure (a writer waits while
 * the reader is behind), a way to turn any async source of bytes into the Node Readable that
 * n8n's prepareBinaryData stores chunk by chunk, and an idle limit for a source that goes silent.
 *
 * n8n's community-node scanner forbids importing `node:stream`, so the Readable class is taken from
 * a stream the HTTP helper already handed us (its response body is a Node Readable).
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { pause } from '../waits/pause';

/** The stream type prepareBinaryData accepts, named without importing node:stream. */
export type BinaryStream = Exclude<Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0], Buffer>;

interface ReadableClass {
	from(source: AsyncIterable<Buffer>, options?: { objectMode?: boolean; highWaterMark?: number }): BinaryStream;
}

/** The Readable class behind a Node stream, or undefined when `stream` is not one. */
export function readableClassOf(stream: unknown): ReadableClass | undefined {
	let fallback: ReadableClass | undefined;
	for (
		let proto = stream === null || typeof stream !== 'object' ? null : Object.getPrototypeOf(stream);
		proto;
		proto = Object.getPrototypeOf(proto)
	) {
		const ctor = (proto as { constructor?: unknown }).constructor as (ReadableClass & { name?: string }) | undefined;
		if (typeof ctor?.from !== 'function') continue;
		if (ctor.name === 'Readable') return ctor;
		fallback ??= ctor;
	}
	return fallback;
}

/** A byte Readable fed by `source`, read only as fast as its consumer reads. */
export function readableFrom(template: ReadableClass, source: AsyncIterable<Buffer>): BinaryStream {
	return template.from(source, { objectMode: false, highWaterMark: 64 * 1024 });
}

/** True when `value` can be read with `for await`. */
export function isAsyncIterable(value: unknown): value is AsyncIterable<Buffer> {
	return typeof (value as { [Symbol.asyncIterator]?: unknown } | null)?.[Symbol.asyncIterator] === 'function';
}

/**
 * `head` followed by the rest of `source`: lets a caller look at the first bytes of a stream (to
 * recognise its format) and still hand the whole stream on.
 */
export async function peek(source: AsyncIterable<Buffer>, bytes: number): Promise<{ head: Buffer; rest: AsyncIterable<Buffer> }> {
	const iterator = source[Symbol.asyncIterator]();
	const parts: Buffer[] = [];
	let size = 0;
	let done = false;
	while (size < bytes) {
		const next = await iterator.next();
		if (next.done) {
			done = true;
			break;
		}
		parts.push(next.value);
		size += next.value.length;
	}
	const head = Buffer.concat(parts);
	async function* rest(): AsyncGenerator<Buffer> {
		if (head.length > 0) yield head;
		if (done) return;
		for (;;) {
			const next = await iterator.next();
			if (next.done) return;
			yield next.value;
		}
	}
	return { head, rest: rest() };
}

/**
 * One writer, one reader. `write` resolves once fewer than `highWaterBytes` are queued, so a
 * fast producer (a network stream) is held back by a slow consumer (the disk), and memory stays at
 * about `highWaterBytes` whatever the total size. `fail` ends the reader with an error; `close`
 * (reader gone) makes further writes no-ops so the writer is never stuck.
 */
export class ByteChannel implements AsyncIterable<Buffer> {
	private readonly queue: Buffer[] = [];
	private queued = 0;
	private ended = false;
	private closed = false;
	private error: Error | undefined;
	private wakeReader: (() => void) | undefined;
	private wakeWriter: (() => void) | undefined;
	/** Bytes written so far. */
	bytes = 0;

	constructor(private readonly highWaterBytes = 256 * 1024) {}

	async write(chunk: Buffer): Promise<void> {
		if (this.closed || this.ended || this.error) return;
		this.queue.push(chunk);
		this.queued += chunk.length;
		this.bytes += chunk.length;
		this.wake('reader');
		while (this.queued >= this.highWaterBytes && !this.closed && !this.error) {
			await new Promise<void>((resolve) => (this.wakeWriter = resolve));
		}
	}

	/** No more data: the reader finishes after the queued bytes. */
	end(): void {
		this.ended = true;
		this.wake('reader');
	}

	/** The reader throws `error` (once the queue is drained or at once, as it asks next). */
	fail(error: Error): void {
		this.error ??= error;
		this.queue.length = 0;
		this.queued = 0;
		this.wake('reader');
		this.wake('writer');
	}

	/** The reader has gone away: drop what is queued and stop waiting for it. */
	close(): void {
		this.closed = true;
		this.queue.length = 0;
		this.queued = 0;
		this.wake('writer');
	}

	async *[Symbol.asyncIterator](): AsyncGenerator<Buffer> {
		try {
			for (;;) {
				if (this.error) throw this.error;
				const chunk = this.queue.shift();
				if (chunk) {
					this.queued -= chunk.length;
					if (this.queued < this.highWaterBytes) this.wake('writer');
					yield chunk;
					continue;
				}
				if (this.ended) return;
				await new Promise<void>((resolve) => (this.wakeReader = resolve));
			}
		} finally {
			// However the reader stopped (done, error, destroyed), a waiting writer must carry on.
			if (!this.ended || this.queue.length > 0) this.close();
		}
	}

	private wake(who: 'reader' | 'writer'): void {
		const wake = who === 'reader' ? this.wakeReader : this.wakeWriter;
		if (who === 'reader') this.wakeReader = undefined;
		else this.wakeWriter = undefined;
		wake?.();
	}
}

/** Drops a response body nobody will read (an unwanted redirect or error answer): its connection is closed, nothing more is read. */
export function discardBody(body: unknown): void {
	(body as { destroy?: () => void } | undefined)?.destroy?.();
}

/** Thrown by `withIdleTimeout` when its source sent nothing for `idleMs`. */
export class IdleTimeoutError extends Error {
	constructor(readonly idleMs: number) {
		super(`nothing arrived for ${idleMs} ms`);
		this.name = 'IdleTimeoutError';
	}
}

/** Thrown by `withIdleTimeout` when its source was still sending after `totalMs` in all. */
export class TotalTimeoutError extends Error {
	constructor(readonly totalMs: number) {
		super(`still sending after ${totalMs} ms`);
		this.name = 'TotalTimeoutError';
	}
}

const IDLE: unique symbol = Symbol('idle');
const OVER: unique symbol = Symbol('over');
const CANCELED: unique symbol = Symbol('canceled');

const canceledError = (cancel?: AbortSignal): Error => (cancel?.reason instanceof Error ? cancel.reason : new Error('canceled'));

/**
 * The values of `source` as they arrive, ending with an IdleTimeoutError when none arrives for
 * `idleMs` (a finite number): a peer that holds its connection open and sends nothing would
 * otherwise be waited on for ever. `cancel` (the execution's cancel signal) ends a wait at once,
 * with its reason. After an idle or cancelled wait a read is still pending on the source, and an
 * async iterator cannot be returned while it reads: the caller closes the source by its own means
 * (a response body: by aborting its request, which also closes the connection). `totalMs`, when
 * given, bounds the whole read too (TotalTimeoutError): a peer that never stops sending is not
 * waited on for ever either.
 */
export async function* withIdleTimeout<T>(
	source: AsyncIterable<T>,
	idleMs: number,
	cancel?: AbortSignal,
	totalMs?: number,
): AsyncGenerator<T> {
	const iterator = source[Symbol.asyncIterator]();
	const deadline = totalMs === undefined ? Infinity : Date.now() + totalMs;
	let reading = false;
	try {
		for (;;) {
			if (cancel?.aborted) throw canceledError(cancel);
			const left = deadline - Date.now();
			if (left <= 0) throw new TotalTimeoutError(totalMs!);
			const waitMs = Math.min(idleMs, left);
			// One timer per read, stopped as soon as the read settles or the execution is cancelled.
			const timer = new AbortController();
			const stop = () => timer.abort();
			cancel?.addEventListener('abort', stop, { once: true });
			reading = true;
			let next: IteratorResult<T> | typeof IDLE | typeof OVER | typeof CANCELED;
			try {
				next = await Promise.race([
					iterator.next(),
					pause(waitMs, timer.signal).then(
						(): typeof IDLE | typeof OVER => (waitMs < idleMs ? OVER : IDLE),
						(): typeof CANCELED => CANCELED,
					),
				]);
			} finally {
				timer.abort();
				cancel?.removeEventListener('abort', stop);
			}
			if (next === IDLE) throw new IdleTimeoutError(idleMs);
			if (next === OVER) throw new TotalTimeoutError(totalMs!);
			if (next === CANCELED) throw canceledError(cancel);
			reading = false;
			if (next.done) return;
			yield next.value;
		}
	} finally {
		// Stopped between reads (the consumer had enough): let the source close itself.
		if (!reading) await iterator.return?.();
	}
}
