/**
 * What a file is, read from its first bytes: the service's media links and audio streams do not
 * always say, and n8n shows and saves binary data by its MIME type and file extension.
 */

/** Bytes needed to recognise every format below. */
export const SNIFF_BYTES = 16;

const startsWith = (bytes: Buffer, signature: number[], at = 0): boolean =>
	bytes.length >= at + signature.length && signature.every((byte, index) => bytes[at + index] === byte);

const ascii = (bytes: Buffer, from: number, to: number): string => (bytes.length >= to ? bytes.toString('latin1', from, to) : '');

/**
 * The length of the whole file as its header declares it, from its first 8 bytes: RIFF files (WAV,
 * AVI, WebP) say it. Undefined when the format does not say, or when the writer left the field open
 * (0 or 0xFFFFFFFF, as a live stream whose length is not known yet does).
 */
export function declaredFileBytes(head: Buffer): number | undefined {
	if (ascii(head, 0, 4) !== 'RIFF' || head.length < 8) return undefined;
	const size = head.readUInt32LE(4);
	return size === 0 || size === 0xffffffff ? undefined : size + 8;
}

/** The MIME type of a file from its first bytes, or undefined when the format is not recognised. */
export function sniffMimeType(head: Buffer): string | undefined {
	if (ascii(head, 0, 4) === 'RIFF') {
		const form = ascii(head, 8, 12);
		if (form === 'WAVE') return 'audio/wav';
		if (form === 'WEBP') return 'image/webp';
		if (form === 'AVI ') return 'video/x-msvideo';
	}
	if (ascii(head, 0, 3) === 'ID3') return 'audio/mpeg';
	if (ascii(head, 0, 4) === 'OggS') return 'audio/ogg';
	if (ascii(head, 0, 4) === 'fLaC') return 'audio/flac';
	if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
	if (startsWith(head, [0xff, 0xd8, 0xff])) return 'image/jpeg';
	if (ascii(head, 0, 4) === 'GIF8') return 'image/gif';
	if (ascii(head, 4, 8) === 'ftyp') {
		const brand = ascii(head, 8, 12);
		if (brand.startsWith('M4A') || brand.startsWith('M4B')) return 'audio/mp4';
		if (brand === 'qt  ') return 'video/quicktime';
		return 'video/mp4';
	}
	if (startsWith(head, [0x1a, 0x45, 0xdf, 0xa3])) return 'video/webm';
	// ADTS AAC: sync word with layer bits 00; MPEG audio: sync word with a non-zero layer.
	if (head.length >= 2 && head[0] === 0xff && (head[1]! & 0xf6) === 0xf0) return 'audio/aac';
	if (head.length >= 2 && head[0] === 0xff && (head[1]! & 0xe0) === 0xe0 && (head[1]! & 0x06) !== 0) return 'audio/mpeg';
	return undefined;
}

const EXTENSIONS: Record<string, string> = {
	'audio/wav': 'wav',
	'audio/x-wav': 'wav',
	'audio/wave': 'wav',
	'audio/mpeg': 'mp3',
	'audio/ogg': 'ogg',
	'audio/flac': 'flac',
	'audio/aac': 'aac',
	'audio/mp4': 'm4a',
	'image/png': 'png',
	'image/jpeg': 'jpg',
	'image/gif': 'gif',
	'image/webp': 'webp',
	'video/mp4': 'mp4',
	'video/quicktime': 'mov',
	'video/webm': 'webm',
	'video/x-msvideo': 'avi',
};

/** The usual file extension of a MIME type (no dot), or undefined. */
export function extensionFor(mimeType: string): string | undefined {
	return EXTENSIONS[mimeType.split(';')[0]!.trim().toLowerCase()];
}

/** The MIME type a file extension usually means, or undefined. */
export function mimeTypeForExtension(extension: string): string | undefined {
	const wanted = extension.replace(/^\./, '').toLowerCase();
	if (wanted === 'jpeg') return 'image/jpeg';
	return Object.entries(EXTENSIONS).find(([, ext]) => ext === wanted)?.[0];
}

/** Width and height of a PNG, JPEG, GIF or WebP image, or undefined when they cannot be read. */
export function imageDimensions(bytes: Buffer): { width: number; height: number } | undefined {
	if (sniffMimeType(bytes) === 'image/png' && bytes.length >= 24 && ascii(bytes, 12, 16) === 'IHDR') {
		return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
	}
	if (ascii(bytes, 0, 4) === 'GIF8' && bytes.length >= 10) return { width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) };
	if (startsWith(bytes, [0xff, 0xd8])) return jpegDimensions(bytes);
	if (ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WEBP') return webpDimensions(bytes);
	return undefined;
}

function jpegDimensions(bytes: Buffer): { width: number; height: number } | undefined {
	let at = 2;
	while (at + 9 < bytes.length) {
		if (bytes[at] !== 0xff) return undefined;
		const marker = bytes[at + 1]!;
		// Fill bytes and markers without a length.
		if (marker === 0xff) {
			at += 1;
			continue;
		}
		if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7)) {
			at += 2;
			continue;
		}
		const length = bytes.readUInt16BE(at + 2);
		// SOF0..SOF15 carry the frame size; C4 (DHT), C8 (JPG) and CC (DAC) share the range but do not.
		if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
			return { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
		}
		at += 2 + length;
	}
	return undefined;
}

function webpDimensions(bytes: Buffer): { width: number; height: number } | undefined {
	const chunk = ascii(bytes, 12, 16);
	if (chunk === 'VP8X' && bytes.length >= 30) {
		return { width: 1 + bytes.readUIntLE(24, 3), height: 1 + bytes.readUIntLE(27, 3) };
	}
	if (chunk === 'VP8 ' && bytes.length >= 30) {
		return { width: bytes.readUInt16LE(26) & 0x3fff, height: bytes.readUInt16LE(28) & 0x3fff };
	}
	if (chunk === 'VP8L' && bytes.length >= 25) {
		const bits = bytes.readUInt32LE(21);
		return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >> 14) & 0x3fff) };
	}
	return undefined;
}
