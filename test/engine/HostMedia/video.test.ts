/**
 * Host Media, video resource, run by n8n's engine against the simulator: multiframe (fields and
 * JSON), start/end frame, extend and the creations status path, with the MP4 as binary data.
 */
import { readBinary } from '../../support/engine';
import { FAST, IMAGE_URL, PNG_BASE64, useMediaEnv } from '../../support/media';

const env = useMediaEnv();

function submitted(path: string): Record<string, unknown> {
	const posts = env.sim.requestsTo('POST', path);
	expect(posts).toHaveLength(1);
	return JSON.parse(posts[0]!.body) as Record<string, unknown>;
}

const frame = (url: string, duration: number, prompt: string) => ({ keyImageSource: 'url', keyImageUrl: url, duration, prompt });

describe('Host Media: video operations', () => {
	it('Generate From Frames: frames from fields (URL, Base64 and binary key images), then the MP4', async () => {
		const result = await env.run(
			{
				resource: 'video',
				operation: 'generateFromFrames',
				model: 'videoq2-turbo',
				startImageSource: 'url',
				startImageUrl: IMAGE_URL,
				frames: {
					frame: [
						frame('https://images.example.com/1.png', 2, 'pan left'),
						{ keyImageSource: 'base64', keyImageBase64: PNG_BASE64, duration: 3, prompt: 'zoom in' },
						{ keyImageSource: 'binary', keyImageBinaryProperty: 'last', duration: 1, prompt: 'fade' },
					],
				},
				additionalFields: { resolution: '1080p', payload: 'order-42', callbackUrl: 'http://127.0.0.1:9/hook' },
				...FAST,
			},
			[{ json: {}, binaryBase64: { last: { data: PNG_BASE64, mimeType: 'image/png' } } }],
		);
		expect(result.status).toBe('success');
		const item = result.items[0]!;
		expect(item.json).toMatchObject({
			task_type: 'multiframe',
			status: 'succeeded',
			raw_status: 'success',
			final: true,
			credits: expect.any(Number),
			created_at: expect.any(String),
			model: 'videoq2-turbo',
			resolution: '1080p',
			creations: [{ id: expect.any(String), url: expect.any(String), cover_url: expect.any(String) }],
		});
		expect(item.json.video_url).toBe((item.json.creations as Array<{ url: string }>)[0]!.url);
		expect(item.binary!.data).toMatchObject({ mimeType: 'video/mp4', fileExtension: 'mp4' });
		expect((await readBinary(item.binary!.data!)).toString('ascii', 4, 8)).toBe('ftyp');
		expect(submitted('/proxy/video/multiframe')).toEqual({
			model: 'videoq2-turbo',
			start_image: IMAGE_URL,
			image_settings: [
				{ key_image: 'https://images.example.com/1.png', duration: 2, prompt: 'pan left' },
				{ key_image: PNG_BASE64, duration: 3, prompt: 'zoom in' },
				{ key_image: PNG_BASE64, duration: 1, prompt: 'fade' },
			],
			resolution: '1080p',
			payload: 'order-42',
			callback_url: 'http://127.0.0.1:9/hook',
		});
		expect(env.sim.requestsTo('GET', `/proxy/video/tasks/${String(item.json.task_id)}/creations`).length).toBeGreaterThan(0);
		expect(env.sim.counters.storageCredentialAttempts).toBe(0);
	});

	it('Generate From Frames: frames as a JSON list from an expression', async () => {
		const frames = [
			{ key_image: IMAGE_URL, duration: 2, prompt: 'a' },
			{ key_image: PNG_BASE64, duration: 4, prompt: 'b' },
		];
		const result = await env.run(
			{
				resource: 'video',
				operation: 'generateFromFrames',
				startImageUrl: IMAGE_URL,
				framesInput: 'json',
				framesJson: '={{ JSON.stringify($json.frames) }}',
				waitMode: 'none',
			},
			[{ json: { frames } }],
		);
		expect(result.status).toBe('success');
		expect(submitted('/proxy/video/multiframe')).toEqual({ model: 'videoq2-pro', start_image: IMAGE_URL, image_settings: frames });
	});

	it('Generate From Start/End Frame with every field', async () => {
		const result = await env.run({
			resource: 'video',
			operation: 'generateFromStartEndFrame',
			model: 'videoq3-pro',
			imageSource: 'base64',
			imageBase64: PNG_BASE64,
			prompt: 'a cat surfing a wave',
			additionalFields: {
				aspectRatio: '9:16',
				audio: true,
				audioType: 'speech_only',
				bgm: true,
				duration: 16,
				enhance: true,
				isRec: true,
				metaData: '{"campaign":"spring"}',
				movementAmplitude: 'large',
				offPeak: true,
				payload: 'p-1',
				priority: -3,
				resolution: '2K',
				seed: 2147483647,
				style: 'anime',
				voiceId: 'voice-7',
				watermark: true,
				wmPosition: 1,
				wmUrl: 'https://images.example.com/logo.png',
			},
			...FAST,
		});
		expect(result.status).toBe('success');
		expect(result.items[0]!.json).toMatchObject({ task_type: 'start-end2video', status: 'succeeded', seed: 2147483647, duration: 16 });
		expect(result.items[0]!.binary!.data!.mimeType).toBe('video/mp4');
		expect(submitted('/proxy/video/start-end2video')).toEqual({
			model: 'videoq3-pro',
			images: [PNG_BASE64],
			prompt: 'a cat surfing a wave',
			aspect_ratio: '9:16',
			audio: true,
			audio_type: 'speech_only',
			bgm: true,
			duration: 16,
			enhance: true,
			is_rec: true,
			meta_data: '{"campaign":"spring"}',
			movement_amplitude: 'large',
			off_peak: true,
			payload: 'p-1',
			priority: -3,
			resolution: '2K',
			seed: 2147483647,
			style: 'anime',
			voice_id: 'voice-7',
			watermark: true,
			wm_position: 1,
			wm_url: 'https://images.example.com/logo.png',
		});
	});

	it('Extend an earlier video by its creation ID and URL, with an end-frame image', async () => {
		const result = await env.run({
			resource: 'video',
			operation: 'extend',
			model: 'videoq2-turbo',
			videoCreationId: 'c-1',
			videoUrl: 'https://videos.example.com/a.mp4',
			prompt: 'keep going',
			additionalFields: { duration: 7, resolution: '540p', endFrameImage: IMAGE_URL, payload: 'x' },
			downloadFiles: false,
			...FAST,
		});
		expect(result.status).toBe('success');
		expect(result.items[0]!.json).toMatchObject({ task_type: 'extend', status: 'succeeded', duration: 7, video_url: expect.any(String) });
		expect(result.items[0]!.binary).toBeUndefined();
		expect(submitted('/proxy/video/extend')).toEqual({
			model: 'videoq2-turbo',
			video_creation_id: 'c-1',
			video_url: 'https://videos.example.com/a.mp4',
			prompt: 'keep going',
			duration: 7,
			resolution: '540p',
			payload: 'x',
			images: [IMAGE_URL],
		});
	});

	it('Extend sends only the model when nothing else is set (the service applies 5 seconds)', async () => {
		const result = await env.run({ resource: 'video', operation: 'extend', waitMode: 'none' });
		expect(result.status).toBe('success');
		expect(submitted('/proxy/video/extend')).toEqual({ model: 'videoq2-pro' });
		expect(result.items[0]!.json).toMatchObject({ duration: 5, status: 'pending', raw_status: 'created' });
	});

	it('Get Task Status: the current state, then (waiting) the finished video', async () => {
		env.sim.options.videoStepMs = 5000;
		const started = await env.run({ resource: 'video', operation: 'extend', waitMode: 'none' });
		const taskId = String(started.items[0]!.json.task_id);
		const now = await env.run({ resource: 'video', operation: 'getTaskStatus', taskId });
		expect(now.items[0]!.json).toEqual({
			task_id: taskId,
			task_type: 'video',
			status: 'pending',
			raw_status: 'created',
			final: false,
			creations: [],
		});

		env.sim.options.videoStepMs = 15;
		const waitedTask = await env.run({ resource: 'video', operation: 'extend', waitMode: 'none' });
		const waited = await env.run({
			resource: 'video',
			operation: 'getTaskStatus',
			taskId: String(waitedTask.items[0]!.json.task_id),
			waitForCompletion: true,
			...FAST,
		});
		expect(waited.items[0]!.json).toMatchObject({
			status: 'succeeded',
			raw_status: 'success',
			video_url: expect.any(String),
			cover_url: expect.any(String),
		});
		expect(waited.items[0]!.binary!.data!.mimeType).toBe('video/mp4');
	});

	it('Get Task Status of an unknown id: 404 explained, with the service words ({message, details} body)', async () => {
		const result = await env.run({ resource: 'video', operation: 'getTaskStatus', taskId: '123' });
		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toBe(
			'The service has no status for video task 123 (HTTP 404 on GET /proxy/video/tasks/123/creations): No video task with id 123: not_found',
		);
	});
});
