/**
 * Every bound, enum, count, length and incompatibility of area C, checked by Host Media before
 * anything is sent. Table-driven: at the limit the request reaches the simulator (and the
 * simulator agrees); one past it the item fails with a message naming the field, and no request
 * reaches the simulator at all.
 */
import { IMAGE_URL, PNG_BASE64, useMediaEnv } from '../../support/media';

const env = useMediaEnv();

const BASE: Record<string, Record<string, unknown>> = {
	upscale: { resource: 'image', operation: 'upscale', imageUrl: IMAGE_URL },
	relight: { resource: 'image', operation: 'relight', imageUrl: IMAGE_URL },
	style: { resource: 'image', operation: 'styleTransfer', imageUrl: IMAGE_URL, referenceImageUrl: IMAGE_URL },
	skin: { resource: 'image', operation: 'enhanceSkin', imageUrl: IMAGE_URL },
	frames: {
		resource: 'video',
		operation: 'generateFromFrames',
		startImageUrl: IMAGE_URL,
		frames: { frame: frames(2) },
	},
	startEnd: { resource: 'video', operation: 'generateFromStartEndFrame', imageUrl: IMAGE_URL },
	extend: { resource: 'video', operation: 'extend' },
	music: { resource: 'music', operation: 'generate', prompt: 'a short jingle', downloadAudio: false },
	imageStatus: { resource: 'image', operation: 'getTaskStatus', taskType: 'image-upscaler' },
};

function frames(count: number, patch: Record<string, unknown> = {}, at = -1): Array<Record<string, unknown>> {
	return Array.from({ length: count }, (_, i) => ({
		keyImageSource: 'url',
		keyImageUrl: IMAGE_URL,
		duration: 2,
		prompt: `frame ${i + 1}`,
		...(i === at ? patch : {}),
	}));
}

/** A PNG of only its signature and IHDR: enough to read its size. */
function pngHeader(width: number, height: number): string {
	const header = Buffer.alloc(33);
	Buffer.from('89504e470d0a1a0a', 'hex').copy(header, 0);
	header.writeUInt32BE(13, 8);
	header.write('IHDR', 12, 'ascii');
	header.writeUInt32BE(width, 16);
	header.writeUInt32BE(height, 20);
	header[24] = 8;
	header[25] = 2;
	return header.toString('base64');
}

type Row = [operation: string, what: string, parameters: Record<string, unknown>, field: string | null];

const ok = (operation: string, what: string, parameters: Record<string, unknown>): Row => [operation, what, parameters, null];
const bad = (operation: string, what: string, parameters: Record<string, unknown>, field: string): Row => [
	operation,
	what,
	parameters,
	field,
];
const extra = (fields: Record<string, unknown>) => ({ additionalFields: fields });

/** At each end accepted, one past each end rejected. */
function range(operation: string, name: string, api: string, min: number, max: number, wrap = extra): Row[] {
	return [
		ok(operation, `${api} = ${min}`, wrap({ [name]: min })),
		ok(operation, `${api} = ${max}`, wrap({ [name]: max })),
		bad(operation, `${api} = ${min - 1}`, wrap({ [name]: min - 1 }), `(${api})`),
		bad(operation, `${api} = ${max + 1}`, wrap({ [name]: max + 1 }), `(${api})`),
	];
}

const emoji = '\u{1F3B5}';
const PAYLOAD_MAX = 1_048_576;

