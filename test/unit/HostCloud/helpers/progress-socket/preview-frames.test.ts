/** The binary preview frames of Host Cloud's WebSocket, read as the simulator writes them. */
import { parsePreviewFrame } from '../../../../../nodes/HostCloud/helpers/progress-socket/preview-frames';
import { metadataPreviewFrame, previewFrame, textFrame } from '../../../../../simulator/cloud/ws';

describe('binary preview frames', () => {
	const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 0xff, 0xd9]);
	const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 9, 9]);
	const arrayBufferOf = (buffer: Buffer): ArrayBuffer =>
		buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength) as ArrayBuffer;

	test('type 1: JPEG or PNG, no job named', () => {
		expect(parsePreviewFrame(arrayBufferOf(previewFrame(1, jpeg)))).toEqual({ mimeType: 'image/jpeg', image: jpeg });
		expect(parsePreviewFrame(previewFrame(2, png))).toEqual({ mimeType: 'image/png', image: png });
	});

	test('type 4: the metadata header names the job and node', () => {
		const frame = metadataPreviewFrame({ node_id: '3', prompt_id: 'p-1', image_type: 'image/png' }, png);
		expect(parsePreviewFrame(new Uint8Array(frame))).toEqual({ mimeType: 'image/png', image: png, promptId: 'p-1', nodeId: '3' });
		const asJpeg = metadataPreviewFrame({ prompt_id: 'p-2', image_type: 'image/jpeg' }, jpeg);
		expect(parsePreviewFrame(asJpeg)).toMatchObject({ mimeType: 'image/jpeg', promptId: 'p-2' });
	});

	test('type 3 (text), unknown types and malformed frames are ignored', () => {
		expect(parsePreviewFrame(textFrame('3', 'Sampling'))).toBeUndefined();
		expect(parsePreviewFrame(Buffer.from([0, 0, 0, 9, 0, 0, 0, 1, 5]))).toBeUndefined();
		expect(parsePreviewFrame(Buffer.from([0, 0, 0, 1]))).toBeUndefined();
		expect(parsePreviewFrame(previewFrame(1, Buffer.alloc(0)))).toBeUndefined();
		const unknownImageType = previewFrame(1, jpeg);
		unknownImageType.writeUInt32BE(7, 4);
		expect(parsePreviewFrame(unknownImageType)).toBeUndefined();
		const overlong = Buffer.from([0, 0, 0, 4, 0, 0, 1, 0, 0x7b, 0x7d]);
		expect(parsePreviewFrame(overlong)).toBeUndefined();
		const badJson = Buffer.concat([Buffer.from([0, 0, 0, 4, 0, 0, 0, 2]), Buffer.from('{x'), png]);
		expect(parsePreviewFrame(badJson)).toBeUndefined();
	});
});
