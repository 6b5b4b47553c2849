/**
 * The multipart form of /upload/image and /upload/mask, read the same way by both flavours: the
 * `image` file part and the plain fields beside it. Each flavour answers a problem in its own way.
 */
import { type MultipartPart, type SimRequest, parseMultipart } from './core';

export interface UploadForm {
	image: MultipartPart;
	/** A plain (non-file) field as text, undefined when absent. */
	field(name: string): string | undefined;
}

export interface UploadProblem {
	status: number;
	code: string;
	message: string;
}

export function readUploadForm(req: SimRequest, limitBytes: number): UploadForm | UploadProblem {
	const parts = parseMultipart(req);
	if (!parts) return { status: 400, code: 'invalid_upload', message: 'Send the upload as multipart/form-data with an image file part.' };
	const image = parts.find((p) => p.name === 'image' && p.filename !== undefined) ?? parts.find((p) => p.name === 'image');
	if (!image) return { status: 400, code: 'missing_image', message: "The upload has no 'image' file part." };
	if (image.data.length > limitBytes) {
		return { status: 413, code: 'file_too_large', message: `The image is ${image.data.length} bytes; the limit is ${limitBytes} bytes.` };
	}
	const field = (name: string) => parts.find((p) => p.name === name && p.filename === undefined)?.data.toString('utf8');
	return { image, field };
}

export function isUploadProblem(form: UploadForm | UploadProblem): form is UploadProblem {
	return 'status' in form;
}
