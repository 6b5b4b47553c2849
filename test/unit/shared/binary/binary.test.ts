/**
 * The bounds of a file download's body (`boundedTransfer`): the largest file, counted in bytes over
 * a synthetic body that hands over one buffer again and again (nothing of it is kept).
 */
import { boundedTransfer, MAX_DOWNLOAD_BYTES } from '../../../../nodes/shared/binary/binary';

const CHUNK = Buffer.alloc(64 * 1024 ** 2);

/** `count` chunks of 64 MiB, the same buffer each time. */
async function* chunks(count: number): AsyncGenerator<Buffer> {
	for (let index = 0; index < count; index++) yield CHUNK;
}

/** How many bytes got through, and the error that ended the transfer (if any). */
async function passed(count: number): Promise<{ bytes: number; error?: string }> {
	let bytes = 0;
	try {
		// A grace far beyond the test: the pace is not judged here, only the size.
		for await (const chunk of boundedTransfer(chunks(count), 3_600_000)) bytes += chunk.length;
		return { bytes };
	} catch (error) {
		return { bytes, error: (error as Error).message };
	}
}

describe('boundedTransfer: a download is at most 8 GiB', () => {
	it('passes a file of exactly 8 GiB whole', async () => {
		expect(MAX_DOWNLOAD_BYTES).toBe(8 * 1024 ** 3);
		expect(await passed(128)).toEqual({ bytes: MAX_DOWNLOAD_BYTES });
	});

	it('ends a body that goes past 8 GiB before the part past it is passed on, saying why', async () => {
		expect(await passed(1000)).toEqual({ bytes: MAX_DOWNLOAD_BYTES, error: 'the file is larger than 8 GiB' });
	});
});
