/** File name extensions and content types, for uploads (both flavours) and the self-hosted /view. */
import { extname } from 'node:path';

/** Image types an upload may carry, by extension. */
export const IMAGE_TYPE_BY_EXTENSION: Readonly<Record<string, string>> = {
	'.png': 'image/png',
	'.jpg': 'image/jpeg',
	'.jpeg': 'image/jpeg',
	'.webp': 'image/webp',
	'.gif': 'image/gif',
};

export const EXTENSION_BY_IMAGE_TYPE: Readonly<Record<string, string>> = {
	'image/png': '.png',
	'image/jpeg': '.jpg',
	'image/webp': '.webp',
	'image/gif': '.gif',
};

const MEDIA_TYPE_BY_EXTENSION: Readonly<Record<string, string>> = {
	...IMAGE_TYPE_BY_EXTENSION,
	'.mp4': 'video/mp4',
	'.webm': 'video/webm',
	'.wav': 'audio/wav',
	'.mp3': 'audio/mpeg',
	'.flac': 'audio/flac',
	'.ogg': 'audio/ogg',
	'.json': 'application/json',
	'.txt': 'text/plain',
};

/**
 * The content type a file is served with, guessed from its name as the self-hosted server does;
 * unknown names (and page or script types, which it forces to download) are octet-stream.
 */
export function contentTypeOfName(filename: string): string {
	return MEDIA_TYPE_BY_EXTENSION[extname(filename).toLowerCase()] ?? 'application/octet-stream';
}
