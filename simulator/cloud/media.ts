/**
 * Cloud: the bytes of simulated output files and previews. Every file is a small but valid
 * instance of its format (clients may sniff magic numbers or hand the file to a decoder; images
 * are pictures a person can look at), and
 * every format also has a header-only variant for huge synthetic files that are streamed, never
 * held in memory.
 */
import { pngHeader, picturePng } from '../shared/png';
import type { StoredBody } from '../shared/storage';
import { syntheticStream } from '../shared/storage';

export type MediaKind = 'png' | 'jpeg' | 'wav' | 'mp4' | 'gif';

export const CONTENT_TYPES: Record<MediaKind, string> = {
	png: 'image/png',
	jpeg: 'image/jpeg',
	wav: 'audio/wav',
	mp4: 'video/mp4',
	gif: 'image/gif',
};

export const EXTENSIONS: Record<MediaKind, string> = { png: 'png', jpeg: 'jpg', wav: 'wav', mp4: 'mp4', gif: 'gif' };

function u32(n: number): Buffer {
	const b = Buffer.alloc(4);
	b.writeUInt32BE(n >>> 0);
	return b;
}

/** How many different pictures job outputs cycle through: each is drawn once and kept (about 50 KB). */
const PICTURES = 16;
const pictures = new Map<number, Buffer>();

/**
 * A 512×512 PNG picture (see shared/png.ts) chosen by `seed`, so files of neighbouring jobs differ; each
 * variant is drawn once (about 15 ms), since a chaos run makes thousands of outputs.
 */
export function makePng(seed = 0): Buffer {
	const variant = ((seed % PICTURES) + PICTURES) % PICTURES;
	let png = pictures.get(variant);
	if (!png) {
		png = picturePng(512, 512, variant);
		pictures.set(variant, png);
	}
	return png;
}

function jpegSegment(marker: number, payload: Buffer): Buffer {
	const head = Buffer.alloc(4);
	head.writeUInt16BE(0xff00 | marker, 0);
	head.writeUInt16BE(payload.length + 2, 2);
	return Buffer.concat([head, payload]);
}

/**
 * A baseline JPEG of one 8x8 grey block. Quantisation is 16 everywhere and each Huffman table
 * holds a single 1-bit code, so the whole scan is one byte: DC code, the 6 magnitude bits of
 * 36 (36 × 16 / 8 + 128 = grey 200), and the AC end-of-block code.
 */
export function makeJpeg(): Buffer {
	const jfif = Buffer.from([0x4a, 0x46, 0x49, 0x46, 0x00, 1, 1, 0, 0, 1, 0, 1, 0, 0]);
	const dqt = Buffer.concat([Buffer.from([0x00]), Buffer.alloc(64, 16)]);
	const sof = Buffer.from([8, 0, 8, 0, 8, 1, 1, 0x11, 0]);
	const dcTable = Buffer.concat([Buffer.from([0x00, 1]), Buffer.alloc(15), Buffer.from([6])]); // symbol: category 6
	const acTable = Buffer.concat([Buffer.from([0x10, 1]), Buffer.alloc(15), Buffer.from([0x00])]); // symbol: EOB
	const sos = Buffer.from([1, 1, 0x00, 0, 63, 0]);
	return Buffer.concat([
		Buffer.from([0xff, 0xd8]),
		jpegSegment(0xe0, jfif),
		jpegSegment(0xdb, dqt),
		jpegSegment(0xc0, sof),
		jpegSegment(0xc4, dcTable),
		jpegSegment(0xc4, acTable),
		jpegSegment(0xda, sos),
		Buffer.from([0x48, 0xff, 0xd9]), // scan bits 0 100100 0, then EOI
	]);
}

/** A RIFF/WAVE header for 16-bit mono PCM with `dataBytes` of samples following it. */
function wavHeader(dataBytes: number, sampleRate = 8000): Buffer {
	const h = Buffer.alloc(44);
	h.write('RIFF', 0, 'ascii');
	h.writeUInt32LE(36 + dataBytes, 4);
	h.write('WAVEfmt ', 8, 'ascii');
	h.writeUInt32LE(16, 16);
	h.writeUInt16LE(1, 20); // PCM
	h.writeUInt16LE(1, 22); // mono
	h.writeUInt32LE(sampleRate, 24);
	h.writeUInt32LE(sampleRate * 2, 28);
	h.writeUInt16LE(2, 32);
	h.writeUInt16LE(16, 34);
	h.write('data', 36, 'ascii');
	h.writeUInt32LE(dataBytes, 40);
	return h;
}

/** 0.1 s of a 440 Hz tone. */
export function makeWav(): Buffer {
	const samples = 800;
	const data = Buffer.alloc(samples * 2);
	for (let i = 0; i < samples; i++) data.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 8000)), i * 2);
	return Buffer.concat([wavHeader(data.length), data]);
}

function mp4Box(type: string, payload: Buffer): Buffer {
	return Buffer.concat([u32(payload.length + 8), Buffer.from(type, 'ascii'), payload]);
}

const FTYP = mp4Box('ftyp', Buffer.concat([Buffer.from('isom', 'ascii'), u32(0x200), Buffer.from('isomiso2avc1mp41', 'ascii')]));

/** MP4-like bytes: an ftyp box (what sniffers check), a free box and a small mdat. */
export function makeMp4(seed = 0): Buffer {
	return Buffer.concat([FTYP, mp4Box('free', Buffer.alloc(0)), mp4Box('mdat', Buffer.alloc(256, seed & 0xff))]);
}

/** A 1x1 GIF89a: two-colour table, one LZW-coded pixel (clear, 0, end as 3-bit codes). */
export function makeGif(): Buffer {
	return Buffer.concat([
		Buffer.from('GIF89a', 'ascii'),
		Buffer.from([1, 0, 1, 0, 0x80, 0, 0]), // 1x1, global table of 2 colours
		Buffer.from([0x20, 0x40, 0x80, 0xff, 0xff, 0xff]),
		Buffer.from([0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0]), // image descriptor
		Buffer.from([2, 2, 0x44, 0x01, 0]), // LZW min code size 2, one sub-block
		Buffer.from([0x3b]),
	]);
}

/** A small valid file of `kind`. */
export function makeMedia(kind: MediaKind, seed = 0): Buffer {
	switch (kind) {
		case 'png':
			return makePng(seed);
		case 'jpeg':
			return makeJpeg();
		case 'wav':
			return makeWav();
		case 'mp4':
			return makeMp4(seed);
		case 'gif':
			return makeGif();
	}
}

/** The leading bytes a huge synthetic file of `kind` starts with (its magic header). */
function syntheticHeader(kind: MediaKind, size: number): Buffer {
	switch (kind) {
		case 'png':
			return pngHeader(4096, 4096);
		case 'jpeg':
			return Buffer.from([0xff, 0xd8, 0xff, 0xe0]);
		case 'wav':
			return wavHeader(Math.max(0, size - 44));
		case 'mp4':
			return Buffer.concat([FTYP, u32(Math.max(8, size - FTYP.length)), Buffer.from('mdat', 'ascii')]);
		case 'gif':
			return Buffer.from('GIF89a', 'ascii');
	}
}

/** A stored body: the small real file, or a `size`-byte stream made on demand. */
export function mediaBody(kind: MediaKind, seed: number, size: number | undefined): StoredBody {
	if (size === undefined) return makeMedia(kind, seed);
	return { size, stream: () => syntheticStream(size, syntheticHeader(kind, size)) };
}