const ROWS: Row[] = [
	// upscale
	...['creativity', 'fractality', 'hdr', 'resemblance'].flatMap((field) => range('upscale', field, field, -10, 10)),
	bad('upscale', 'creativity 1.5 (not whole)', extra({ creativity: 1.5 }), '(creativity)'),
	bad('upscale', 'engine outside the enum', extra({ engine: 'turbo' }), '(engine)'),
	bad('upscale', 'optimized_for outside the enum', extra({ optimizedFor: 'cats' }), '(optimized_for)'),
	bad('upscale', 'scale_factor 3x', { scaleFactor: '3x' }, '(scale_factor)'),
	ok('upscale', 'result of exactly 25.3 Mpx (2530×2500 at 2x)', {
		imageSource: 'base64',
		imageBase64: pngHeader(2530, 2500),
		scaleFactor: '2x',
	}),
	bad(
		'upscale',
		'result over 25.3 Mpx (2530×2501 at 2x)',
		{ imageSource: 'base64', imageBase64: pngHeader(2530, 2501), scaleFactor: '2x' },
		'(image)',
	),
	ok('upscale', 'result of exactly 25.3 Mpx (1265×1250 at 4x)', {
		imageSource: 'base64',
		imageBase64: pngHeader(1265, 1250),
		scaleFactor: '4x',
	}),
	bad(
		'upscale',
		'result over 25.3 Mpx (1265×1251 at 4x)',
		{ imageSource: 'base64', imageBase64: pngHeader(1265, 1251), scaleFactor: '4x' },
		'scale_factor',
	),
	bad('upscale', 'image URL that is not http(s)', { imageUrl: 'ftp://images.example.com/a.png' }, '(image)'),
	// n8n itself refuses a literally empty required field; an expression that comes out empty reaches the node.
	bad('upscale', 'image URL empty', { imageUrl: '={{ $json.none ?? "" }}' }, '(image)'),
	bad('upscale', 'image Base64 that is not Base64', { imageSource: 'base64', imageBase64: 'not base64!' }, '(image)'),
	bad('upscale', 'image binary field missing', { imageSource: 'binary', imageBinaryProperty: 'photo' }, 'Image Binary Field'),
	bad('upscale', 'two images where one is accepted', { imageUrl: `={{ ["${IMAGE_URL}", "${IMAGE_URL}"] }}` }, '(image)'),
	ok('upscale', 'a list of one image is one image', { imageUrl: `={{ ["${IMAGE_URL}"] }}` }),
	bad('upscale', 'webhook_url not a URL', extra({ webhookUrl: 'call me' }), '(webhook_url)'),
	bad('upscale', 'poll interval 0', { waitOptions: { pollIntervalSeconds: 0 }, waitMode: 'poll' }, 'Poll Interval'),
	bad('upscale', 'max wait -1', { waitOptions: { maxWaitMinutes: -1 }, waitMode: 'poll' }, 'Max Wait'),

	// relight
	...range('relight', 'lightTransferStrength', 'light_transfer_strength', 0, 100),
	bad('relight', 'style outside the enum', extra({ style: 'neon' }), '(style)'),
	ok('relight', 'prompt emphasis 1.4', extra({ prompt: 'a sunset, (warm rim light:1.4)' })),
	ok('relight', 'prompt emphasis 1', extra({ prompt: 'a sunset, (warm rim light:1)' })),
	bad('relight', 'prompt emphasis 1.5', extra({ prompt: 'a sunset, (warm rim light:1.5)' }), '(prompt)'),
	bad('relight', 'prompt emphasis 0.9', extra({ prompt: 'a sunset, (warm rim light:0.9)' }), '(prompt)'),
	ok('relight', 'lightmap alone', extra({ lightmap: IMAGE_URL })),
	ok('relight', 'reference image alone', extra({ referenceImage: PNG_BASE64 })),
	bad(
		'relight',
		'lightmap and reference image together',
		extra({ lightmap: IMAGE_URL, referenceImage: IMAGE_URL }),
		'(transfer_light_from_lightmap)',
	),
	bad(
		'relight',
		'lightmap as text and as a binary field',
		extra({ lightmap: IMAGE_URL, lightmapBinaryProperty: 'data' }),
		'(transfer_light_from_lightmap)',
	),
	bad('relight', 'lightmap neither URL nor Base64', extra({ lightmap: 'nope!' }), '(transfer_light_from_lightmap)'),
	bad('relight', 'advanced brightness not a number', { advancedSettings: { brightness: 'high' } }, '(brightness)'),

	// style transfer
	...range('style', 'structureStrength', 'structure_strength', 0, 100),
	...range('style', 'styleStrength', 'style_strength', 0, 100),
	bad('style', 'engine outside the enum', extra({ engine: 'van_gogh' }), '(engine)'),
	bad('style', 'flavor outside the enum', extra({ flavor: 'spicy' }), '(flavor)'),
	ok('style', 'portrait options with is_portrait', extra({ isPortrait: true, portraitStyle: 'pop', portraitBeautifier: 'beautify_face' })),
	bad('style', 'portrait_style without is_portrait', extra({ portraitStyle: 'pop' }), '(portrait_style)'),
	bad(
		'style',
		'portrait_beautifier with is_portrait false',
		extra({ isPortrait: false, portraitBeautifier: 'beautify_face' }),
		'(portrait_beautifier)',
	),
	bad('style', 'reference image missing', { referenceImageUrl: '={{ $json.none ?? "" }}' }, '(reference_image)'),

	// skin enhancer
	...range('skin', 'sharpen', 'sharpen', 0, 100),
	...range('skin', 'smartGrain', 'smart_grain', 0, 100),
	bad('skin', 'image over plain http', { imageUrl: 'http://images.example.com/face.jpg' }, '(image)'),
	ok('skin', 'image as Base64', { imageSource: 'base64', imageBase64: PNG_BASE64 }),

	// multiframe
	bad('frames', '1 frame', { frames: { frame: frames(1) } }, '(image_settings)'),
	ok('frames', '2 frames', { frames: { frame: frames(2) } }),
	ok('frames', '9 frames', { frames: { frame: frames(9) } }),
	bad('frames', '10 frames', { frames: { frame: frames(10) } }, '(image_settings)'),
	bad(
		'frames',
		'10 frames as JSON',
		{
			framesInput: 'json',
			framesJson: JSON.stringify(Array.from({ length: 10 }, () => ({ key_image: IMAGE_URL, duration: 1, prompt: 'x' }))),
		},
		'(image_settings)',
	),
	bad('frames', 'frames JSON that does not parse', { framesInput: 'json', framesJson: '[{' }, '(image_settings)'),
	ok('frames', 'frame duration 0 (the spec gives no range, so none is invented)', { frames: { frame: frames(2, { duration: 0 }, 1) } }),
	bad('frames', 'frame duration 1.5', { frames: { frame: frames(2, { duration: 1.5 }, 1) } }, '(image_settings[1].duration)'),
	bad(
		'frames',
		'frame key image not an image',
		{
			framesInput: 'json',
			framesJson: JSON.stringify([
				{ key_image: 'x!', duration: 1, prompt: 'a' },
				{ key_image: IMAGE_URL, duration: 1, prompt: 'b' },
			]),
		},
		'(image_settings[0].key_image)',
	),
	bad('frames', 'model videoq3-pro (not for frames)', { model: 'videoq3-pro' }, '(model)'),
	bad('frames', 'resolution 360p (not for frames)', extra({ resolution: '360p' }), '(resolution)'),
	ok('frames', `payload of ${PAYLOAD_MAX} characters`, extra({ payload: 'a'.repeat(PAYLOAD_MAX) })),
	bad('frames', `payload of ${PAYLOAD_MAX + 1} characters`, extra({ payload: 'a'.repeat(PAYLOAD_MAX + 1) }), '(payload)'),
	bad('frames', 'callback_url not a URL', extra({ callbackUrl: 'hook' }), '(callback_url)'),

	// start-end2video
	...range('startEnd', 'duration', 'duration', 1, 16, (fields) => ({ model: 'videoq3-pro', ...extra(fields) })),
	...range('startEnd', 'duration', 'duration', 1, 10, (fields) => ({ model: 'videoq2-pro-fast', ...extra(fields) })),
	...range('startEnd', 'duration', 'duration', 1, 8, (fields) => ({ model: 'videoq2-pro', ...extra(fields) })),
	...range('startEnd', 'duration', 'duration', 1, 8, (fields) => ({ model: 'videoq2-turbo', ...extra(fields) })),
	ok('startEnd', 'videoq1: no range in the spec, so none is invented (30 s)', { model: 'videoq1', ...extra({ duration: 30 }) }),
	ok('startEnd', 'videoq1: no range in the spec, so none is invented (0 s)', { model: 'videoq1', ...extra({ duration: 0 }) }),
	bad('startEnd', 'videoq1: duration past int32', { model: 'videoq1', ...extra({ duration: 2147483648 }) }, '(duration)'),
	bad('startEnd', 'model outside the list', { model: 'videoq9' }, '(model)'),
	ok('startEnd', 'prompt of 2000 characters', { prompt: 'a'.repeat(2000) }),
	bad('startEnd', 'prompt of 2001 characters', { prompt: 'a'.repeat(2001) }, '(prompt)'),
	ok('startEnd', 'prompt of 2000 emoji (characters, not UTF-16 units)', { prompt: emoji.repeat(2000) }),
	bad('startEnd', 'prompt of 2001 emoji', { prompt: emoji.repeat(2001) }, '(prompt)'),
	ok('startEnd', `payload of ${PAYLOAD_MAX} characters`, extra({ payload: 'b'.repeat(PAYLOAD_MAX) })),
	bad('startEnd', `payload of ${PAYLOAD_MAX + 1} characters`, extra({ payload: 'b'.repeat(PAYLOAD_MAX + 1) }), '(payload)'),
	bad('startEnd', 'two start frames', { imageUrl: `={{ ["${IMAGE_URL}", "${IMAGE_URL}"] }}` }, '(images)'),
	bad('startEnd', 'resolution 4K', extra({ resolution: '4K' }), '(resolution)'),
	bad('startEnd', 'movement_amplitude outside the enum', extra({ movementAmplitude: 'huge' }), '(movement_amplitude)'),
	bad('startEnd', 'audio_type outside the enum', extra({ audioType: 'music' }), '(audio_type)'),
	bad('startEnd', 'audio_type with audio off', extra({ audio: false, audioType: 'speech_only' }), '(audio_type)'),
	ok('startEnd', 'audio_type with audio on', extra({ audio: true, audioType: 'speech_only' })),
	ok('startEnd', 'audio_type with audio not set (its default depends on the model)', extra({ audioType: 'sound_effect_only' })),
	bad('startEnd', 'style outside the enum', extra({ style: 'noir' }), '(style)'),
	ok('startEnd', 'seed at the int32 maximum', extra({ seed: 2147483647 })),
	bad('startEnd', 'seed past the int32 maximum', extra({ seed: 2147483648 }), '(seed)'),
	ok('startEnd', 'priority at the int32 minimum', extra({ priority: -2147483648 })),
	bad('startEnd', 'priority past the int32 minimum', extra({ priority: -2147483649 }), '(priority)'),
	bad('startEnd', 'meta_data that is not JSON', extra({ metaData: '{campaign: spring' }), '(meta_data)'),
	...[1, 4].map((position) => ok('startEnd', `wm_position ${position}`, extra({ watermark: true, wmPosition: position }))),
	bad('startEnd', 'wm_position 5', extra({ watermark: true, wmPosition: 5 }), '(wm_position)'),
	bad('startEnd', 'wm_url not a URL', extra({ wmUrl: 'logo.png' }), '(wm_url)'),

	// extend
	...range('extend', 'duration', 'duration', 1, 7),
	bad('extend', 'model videoq1 (not for extend)', { model: 'videoq1' }, '(model)'),
	bad('extend', 'no model (the spec marks it required)', { model: '' }, '(model)'),
	bad('extend', 'resolution 2K (not for extend)', extra({ resolution: '2K' }), '(resolution)'),
	ok('extend', 'video_creation_id with video_url', { videoCreationId: 'c-1', videoUrl: 'https://videos.example.com/a.mp4' }),
	bad('extend', 'video_creation_id without video_url', { videoCreationId: 'c-1' }, '(video_url)'),
	bad('extend', 'video_url without video_creation_id', { videoUrl: 'https://videos.example.com/a.mp4' }, '(video_creation_id)'),
	bad('extend', 'video_url not a URL', { videoCreationId: 'c-1', videoUrl: 'a.mp4' }, '(video_url)'),
	ok('extend', 'prompt of 2000 characters', { prompt: 'c'.repeat(2000) }),
	bad('extend', 'prompt of 2001 characters', { prompt: 'c'.repeat(2001) }, '(prompt)'),
	bad('extend', `payload of ${PAYLOAD_MAX + 1} characters`, extra({ payload: 'c'.repeat(PAYLOAD_MAX + 1) }), '(payload)'),
	ok('extend', 'one end-frame image', extra({ endFrameImage: IMAGE_URL })),
	bad('extend', 'two end-frame images', extra({ endFrameImage: `={{ ["${IMAGE_URL}", "${IMAGE_URL}"] }}` }), '(images)'),

	// music
	bad('music', 'prompt empty', { prompt: '  ' }, '(prompt)'),
	ok('music', 'duration 0 (the spec shows no bounds, so none is invented)', extra({ duration: 0 })),
	bad('music', 'duration 2.5', extra({ duration: 2.5 }), '(duration)'),

	// status
	bad('imageStatus', 'task ID empty', { taskId: '={{ $json.none ?? " " }}' }, 'Task ID'),
	bad('imageStatus', 'task ID not a UUID (the spec gives image task IDs as UUIDs)', { taskId: 'https://x.example/task/1' }, 'Task ID'),
	bad('imageStatus', 'task type outside the list', { taskType: 'image-sharpener', taskId: 'x' }, 'Task Type'),
];

