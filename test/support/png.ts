/**
 * Reads a PNG as an image viewer would (every chunk's CRC, the header, the inflated pixel rows),
 * for tests that check a generated image is a real picture and not a placeholder.
 */
import { crc32, inflateSync } from 'node:zlib';

export interface DecodedPng {
	width: number;
	height: number;
	/** How many different RGB colours its pixels have. */
	colours: number;
}

/** Decodes an 8-bit RGB PNG without filters (what the simulator writes); throws on anything broken. */
export function decodePng(bytes: Buffer): DecodedPng {
	if (!bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) throw new Error('no PNG signature');
	let at = 8;
	let width = 0;
	let height = 0;
	const idat: Buffer[] = [];
	for (;;) {
		const length = bytes.readUInt32BE(at);
		const typed = bytes.subarray(at + 4, at + 8 + length);
		if (crc32(typed) !== bytes.readUInt32BE(at + 8 + length)) throw new Error(`bad CRC in ${typed.toString('ascii', 0, 4)}`);
		const type = typed.toString('ascii', 0, 4);
		const data = typed.subarray(4);
		if (type === 'IHDR') {
			width = data.readUInt32BE(0);
			height = data.readUInt32BE(4);
			if (data[8] !== 8 || data[9] !== 2) throw new Error('not 8-bit RGB');
		} else if (type === 'IDAT') idat.push(data);
		at += 12 + length;
		if (type === 'IEND') break;
	}
	const raw = inflateSync(Buffer.concat(idat));
	const rowBytes = 1 + width * 3;
	if (raw.length !== rowBytes * height) throw new Error(`pixel data of ${raw.length} bytes for ${width}×${height}`);
	const colours = new Set<number>();
	for (let y = 0; y < height; y++) {
		if (raw[y * rowBytes] !== 0) throw new Error(`row ${y} uses filter ${raw[y * rowBytes]}`);
		for (let x = 0; x < width; x++) colours.add(raw.readUIntBE(y * rowBytes + 1 + x * 3, 3));
	}
	return { width, height, colours: colours.size };
}
