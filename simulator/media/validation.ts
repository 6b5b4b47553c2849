/**
 * Media proxy request validation: every type, bound, enum, count, length and incompatibility the
 * spec states for the media proxy endpoints, written with the checks of rules.ts, so a
 * client (and the node's own pre-checks) can be tested against it.
 */
import type { MultipartPart } from '../shared/core';
import { imageDimensions } from './formats';
import {
	type BodyValidator,
	type Check,
	type Invalid,
	absent,
	boolean,
	decodeBase64Image,
	fail,
	finiteNumber,
	httpUrl,
	imageSource,
	int32,
	integer,
	jsonText,
	list,
	object,
	oneOf,
	optional,
	required,
	shown,
	text,
	validator,
	wholeNumber,
} from './rules';

export const PAYLOAD_MAX_CHARS = 1048576;
export const PROMPT_MAX_CHARS = 2000;
export const UPSCALE_MAX_PIXELS = 25_300_000;

export const RELIGHT_STYLES = ['standard', 'darker_but_realistic', 'clean', 'smooth', 'brighter', 'contrasted_n_hdr', 'just_composition'];
export const UPSCALER_ENGINES = ['automatic', 'partner_illusio', 'partner_sharpy', 'partner_sparkle'];
export const UPSCALER_OPTIMIZED_FOR = [
	'standard',
	'soft_portraits',
	'hard_portraits',
	'art_n_illustration',
	'videogame_assets',
	'nature_n_landscapes',
	'films_n_photography',
	'3d_renders',
	'science_fiction_n_horror',
];
export const UPSCALER_SCALE_FACTORS = ['2x', '4x', '8x', '16x'];
export const STYLE_ENGINES = [
	'balanced',
	'definio',
	'illusio',
	'3d_cartoon',
	'colorful_anime',
	'caricature',
	'real',
	'super_real',
	'softy',
];
export const STYLE_FLAVORS = ['faithful', 'gen_z', 'psychedelia', 'detaily', 'clear', 'donotstyle', 'donotstyle_sharp'];
export const PORTRAIT_BEAUTIFIERS = ['beautify_face', 'beautify_face_max'];
export const PORTRAIT_STYLES = ['standard', 'pop', 'super_pop'];
export const MULTIFRAME_MODELS = ['videoq2-pro', 'videoq2-turbo'];
export const MULTIFRAME_RESOLUTIONS = ['540p', '720p', '1080p'];
export const START_END_MODELS = [
	'videoq3-pro',
	'videoq2-pro-fast',
	'videoq2-pro',
	'videoq2-turbo',
	'videoq1',
	'videoq1-classic',
	'video2.0',
];
export const START_END_RESOLUTIONS = ['360p', '540p', '720p', '1080p', '2K'];
export const MOVEMENT_AMPLITUDES = ['auto', 'small', 'medium', 'large'];
export const VIDEO_STYLES = ['general', 'anime'];
export const AUDIO_TYPES = ['all', 'speech_only', 'sound_effect_only'];
export const EXTEND_MODELS = ['videoq2-pro', 'videoq2-turbo'];
export const EXTEND_RESOLUTIONS = ['540p', '720p', '1080p'];

/** Seconds allowed per start-end2video model; models the spec gives no range for are absent. */
export const START_END_DURATIONS: Record<string, [number, number]> = {
	'videoq3-pro': [1, 16],
	'videoq2-pro-fast': [1, 10],
	'videoq2-pro': [1, 8],
	'videoq2-turbo': [1, 8],
};

const percent = integer(0, 100);
const tenToTen = integer(-10, 10);
const webhook = optional(httpUrl);

// ---- images -------------------------------------------------------------------------------------

/** Prompt emphasis "(phrase:1.2)": the spec allows weights from 1 to 1.4. */
const relightPrompt: Check = (value, field) => {
	const problem = text()(value, field);
	if (problem) return problem;
	for (const m of (value as string).matchAll(/\(([^():]+):\s*([+-]?\d*\.?\d+)\s*\)/g)) {
		const weight = Number(m[2]);
		if (weight < 1 || weight > 1.4) {
			return fail(field, `${field}: the emphasis weight of "(${m[1]}:${m[2]})" must be from 1 to 1.4.`);
		}
	}
	return undefined;
};

