/** Multipart bodies, read back as the service (the simulator) reads them. */
import { multipartBody } from '../../../../nodes/shared/transport/multipart';
import { parseMultipart, type SimRequest } from '../../../../simulator/shared/core';

describe('multipart bodies', () => {
	test('multipart bodies read back as the service reads them', () => {
		const image = Buffer.from([0, 1, 2, 13, 10, 45, 45, 255]);
		const { body, contentType } = multipartBody({ type: 'input', original_ref: '{"filename":"a \\"b\\".png"}' }, [
			{ name: 'image', data: image, fileName: 'my "cat".png', contentType: 'image/png' },
		]);
		const parts = parseMultipart({ headers: { 'content-type': contentType }, rawBody: body } as unknown as SimRequest)!;
		expect(parts.map((part) => [part.name, part.filename, part.contentType])).toEqual([
			['type', undefined, undefined],
			['original_ref', undefined, undefined],
			['image', 'my %22cat%22.png', 'image/png'],
		]);
		expect(parts[0]!.data.toString()).toBe('input');
		expect(JSON.parse(parts[1]!.data.toString())).toEqual({ filename: 'a "b".png' });
		expect(parts[2]!.data.equals(image)).toBe(true);
	});
});
