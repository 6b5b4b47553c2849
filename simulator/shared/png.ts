/**
 * The one PNG encoder of the simulator (no dependency: node:zlib's deflate and crc32) and the
 * picture it draws for generated images: a sky gradient, a sun and two rows of hills, coloured and
 * placed by a seed, so a result opened in n8n's viewer looks like a picture and different seeds
 * look different.
 */
import { crc32, deflateSync } from 'node:zlib';

import { seededRandom } from './chaos';

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function u32(n: number): Buffer {
	const b = Buffer.alloc(4);
	b.writeUInt32BE(n >>> 0);
	return b;
}

function pngChunk(type: string, data: Buffer): Buffer {
	const typed = Buffer.concat([Buffer.from(type, 'ascii'), data]);
	return Buffer.concat([u32(data.length), typed, u32(crc32(typed))]);
}

/** The signature and IHDR of an 8-bit RGB PNG: what sniffers and size checks read. */
export function pngHeader(width: number, height: number): Buffer {
	const ihdr = Buffer.alloc(13);
	ihdr.writeUInt32BE(width, 0);
	ihdr.writeUInt32BE(height, 4);
	ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, deflate, no filter set, no interlace
	return Buffer.concat([PNG_SIGNATURE, pngChunk('IHDR', ihdr)]);
}

export type Rgb = [number, number, number];

const clamp = (value: number) => (value < 0 ? 0 : value > 255 ? 255 : value | 0);
const BLACK: Rgb = [0, 0, 0];
const mix = (a: Rgb, b: Rgb, t: number): Rgb => [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];

/**
 * A `width`×`height` RGB PNG of a landscape: sky from `tint` (or a colour of the seed) at the top
 * to a warm horizon, a sun, far and near hills. Costs a few milliseconds at 512×512; callers that
 * make many keep them (see cloud/media.ts and media/images.ts).
 */
export function picturePng(width: number, height: number, seed = 0, tint?: Rgb): Buffer {
	const next = seededRandom(seed); // the same seed draws the same picture
	const top: Rgb = tint ?? [20 + next() * 60, 30 + next() * 80, 90 + next() * 120];
	const horizon: Rgb = [230 + next() * 25, 120 + next() * 90, 60 + next() * 80];
	const sun: Rgb = [255, 230 + next() * 25, 150 + next() * 60];
	const far: Rgb = mix(top, [70, 60, 90], 0.6);
	const near: Rgb = [25 + next() * 30, 45 + next() * 40, 35 + next() * 30];
	const sunX = width * (0.2 + next() * 0.6);
	const sunY = height * (0.25 + next() * 0.25);
	const sunR = Math.max(1, Math.min(width, height) * (0.08 + next() * 0.06));
	const farPhase = next() * 6.28;
	const nearPhase = next() * 6.28;
	const farLine = new Float64Array(width);
	const nearLine = new Float64Array(width);
	for (let x = 0; x < width; x++) {
		const u = x / Math.max(1, width);
		farLine[x] = height * (0.6 + 0.06 * Math.sin(u * 7 + farPhase) + 0.03 * Math.sin(u * 17 + farPhase * 2));
		nearLine[x] = height * (0.75 + 0.08 * Math.sin(u * 4 + nearPhase) + 0.02 * Math.sin(u * 23 + nearPhase));
	}

	const rowBytes = 1 + width * 3; // each row starts with filter type 0
	const raw = Buffer.alloc(rowBytes * height);
	const put = (at: number, r: number, g: number, b: number) => {
		raw[at] = clamp(r);
		raw[at + 1] = clamp(g);
		raw[at + 2] = clamp(b);
	};
	// `mix` written straight into the row: the same arithmetic, without a colour array per pixel.
	const putMix = (at: number, a: Rgb, b: Rgb, t: number) =>
		put(at, a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t);
	for (let y = 0; y < height; y++) {
		const sky = mix(top, horizon, Math.min(1, y / (height * 0.7)));
		const dy = y - sunY;
		for (let x = 0, at = y * rowBytes + 1; x < width; x++, at += 3) {
			if (y >= nearLine[x]!) {
				putMix(at, near, BLACK, ((y - nearLine[x]!) / height) * 1.5);
			} else if (y >= farLine[x]!) put(at, far[0], far[1], far[2]);
			else {
				const dx = x - sunX;
				const d = Math.sqrt(dx * dx + dy * dy);
				if (d <= sunR) put(at, sun[0], sun[1], sun[2]);
				else if (d <= sunR * 2) putMix(at, sun, sky, (d - sunR) / sunR);
				else put(at, sky[0], sky[1], sky[2]);
			}
		}
	}
	return Buffer.concat([pngHeader(width, height), pngChunk('IDAT', deflateSync(raw)), pngChunk('IEND', Buffer.alloc(0))]);
}
