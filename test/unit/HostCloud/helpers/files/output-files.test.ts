/** Host Cloud's output file references: walked from a job's outputs, merged, and typed by their extension. */
import { collectOutputFiles, mergeNodeOutput, mimeTypeFor } from '../../../../../nodes/HostCloud/helpers/files/output-files';

describe('output file references', () => {
	test('every array of file references is walked, with defaults, node ids and kinds, in node order', () => {
		const files = collectOutputFiles({
			'15': { audio: [{ filename: 'song_00001_.wav', subfolder: 'audio' }] },
			'9': { images: [{ filename: 'a.png', subfolder: '', type: 'output' }, { filename: 'b.png' }], animated: [false] },
			'11': { video: [{ filename: 'clip.mp4' }] },
			'12': {
				gifs: [
					{ filename: 'loop.mp4', subfolder: 'anim', type: 'output', format: 'video/h264-mp4' },
					{ filename: 'loop.gif', type: 'temp' },
				],
			},
			'30': { text: ['hello'], mesh: [{ filename: 'model.glb' }], broken: [{ filename: '' }, null, 'x'] },
			'40': 'not an object',
		});
		expect(
			files.map((file) => [file.node_id, file.output_key, file.filename, file.subfolder, file.type, file.kind, file.mime_type]),
		).toEqual([
			['9', 'images', 'a.png', '', 'output', 'image', 'image/png'],
			['9', 'images', 'b.png', '', 'output', 'image', 'image/png'],
			['11', 'video', 'clip.mp4', '', 'output', 'video', 'video/mp4'],
			['12', 'gifs', 'loop.mp4', 'anim', 'output', 'video', 'video/mp4'],
			['12', 'gifs', 'loop.gif', '', 'temp', 'image', 'image/gif'],
			['15', 'audio', 'song_00001_.wav', 'audio', 'output', 'audio', 'audio/wav'],
			['30', 'mesh', 'model.glb', '', 'output', 'file', 'application/octet-stream'],
		]);
		expect(files[3]).toMatchObject({ format: 'video/h264-mp4' });
	});

	test('the same file reported twice is listed once; a node reporting twice keeps both lists', () => {
		const merged = mergeNodeOutput({ images: [{ filename: 'a.png' }] }, { images: [{ filename: 'b.png' }, { filename: 'a.png' }] });
		expect(collectOutputFiles({ '9': merged }).map((file) => file.filename)).toEqual(['a.png', 'b.png']);
	});

	test('MIME types come from the extension', () => {
		expect(mimeTypeFor('x.JPEG')).toBe('image/jpeg');
		expect(mimeTypeFor('x.webm')).toBe('video/webm');
		expect(mimeTypeFor('noextension')).toBe('application/octet-stream');
	});
});