const lightSourcesExclusive: BodyValidator = (body) =>
	!absent(body.transfer_light_from_lightmap) && !absent(body.transfer_light_from_reference_image)
		? fail(
				'transfer_light_from_lightmap',
				'transfer_light_from_lightmap and transfer_light_from_reference_image cannot be used together: send only one of them.',
			)
		: undefined;

export const validateRelight = validator(
	{
		image: required(imageSource(), 'Base64 image data or a URL'),
		advanced_settings: optional(
			object({
				blacks: optional(finiteNumber),
				brightness: optional(finiteNumber),
				contrast: optional(finiteNumber),
				saturation: optional(finiteNumber),
				whites: optional(finiteNumber),
				engine: optional(text()),
				fixed_generation: optional(boolean),
				transfer_light_a: optional(text()),
				transfer_light_b: optional(text()),
			}),
		),
		change_background: optional(boolean),
		interpolate_from_original: optional(boolean),
		light_transfer_strength: optional(percent),
		preserve_details: optional(boolean),
		prompt: optional(relightPrompt),
		style: optional(oneOf(RELIGHT_STYLES)),
		transfer_light_from_lightmap: optional(imageSource()),
		transfer_light_from_reference_image: optional(imageSource()),
		webhook_url: webhook,
	},
	lightSourcesExclusive,
);

