/**
 * inputs/: reading the operations' image inputs (their parameters are declared in
 * actions/common.descriptions.ts). It may call nodes/shared; nothing in music/ or tasks/.
 *
 * The service takes an image as a URL or as Base64 text; in n8n an image usually arrives as binary
 * data from an earlier node, so each image can also come from a binary field of the input item,
 * which the node converts to Base64.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { binaryPropertyAsBase64 } from '../../../shared/binary/binary';
import { notForTools, runsAsTool } from '../../../shared/tools/tool-use';
import { httpUrl, invalidField, quoted } from '../../../shared/items/validation';

export type ImageSource = 'url' | 'base64' | 'binary';

export interface ImageInputDefinition {
	/** Parameter name prefix: `image` gives imageSource, imageUrl, imageBase64, imageBinaryProperty. */
	prefix: string;
	/** Body field it fills. */
	api: string;
	/** "Image", "Reference Image"…: its parameters' names start with it, and messages name it so. */
	label: string;
	/** What the image is for, one sentence. */
	description: string;
	/** The service only accepts public HTTPS URLs for this image. */
	httpsOnly?: boolean;
}

export interface ResolvedImage {
	/** What goes into the body: the URL, or Base64 text without a data: prefix. */
	value: string;
	/** The image bytes, when the node has them (Base64 or binary input). */
	bytes?: Buffer;
}

const DATA_URL_PREFIX = /^data:[\w.+-]+\/[\w.+-]+(?:;[\w-]+=[\w.-]+)*;base64,/i;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$|^[A-Za-z0-9_-]+={0,2}$/;

/** Base64 text without whitespace or a data: URL prefix, or undefined when it is not Base64. */
export function cleanBase64(text: string): string | undefined {
	const bare = text.replace(DATA_URL_PREFIX, '').replace(/\s+/g, '');
	// 4n+1 characters can never be Base64; padding only completes a group of four.
	if (bare.length < 4 || !BASE64.test(bare) || bare.length % 4 === 1 || (bare.includes('=') && bare.length % 4 !== 0)) return undefined;
	return bare;
}

const label = (image: Pick<ImageInputDefinition, 'label' | 'api'>) => `${image.label} (${image.api})`;

/**
 * One image value. An expression may hand over a list: where the service accepts exactly one
 * image, a list of one is accepted and anything else is refused by name.
 */
function single(
	context: IExecuteFunctions,
	itemIndex: number,
	image: Pick<ImageInputDefinition, 'label' | 'api'>,
	value: unknown,
): unknown {
	if (!Array.isArray(value)) return value;
	if (value.length === 1) return value[0];
	throw invalidField(context, itemIndex, label(image), `accepts exactly 1 image (got ${value.length})`, 'Give one image only.');
}

/** Checks a URL or Base64 value given as text. */
export function checkImageText(
	context: IExecuteFunctions,
	itemIndex: number,
	image: Pick<ImageInputDefinition, 'label' | 'api' | 'httpsOnly'>,
	source: 'url' | 'base64' | 'auto',
	raw: unknown,
): ResolvedImage {
	const value = single(context, itemIndex, image, raw);
	const text = typeof value === 'string' ? value.trim() : '';
	if (text === '') throw invalidField(context, itemIndex, label(image), 'is required', `Enter the ${image.label.toLowerCase()}.`);
	const looksLikeUrl = /^[a-z][a-z0-9+.-]*:\/\//i.test(text);
	if (source === 'url' || (source === 'auto' && looksLikeUrl))
		return { value: httpUrl(context, itemIndex, label(image), text, image.httpsOnly) };
	const base64 = cleanBase64(text);
	if (!base64) {
		throw invalidField(
			context,
			itemIndex,
			label(image),
			source === 'auto' ? `must be a URL or Base64 image data (got ${quoted(text)})` : `is not valid Base64 text (got ${quoted(text)})`,
			'Paste the Base64 text of the image, or choose another source.',
		);
	}
	return { value: base64, bytes: Buffer.from(base64, base64.includes('-') || base64.includes('_') ? 'base64url' : 'base64') };
}

/** Reads a binary field of the input item as Base64. */
async function fromBinary(
	context: IExecuteFunctions,
	itemIndex: number,
	image: Pick<ImageInputDefinition, 'label' | 'api'>,
	property: unknown,
): Promise<ResolvedImage> {
	if (runsAsTool(context)) {
		throw notForTools(
			context,
			itemIndex,
			`${label(image)} is set to come from a binary field of the input item, and a tool call brings no files. Give the image as a URL (or Base64 text), for example from $fromAI.`,
		);
	}
	const name = typeof property === 'string' ? property.trim() : '';
	if (name === '')
		throw invalidField(context, itemIndex, `${image.label} Binary Field`, 'is required', 'Enter the name of the binary field, e.g. data.');
	const read = await binaryPropertyAsBase64(context, itemIndex, name);
	if ('problem' in read)
		throw invalidField(
			context,
			itemIndex,
			`${image.label} Binary Field`,
			read.problem,
			'Check the name of the binary field in the input item.',
		);
	if (read.bytes.length === 0) throw invalidField(context, itemIndex, label(image), `is empty: the binary field "${name}" holds no bytes`);
	return { value: read.base64, bytes: read.bytes };
}

/** Reads the parameters of an image input (`imageInputProperties` in actions/common.descriptions.ts) (top level, or inside a fixed collection entry). */
export async function resolveImageInput(
	context: IExecuteFunctions,
	itemIndex: number,
	image: ImageInputDefinition,
	values?: IDataObject,
): Promise<ResolvedImage> {
	const read = (suffix: string, fallback: unknown) =>
		values ? (values[`${image.prefix}${suffix}`] ?? fallback) : context.getNodeParameter(`${image.prefix}${suffix}`, itemIndex, fallback);
	const source = read('Source', 'url') as ImageSource;
	switch (source) {
		case 'url':
			return checkImageText(context, itemIndex, image, 'url', read('Url', ''));
		case 'base64':
			return checkImageText(context, itemIndex, image, 'base64', read('Base64', ''));
		case 'binary':
			return await fromBinary(context, itemIndex, image, read('BinaryProperty', 'data'));
		default:
			throw invalidField(context, itemIndex, `${image.label} Source`, `must be URL, Base64 Text or Binary Field (got ${quoted(source)})`);
	}
}

/** The optional image of a collection, or undefined when neither of its two fields was given. */
export async function resolveOptionalImage(
	context: IExecuteFunctions,
	itemIndex: number,
	image: ImageInputDefinition,
	values: IDataObject,
): Promise<ResolvedImage | undefined> {
	const text = values[image.prefix];
	const property = values[`${image.prefix}BinaryProperty`];
	const hasText =
		text !== undefined && text !== null && !(typeof text === 'string' && text.trim() === '') && !(Array.isArray(text) && text.length === 0);
	const hasBinary = typeof property === 'string' && property.trim() !== '';
	if (hasText && hasBinary) {
		throw invalidField(
			context,
			itemIndex,
			label(image),
			`was given twice: as a URL or Base64 text and as the binary field "${String(property)}"`,
			'Keep only one of the two.',
		);
	}
	if (hasText) return checkImageText(context, itemIndex, image, 'auto', text);
	if (hasBinary) return await fromBinary(context, itemIndex, image, property);
	return undefined;
}
