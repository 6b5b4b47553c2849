/**
 * The media proxy's enums and bounds, as the API spec states them (area C). Every check of the
 * node reads them from here, so a change of the spec is a change of one line. It sits in transport/
 * beside the tasks' catalogue (`media-tasks.ts`), as the API's own values; it imports nothing.
 */

export const RELIGHT_STYLES = [
	'standard',
	'darker_but_realistic',
	'clean',
	'smooth',
	'brighter',
	'contrasted_n_hdr',
	'just_composition',
] as const;
export const UPSCALER_ENGINES = ['automatic', 'partner_illusio', 'partner_sharpy', 'partner_sparkle'] as const;
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
] as const;
export const UPSCALER_SCALE_FACTORS = ['2x', '4x', '8x', '16x'] as const;
/** The upscaled result may hold at most 25.3 million pixels. */
export const UPSCALE_MAX_PIXELS = 25_300_000;
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
] as const;
export const STYLE_FLAVORS = ['faithful', 'gen_z', 'psychedelia', 'detaily', 'clear', 'donotstyle', 'donotstyle_sharp'] as const;
export const PORTRAIT_BEAUTIFIERS = ['beautify_face', 'beautify_face_max'] as const;
export const PORTRAIT_STYLES = ['standard', 'pop', 'super_pop'] as const;

export const MULTIFRAME_MODELS = ['videoq2-pro', 'videoq2-turbo'] as const;
export const MULTIFRAME_RESOLUTIONS = ['540p', '720p', '1080p'] as const;
export const MULTIFRAME_MIN_FRAMES = 2;
export const MULTIFRAME_MAX_FRAMES = 9;
export const START_END_MODELS = [
	'videoq3-pro',
	'videoq2-pro-fast',
	'videoq2-pro',
	'videoq2-turbo',
	'videoq1',
	'videoq1-classic',
	'video2.0',
] as const;
export const START_END_RESOLUTIONS = ['360p', '540p', '720p', '1080p', '2K'] as const;
/** Seconds per start-end2video model; the spec gives no range for the other models. */
export const START_END_DURATIONS: Readonly<Record<string, readonly [number, number]>> = {
	'videoq3-pro': [1, 16],
	'videoq2-pro-fast': [1, 10],
	'videoq2-pro': [1, 8],
	'videoq2-turbo': [1, 8],
};
export const MOVEMENT_AMPLITUDES = ['auto', 'small', 'medium', 'large'] as const;
export const VIDEO_STYLES = ['general', 'anime'] as const;
export const AUDIO_TYPES = ['all', 'speech_only', 'sound_effect_only'] as const;
export const EXTEND_MODELS = ['videoq2-pro', 'videoq2-turbo'] as const;
export const EXTEND_RESOLUTIONS = ['540p', '720p', '1080p'] as const;
export const EXTEND_MIN_SECONDS = 1;
export const EXTEND_MAX_SECONDS = 7;
export const EXTEND_DEFAULT_SECONDS = 5;

export const PAYLOAD_MAX_CHARS = 1_048_576;
export const VIDEO_PROMPT_MAX_CHARS = 2000;
export const INT32_MIN = -2_147_483_648;
export const INT32_MAX = 2_147_483_647;

/** Options for an n8n dropdown from enum values, named in words. */
export function optionsOf(values: readonly string[], names: Record<string, string> = {}): Array<{ name: string; value: string }> {
	return values.map((value) => ({ name: names[value] ?? titleCase(value), value }));
}

function titleCase(value: string): string {
	return value
		.split(/[_\s]+/)
		.filter(Boolean)
		.map((word) => (word === 'n' ? '&' : word.charAt(0).toUpperCase() + word.slice(1)))
		.join(' ');
}