/** The upscaled result must stay within 25.3 million pixels; checkable only for Base64 PNG/JPEG input. */
const upscaleWithinPixelLimit: BodyValidator = (body) => {
	const source = body.image as string;
	if (/^https?:\/\//i.test(source)) return undefined;
	const bytes = decodeBase64Image(source);
	const size = bytes && imageDimensions(bytes);
	if (!size) return undefined;
	const factor = Number(String(body.scale_factor ?? '2x').replace('x', ''));
	const width = size.width * factor;
	const height = size.height * factor;
	if (width * height <= UPSCALE_MAX_PIXELS) return undefined;
	return fail(
		'image',
		`image is too large for scale_factor ${factor}x: the result would be ${width}x${height} (${((width * height) / 1e6).toFixed(2)} million pixels) ` +
			'and at most 25.3 million pixels are allowed. Use a smaller image or scale factor.',
	);
};

export const validateUpscaler = validator(
	{
		image: required(imageSource(), 'Base64 image data or a URL'),
		creativity: optional(tenToTen),
		engine: optional(oneOf(UPSCALER_ENGINES)),
		fractality: optional(tenToTen),
		hdr: optional(tenToTen),
		optimized_for: optional(oneOf(UPSCALER_OPTIMIZED_FOR)),
		prompt: optional(text()),
		resemblance: optional(tenToTen),
		scale_factor: optional(oneOf(UPSCALER_SCALE_FACTORS)),
		webhook_url: webhook,
	},
	upscaleWithinPixelLimit,
);

/**
 * portrait_beautifier and portrait_style are "used only when is_portrait is true": like the spec,
 * they are accepted (values still checked against their enums) and simply have no effect otherwise.
 */
export const validateStyleTransfer = validator({
	image: required(imageSource(), 'Base64 image data or a URL'),
	reference_image: required(imageSource(), 'Base64 image data or a URL of the style to transfer'),
	engine: optional(oneOf(STYLE_ENGINES)),
	fixed_generation: optional(boolean),
	flavor: optional(oneOf(STYLE_FLAVORS)),
	is_portrait: optional(boolean),
	portrait_beautifier: optional(oneOf(PORTRAIT_BEAUTIFIERS)),
	portrait_style: optional(oneOf(PORTRAIT_STYLES)),
	prompt: optional(text()),
	structure_strength: optional(percent),
	style_strength: optional(percent),
	webhook_url: webhook,
});

export const validateSkinEnhancer = validator({
	image: required(imageSource(true), 'Base64 image data or a public HTTPS URL'),
	sharpen: optional(percent),
	smart_grain: optional(percent),
	webhook_url: webhook,
});

// ---- video --------------------------------------------------------------------------------------

const payload = optional(text(PAYLOAD_MAX_CHARS));
const videoPrompt = optional(text(PROMPT_MAX_CHARS));

const frameSetting = object({
	key_image: required(text(undefined, true), 'Base64 image data or a URL of the key frame'),
	duration: required(wholeNumber, 'whole seconds'),
	prompt: required(text(), 'a description of the frame'),
});

export const validateMultiframe = validator({
	image_settings: required(list(frameSetting, { min: 2, max: 9 }, 'frames'), 'a list of 2 to 9 frames'),
	model: required(oneOf(MULTIFRAME_MODELS), MULTIFRAME_MODELS.join(' or ')),
	start_image: required(imageSource(), 'Base64 image data or a URL of the first frame'),
	callback_url: optional(httpUrl),
	payload,
	resolution: optional(oneOf(MULTIFRAME_RESOLUTIONS)),
});

const durationForModel: BodyValidator = (body) => {
	if (absent(body.duration)) return undefined;
	const range = START_END_DURATIONS[body.model as string];
	const duration = body.duration as number;
	if (!range) return int32(duration, 'duration');
	if (duration >= range[0] && duration <= range[1]) return undefined;
	return fail('duration', `duration must be from ${range[0]} to ${range[1]} seconds for model ${body.model as string}; got ${duration}.`);
};

export const validateStartEnd = validator(
	{
		model: required(oneOf(START_END_MODELS), START_END_MODELS.join(', ')),
		images: required(list(imageSource(), { min: 1, max: 1 }, 'image (the start frame)'), 'a list holding exactly 1 start-frame image'),
		aspect_ratio: optional(text()),
		audio: optional(boolean),
		audio_type: optional(oneOf(AUDIO_TYPES)),
		bgm: optional(boolean),
		callback_url: optional(httpUrl),
		duration: optional(int32),
		enhance: optional(boolean),
		is_rec: optional(boolean),
		meta_data: optional(jsonText),
		movement_amplitude: optional(oneOf(MOVEMENT_AMPLITUDES)),
		off_peak: optional(boolean),
		payload,
		priority: optional(int32),
		prompt: videoPrompt,
		resolution: optional(oneOf(START_END_RESOLUTIONS)),
		seed: optional(int32),
		style: optional(oneOf(VIDEO_STYLES)),
		voice_id: optional(text()),
		watermark: optional(boolean),
		wm_position: optional(integer(1, 4, 'an integer from 1 to 4 (1 top left, 2 top right, 3 bottom right, 4 bottom left)')),
		wm_url: optional(httpUrl),
	},
	durationForModel,
);

const sourceVideoTogether: BodyValidator = (body) => {
	const hasId = !absent(body.video_creation_id);
	const hasUrl = !absent(body.video_url);
	if (hasId === hasUrl) return undefined;
	const [given, missing] = hasId ? ['video_creation_id', 'video_url'] : ['video_url', 'video_creation_id'];
	return fail(missing, `${missing} is required together with ${given}: send both or neither.`);
};

export const validateExtend = validator(
	{
		model: required(oneOf(EXTEND_MODELS), EXTEND_MODELS.join(' or ')),
		callback_url: optional(httpUrl),
		duration: optional(integer(1, 7, 'an integer from 1 to 7 (seconds)')),
		images: optional(list(imageSource(), { min: 1, max: 1 }, 'image (the end-frame reference)')),
		payload,
		prompt: videoPrompt,
		resolution: optional(oneOf(EXTEND_RESOLUTIONS)),
		video_creation_id: optional(text(undefined, true)),
		video_url: optional(httpUrl),
	},
	sourceVideoTogether,
);

// ---- music --------------------------------------------------------------------------------------

export interface MusicRequest {
	prompt: string;
	duration?: number;
}

/** The multipart fields of a music request; the duration has no bounds in the spec, so only its form is checked. */
export function validateMusic(parts: MultipartPart[]): MusicRequest | Invalid {
	const field = (name: string) => parts.find((p) => p.name === name && p.filename === undefined)?.data.toString('utf8');
	const prompt = field('prompt');
	if (prompt === undefined || prompt.trim() === '') return fail('prompt', 'prompt is required: describe the music to generate.');
	const duration = field('duration');
	if (duration === undefined || duration === '') return { prompt };
	const seconds = Number(duration.trim());
	if (!/^\s*-?\d+\s*$/.test(duration) || !Number.isSafeInteger(seconds)) {
		return fail('duration', `duration must be a whole number; got ${shown(duration)}.`);
	}
	return { prompt, duration: seconds };
}
