/**
 * Media proxy: small but real media bytes for generated results (images are drawn by shared/png.ts).
 * Clients that sniff or decode outputs (binary data MIME detection, WAV assembly) must see genuine
 * formats, not placeholder text.
 */
import { PNG_SIGNATURE } from '../shared/png';

function mp4Box(type: string, payload: Buffer): Buffer {
	const head = Buffer.alloc(8);
	head.writeUInt32BE(8 + payload.length, 0);
	head.write(type, 4, 'ascii');
	return Buffer.concat([head, payload]);
}

/** An MP4-like file: a proper `ftyp` box (what MIME sniffers read), a `free` box and an `mdat` box. */
export function makeMp4(seed: string): Buffer {
	const ftyp = mp4Box(
		'ftyp',
		Buffer.concat([Buffer.from('isom', 'ascii'), Buffer.from([0, 0, 2, 0]), Buffer.from('isomiso2avc1mp41', 'ascii')]),
	);
	const mdat = mp4Box('mdat', Buffer.alloc(2048, seed.length % 251));
	return Buffer.concat([ftyp, mp4Box('free', Buffer.alloc(0)), mdat]);
}

/** Width and height of a PNG or baseline/progressive JPEG, or undefined for anything else. */
export function imageDimensions(bytes: Buffer): { width: number; height: number } | undefined {
	if (bytes.length >= 24 && bytes.subarray(0, 8).equals(PNG_SIGNATURE) && bytes.toString('ascii', 12, 16) === 'IHDR') {
		return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
	}
	if (bytes.length > 4 && bytes[0] === 0xff && bytes[1] === 0xd8) return jpegDimensions(bytes);
	return undefined;
}

function jpegDimensions(bytes: Buffer): { width: number; height: number } | undefined {
	let at = 2;
	while (at + 9 < bytes.length) {
		if (bytes[at] !== 0xff) return undefined;
		const marker = bytes[at + 1];
		const length = bytes.readUInt16BE(at + 2);
		// SOF0..SOF15 carry the frame size; C4 (DHT), C8 (JPG) and CC (DAC) share the range but do not.
		if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
			return { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
		}
		at += 2 + length;
	}
	return undefined;
}

export const WAV_HEADER_BYTES = 44;

/** A canonical 44-byte header of a PCM 16-bit mono WAV holding `dataBytes` bytes of samples. */
export function wavHeader(dataBytes: number, sampleRate: number): Buffer {
	const header = Buffer.alloc(WAV_HEADER_BYTES);
	header.write('RIFF', 0, 'ascii');
	header.writeUInt32LE(36 + dataBytes, 4);
	header.write('WAVE', 8, 'ascii');
	header.write('fmt ', 12, 'ascii');
	header.writeUInt32LE(16, 16); // fmt chunk size
	header.writeUInt16LE(1, 20); // PCM
	header.writeUInt16LE(1, 22); // mono
	header.writeUInt32LE(sampleRate, 24);
	header.writeUInt32LE(sampleRate * 2, 28); // byte rate
	header.writeUInt16LE(2, 32); // block align
	header.writeUInt16LE(16, 34); // bits per sample
	header.write('data', 36, 'ascii');
	header.writeUInt32LE(dataBytes, 40);
	return header;
}

/**
 * A WAV file of a sine tone whose bytes are produced on demand by offset, so a stream of any size
 * costs one second of samples in memory. An integer frequency makes one second exactly periodic.
 */
export class ToneWav {
	readonly totalBytes: number;
	readonly dataBytes: number;
	private readonly header: Buffer;
	private readonly period: Buffer;

	constructor(
		totalBytes: number,
		readonly sampleRate: number,
		frequencyHz: number,
	) {
		// Whole 16-bit samples only; at least one sample so the file is never empty.
		this.dataBytes = Math.max(2, (totalBytes - WAV_HEADER_BYTES) & ~1);
		this.totalBytes = WAV_HEADER_BYTES + this.dataBytes;
		this.header = wavHeader(this.dataBytes, sampleRate);
		this.period = Buffer.alloc(sampleRate * 2);
		for (let i = 0; i < sampleRate; i++) {
			const sample = Math.round(Math.sin((2 * Math.PI * frequencyHz * i) / sampleRate) * 0.3 * 32767);
			this.period.writeInt16LE(sample, i * 2);
		}
	}

	get durationSec(): number {
		return this.dataBytes / (this.sampleRate * 2);
	}

	/** Bytes [offset, offset + length) of the file (clipped at its end). */
	read(offset: number, length: number): Buffer {
		const end = Math.min(this.totalBytes, offset + length);
		const out = Buffer.allocUnsafe(Math.max(0, end - offset));
		let pos = offset;
		while (pos < end) {
			if (pos < WAV_HEADER_BYTES) {
				const n = Math.min(end, WAV_HEADER_BYTES) - pos;
				this.header.copy(out, pos - offset, pos, pos + n);
				pos += n;
				continue;
			}
			const inPeriod = (pos - WAV_HEADER_BYTES) % this.period.length;
			const n = Math.min(end - pos, this.period.length - inPeriod);
			this.period.copy(out, pos - offset, inPeriod, inPeriod + n);
			pos += n;
		}
		return out;
	}
}