describe('Host Media checks every spec rule before sending', () => {
	it.each(ROWS)('%s: %s', async (operation, _what, parameters, field) => {
		const result = await env.run({ ...BASE[operation], waitMode: 'none', ...parameters });
		if (field === null) {
			expect({ status: result.status, error: result.error('Node')?.message }).toEqual({ status: 'success', error: undefined });
			const sent = env.proxyRequests();
			expect(sent).toHaveLength(1);
			expect(sent[0]!.status).toBe(200);
			return;
		}
		expect(result.status).toBe('error');
		expect(result.error('Node')?.message).toContain(field);
		expect(env.proxyRequests()).toHaveLength(0);
	});

	it('says what is allowed, in the words of the editor and of the API', async () => {
		const messages: string[] = [];
		for (const parameters of [
			{ ...BASE.upscale, additionalFields: { creativity: 11 } },
			{ ...BASE.startEnd, model: 'videoq2-pro', additionalFields: { duration: 9 } },
			{ ...BASE.frames, frames: { frame: frames(10) } },
			{ ...BASE.extend, videoCreationId: 'c-1' },
			{ ...BASE.relight, additionalFields: { lightmap: IMAGE_URL, referenceImage: IMAGE_URL } },
		]) {
			messages.push((await env.run({ ...parameters, waitMode: 'none' })).error('Node')!.message);
		}
		expect(messages).toEqual([
			'Creativity (creativity) must be a whole number from -10 to 10 (got "11")',
			'Duration (duration) must be from 1 to 8 seconds for the model videoq2-pro (got 9)',
			'Frames (image_settings) must hold 2 to 9 frames (got 10)',
			'Video URL (video_url) is required together with Video Creation ID (video_creation_id)',
			'Lightmap (transfer_light_from_lightmap) cannot be combined with Reference Image (transfer_light_from_reference_image)',
		]);
		expect(env.proxyRequests()).toHaveLength(0);
	});
});
