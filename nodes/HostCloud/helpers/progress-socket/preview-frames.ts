/**
 * Binary WebSocket frames of the cloud (all integers big-endian, bytes 0-3 the frame type):
 * - 1 PREVIEW_IMAGE: bytes 4-7 image type (1 JPEG, 2 PNG), then the image;
 * - 3 TEXT: progress text, ignored here;
 * - 4 PREVIEW_IMAGE_WITH_METADATA: bytes 4-7 length M of a JSON header ({node_id, prompt_id,
 *   image_type, ...}), M bytes of that header, then the image.
 * Type 1 frames do not say which job they belong to; type 4 frames do.
 */
import { JSON_LIMITS, readJson } from '../../../shared/transport/json-reader';
import { isRecord } from '../../../shared/items/validation';

export interface PreviewImage {
	mimeType: 'image/jpeg' | 'image/png';
	image: Buffer;
	/** Only type 4 frames name their job and node. */
	promptId?: string;
	nodeId?: string;
}

const IMAGE_TYPES: Record<number, PreviewImage['mimeType']> = { 1: 'image/jpeg', 2: 'image/png' };

function asBuffer(data: ArrayBuffer | ArrayBufferView): Buffer {
	if (Buffer.isBuffer(data)) return data;
	if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
	return Buffer.from(data);
}

/** Reads a preview frame; undefined for text frames, unknown types and malformed frames. */
export function parsePreviewFrame(data: ArrayBuffer | ArrayBufferView): PreviewImage | undefined {
	const frame = asBuffer(data);
	if (frame.length < 8) return undefined;
	const type = frame.readUInt32BE(0);
	if (type === 1) {
		const mimeType = IMAGE_TYPES[frame.readUInt32BE(4)];
		if (!mimeType || frame.length === 8) return undefined;
		return { mimeType, image: Buffer.from(frame.subarray(8)) };
	}
	if (type === 4) {
		const headerLength = frame.readUInt32BE(4);
		if (8 + headerLength >= frame.length) return undefined;
		const reading = readJson(frame.subarray(8, 8 + headerLength).toString('utf8'), JSON_LIMITS.message);
		if (!('value' in reading) || !isRecord(reading.value)) return undefined;
		const header = reading.value;
		const mimeType = header.image_type === 'image/jpeg' ? 'image/jpeg' : 'image/png';
		return {
			mimeType,
			image: Buffer.from(frame.subarray(8 + headerLength)),
			...(typeof header.prompt_id === 'string' ? { promptId: header.prompt_id } : {}),
			...(typeof header.node_id === 'string' ? { nodeId: header.node_id } : {}),
		};
	}
	return undefined;
}
