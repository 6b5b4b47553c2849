import {
	declaredFileBytes,
	extensionFor,
	imageDimensions,
	mimeTypeForExtension,
	sniffMimeType,
} from '../../../../nodes/shared/binary/file-types';
import { picturePng } from '../../../../simulator/shared/png';
import { makeMp4, wavHeader } from '../../../../simulator/media/formats';

const bytes = (...values: number[]) => Buffer.from(values);
const text = (value: string, pad = 16) => Buffer.concat([Buffer.from(value, 'latin1'), Buffer.alloc(pad)]);

describe('sniffMimeType', () => {
	it.each([
		['RIFF/WAVE', wavHeader(100, 16000), 'audio/wav'],
		['ID3 tag', text('ID3\x04\x00'), 'audio/mpeg'],
		['MPEG frame sync (layer III)', bytes(0xff, 0xfb, 0x90, 0x64), 'audio/mpeg'],
		['MPEG-2 frame sync', bytes(0xff, 0xf3, 0x40, 0xc4), 'audio/mpeg'],
		['ADTS AAC', bytes(0xff, 0xf1, 0x50, 0x80), 'audio/aac'],
		['Ogg', text('OggS'), 'audio/ogg'],
		['FLAC', text('fLaC'), 'audio/flac'],
		['M4A', Buffer.concat([bytes(0, 0, 0, 0x20), Buffer.from('ftypM4A ')]), 'audio/mp4'],
		['MP4', makeMp4('x'), 'video/mp4'],
		['PNG', picturePng(2, 2), 'image/png'],
		['JPEG', bytes(0xff, 0xd8, 0xff, 0xe0), 'image/jpeg'],
		['GIF', text('GIF89a'), 'image/gif'],
		['WebP', Buffer.concat([Buffer.from('RIFF'), bytes(0, 0, 0, 0), Buffer.from('WEBPVP8 ')]), 'image/webp'],
	])('%s → %s', (_name, head, mime) => {
		expect(sniffMimeType(head)).toBe(mime);
	});

	it('answers undefined for unknown or too-short data', () => {
		expect(sniffMimeType(Buffer.from('hello world, plain text'))).toBeUndefined();
		expect(sniffMimeType(Buffer.alloc(0))).toBeUndefined();
		expect(sniffMimeType(Buffer.from('RI'))).toBeUndefined();
	});
});

describe('extensions', () => {
	it('maps MIME types and extensions both ways', () => {
		expect(extensionFor('audio/wav')).toBe('wav');
		expect(extensionFor('audio/mpeg; charset=binary')).toBe('mp3');
		expect(extensionFor('application/x-unknown')).toBeUndefined();
		expect(mimeTypeForExtension('.JPEG')).toBe('image/jpeg');
		expect(mimeTypeForExtension('mp4')).toBe('video/mp4');
		expect(mimeTypeForExtension('xyz')).toBeUndefined();
	});
});

describe('imageDimensions', () => {
	it('reads PNG, GIF and JPEG sizes', () => {
		expect(imageDimensions(picturePng(31, 7))).toEqual({ width: 31, height: 7 });
		const gif = text('GIF89a', 0);
		expect(imageDimensions(Buffer.concat([gif, bytes(0x40, 0x01, 0xf0, 0x00)]))).toEqual({ width: 320, height: 240 });
		// SOI, an APP0 segment, then SOF0 with height 600 and width 800.
		const jpeg = bytes(0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x02, 0x58, 0x03, 0x20, 0x03);
		expect(imageDimensions(jpeg)).toEqual({ width: 800, height: 600 });
	});

	it('answers undefined for what it cannot read', () => {
		expect(imageDimensions(Buffer.from('not an image at all'))).toBeUndefined();
		expect(imageDimensions(bytes(0xff, 0xd8, 0x00))).toBeUndefined();
	});
});

describe('declaredFileBytes', () => {
	it('reads the length a RIFF header declares (the whole file, header included)', () => {
		expect(declaredFileBytes(wavHeader(100, 16000))).toBe(144);
		expect(declaredFileBytes(wavHeader(100, 16000).subarray(0, 8))).toBe(144);
	});

	it('answers undefined where the format does not say, the header is short, or a live writer left it open', () => {
		const open = (size: number) => {
			const header = wavHeader(100, 16000);
			header.writeUInt32LE(size, 4);
			return header;
		};
		expect(declaredFileBytes(text('ID3\x04\x00'))).toBeUndefined();
		expect(declaredFileBytes(wavHeader(100, 16000).subarray(0, 7))).toBeUndefined();
		expect(declaredFileBytes(open(0))).toBeUndefined();
		expect(declaredFileBytes(open(0xffffffff))).toBeUndefined();
	});
});
