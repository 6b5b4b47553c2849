import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

import { ByteChannel, peek, readableClassOf, readableFrom } from '../../nodes/shared/streams';

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
