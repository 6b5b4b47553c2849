import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import {
	ByteChannel,
	IdleTimeoutError,
	peek,
	readableClassOf,
	readableFrom,
	TotalTimeoutError,
	withIdleTimeout,
} from '../../../../nodes/shared/binary/streams';

async function* from(...parts: string[]): AsyncGenerator<Buffer> {
	for (const part of parts) yield Buffer.from(part);
}

async function drain(source: AsyncIterable<Buffer>): Promise<string> {
	let text = '';
	for await (const chunk of source) text += chunk.toString();
	return text;
}

describe('readableClassOf / readableFrom', () => {
	it('finds the Readable class behind a Node stream and builds byte streams with it', async () => {
		const Class = readableClassOf(Readable.from(['x']));
		expect(Class).toBe(Readable);
		const stream = readableFrom(Class!, from('ab', 'cd'));
		expect(stream).toBeInstanceOf(Readable);
		expect(await drain(stream as AsyncIterable<Buffer>)).toBe('abcd');
	});

	it('answers undefined for things that are not streams', () => {
		expect(readableClassOf({})).toBeUndefined();
		expect(readableClassOf(null)).toBeUndefined();
		expect(readableClassOf('text')).toBeUndefined();
	});
});

describe('peek', () => {
	it('gives the first bytes and still the whole stream', async () => {
		const { head, rest } = await peek(from('ab', 'cd', 'ef'), 3);
		expect(head.toString()).toBe('abcd');
		expect(await drain(rest)).toBe('abcdef');
	});

	it('copes with a stream shorter than asked', async () => {
		const { head, rest } = await peek(from('a'), 16);
		expect(head.toString()).toBe('a');
		expect(await drain(rest)).toBe('a');
	});
});

describe('ByteChannel', () => {
	it('holds the writer back while the reader is behind (memory stays at the high-water mark)', async () => {
		const channel = new ByteChannel(10);
		let written = 0;
		const writer = (async () => {
			for (let i = 0; i < 20; i++) {
				await channel.write(Buffer.alloc(4, i));
				written++;
			}
			channel.end();
		})();
		await new Promise((resolve) => setImmediate(resolve));
		// Nothing read yet: the writer stopped once 10 bytes or more were queued.
		expect(written).toBeLessThanOrEqual(3);
		const received = await drain(channel);
		await writer;
		expect(written).toBe(20);
		expect(received.length).toBe(80);
		expect(channel.bytes).toBe(80);
	});

	it('feeds a real stream consumer through readableFrom, in order', async () => {
		const channel = new ByteChannel(8);
		const parts: Buffer[] = [];
		const sink = new Writable({
			highWaterMark: 4,
			write(chunk: Buffer, _encoding, done) {
				parts.push(chunk);
				setTimeout(done, 1);
			},
		});
		const piping = pipeline(readableFrom(Readable, channel) as Readable, sink);
		for (let i = 0; i < 50; i++) await channel.write(Buffer.from(String(i % 10)));
		channel.end();
		await piping;
		expect(Buffer.concat(parts).toString()).toBe('0123456789'.repeat(5));
	});

	it('fail() ends the reader with the error and releases the writer', async () => {
		const channel = new ByteChannel(4);
		const reading = drain(channel);
		const writing = channel.write(Buffer.alloc(8));
		channel.fail(new Error('stopped'));
		await expect(reading).rejects.toThrow('stopped');
		await expect(writing).resolves.toBeUndefined();
		await expect(channel.write(Buffer.alloc(1))).resolves.toBeUndefined();
	});

	it('a reader that stops early never leaves the writer stuck', async () => {
		const channel = new ByteChannel(4);
		const iterator = channel[Symbol.asyncIterator]();
		const writing = channel.write(Buffer.alloc(16));
		await iterator.next();
		await iterator.return?.(undefined);
		await expect(writing).resolves.toBeUndefined();
		await expect(channel.write(Buffer.alloc(16))).resolves.toBeUndefined();
	});
});

describe('withIdleTimeout', () => {
	/** A source that yields `parts`, then waits for ever (a peer holding its connection open), noting whether it was returned. */
	function stalling(...parts: string[]): AsyncIterable<Buffer> & { returned: boolean } {
		const source = {
			returned: false,
			[Symbol.asyncIterator]: () => {
				let at = 0;
				return {
					next: async (): Promise<IteratorResult<Buffer>> =>
						at < parts.length ? { done: false, value: Buffer.from(parts[at++]!) } : await new Promise<never>(() => undefined),
					return: async (): Promise<IteratorResult<Buffer>> => {
						source.returned = true;
						return { done: true, value: undefined };
					},
				};
			},
		};
		return source;
	}

	it('passes every value of a source that keeps sending, and ends with it', async () => {
		expect(await drain(withIdleTimeout(from('ab', 'cd'), 1000))).toBe('abcd');
	});

	it('ends with an IdleTimeoutError when nothing arrives for the limit, keeping what came before', async () => {
		const seen: string[] = [];
		const reading = (async () => {
			for await (const chunk of withIdleTimeout(stalling('a', 'b'), 50)) seen.push(chunk.toString());
		})();
		await expect(reading).rejects.toThrow(IdleTimeoutError);
		await expect(reading).rejects.toMatchObject({ idleMs: 50 });
		expect(seen).toEqual(['a', 'b']);
	});

	it('the cancel signal ends a wait at once, with its reason', async () => {
		const cancel = new AbortController();
		const reading = drain(withIdleTimeout(stalling('a'), 60_000, cancel.signal));
		setTimeout(() => cancel.abort(new Error('stopped by hand')), 20);
		await expect(reading).rejects.toThrow('stopped by hand');
	});

	it('ends with a TotalTimeoutError when a source never stops sending, however lively, keeping what came before', async () => {
		/** A value every 5 ms, for ever. */
		const endless: AsyncIterable<Buffer> = {
			[Symbol.asyncIterator]: () => ({
				next: async (): Promise<IteratorResult<Buffer>> => {
					await new Promise((resolve) => setTimeout(resolve, 5));
					return { done: false, value: Buffer.from('x') };
				},
			}),
		};
		let seen = 0;
		const reading = (async () => {
			for await (const _chunk of withIdleTimeout(endless, 1000, undefined, 80)) seen++;
		})();
		await expect(reading).rejects.toThrow(TotalTimeoutError);
		await expect(reading).rejects.toMatchObject({ totalMs: 80 });
		expect(seen).toBeGreaterThan(0);
	});

	it('the silence limit still applies under a total limit, and a source that ends in time is read whole', async () => {
		await expect(drain(withIdleTimeout(stalling('a'), 30, undefined, 60_000))).rejects.toThrow(IdleTimeoutError);
		expect(await drain(withIdleTimeout(from('ab', 'cd'), 1000, undefined, 60_000))).toBe('abcd');
	});

	it('a consumer that stops between reads returns the source (so it can close itself)', async () => {
		const source = stalling('a', 'b');
		for await (const chunk of withIdleTimeout(source, 1000)) if (chunk.toString() === 'a') break;
		expect(source.returned).toBe(true);
	});
});
