/**
 * The names of Host Media's result files, as the next node sees them: a Compression node zips the
 * files of many items by file name, an SFTP or Drive upload writes them by name, Aggregate gathers
 * them. The service's result URLs end in the same name for every task (result-0.png), so files named
 * after their URL overwrote each other downstream (the loop-upscale-to-zip recipe lost two of three
 * images in its zip). Each file is named after its task.
 */
import { FAST, IMAGE_URL, useMediaEnv } from '../../support/media';

const env = useMediaEnv();

describe('Host Media: result file names', () => {
	it('three upscales in one run: three files with different names, each naming its own task', async () => {
		const result = await env.run(
			{ resource: 'image', operation: 'upscale', imageSource: 'url', imageUrl: '={{ $json.url }}', scaleFactor: '2x', ...FAST },
			[{ json: { url: `${IMAGE_URL}?1` } }, { json: { url: `${IMAGE_URL}?2` } }, { json: { url: `${IMAGE_URL}?3` } }],
		);
		expect(result.status).toBe('success');
		// The URLs the service gave really do end alike: the names must not come from them.
		const urlNames = result.items.map((item) => new URL(String(item.json.url)).pathname.split('/').pop());
		expect(new Set(urlNames).size).toBe(1);
		const names = result.items.map((item) => item.binary!.data!.fileName);
		expect(names).toEqual(result.items.map((item) => `image-upscaler-${String(item.json.task_id)}.png`));
		expect(new Set(names).size).toBe(3);
		expect(result.items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
	});

	it('a video is named after its task too, with the extension its bytes have', async () => {
		const started = await env.run({
			resource: 'video',
			operation: 'generateFromFrames',
			model: 'videoq2-turbo',
			startImageSource: 'url',
			startImageUrl: IMAGE_URL,
			frames: {
				frame: [
					{ keyImageSource: 'url', keyImageUrl: 'https://images.example.com/1.png', duration: 2, prompt: 'pan left' },
					{ keyImageSource: 'url', keyImageUrl: 'https://images.example.com/2.png', duration: 2, prompt: 'zoom in' },
				],
			},
			...FAST,
		});
		expect(started.status).toBe('success');
		const [item] = started.items;
		expect(item!.binary?.data?.fileName).toBe(`${String(item!.json.task_type)}-${String(item!.json.task_id)}.mp4`);
	});
});
