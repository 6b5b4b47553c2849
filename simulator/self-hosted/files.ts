/**
 * Self-hosted: files. Unlike the cloud, the server keeps folders (input, output, temp, with
 * subfolders) and names as given, and /view answers the file's bytes itself. Path rules follow the
 * upstream server: a file name with `..` or a leading `/` is 400, a subfolder that leaves its
 * folder is 403 on /view and 400 on upload, an unknown folder type is 400 on /view; uploads keep
 * the client's file name, and without `overwrite` a different file of the same name gets
 * " (1)", " (2)"… added (the same bytes again keep the name). Bare statuses carry no body, as there.
 */
import { posix } from 'node:path';
import type { ServerResponse } from 'node:http';

import type { UploadedInput } from '../cloud/area';
import { storageKey } from '../cloud/run';
import { type SimRequest, sendText } from '../shared/core';
import { contentTypeOfName } from '../shared/file-types';
import { type SignedStorage, serveStored } from '../shared/storage';
import { isUploadProblem, readUploadForm } from '../shared/upload-form';

export interface FileDeps {
	storage: SignedStorage;
	/** Owner of every file (the runner stores outputs under the job's account). */
	accountId: string;
	uploads: UploadedInput[];
	uploadLimitBytes(): number;
}

const FOLDERS = new Set(['input', 'output', 'temp']);
const ROOT = '/folder';

/**
 * Where `parts` joined onto a folder lead, as path segments inside it; undefined when they leave
 * it. As on the server, a part starting with `/` replaces what came before it.
 */
export function segmentsInside(...parts: string[]): string[] | undefined {
	let path = ROOT;
	for (const part of parts) path = part.startsWith('/') ? part : posix.join(path, part);
	const normal = posix.normalize(path);
	if (normal === ROOT) return [];
	if (!normal.startsWith(`${ROOT}/`)) return undefined;
	return normal.slice(ROOT.length + 1).split('/');
}

/** `name [output]` picks the folder in the name itself. */
function annotated(name: string): { name: string; folder?: string } {
	for (const folder of FOLDERS) {
		if (name.endsWith(`[${folder}]`)) return { name: name.slice(0, -(folder.length + 3)), folder };
	}
	return { name };
}

/** An answer without a body, typed as upstream's aiohttp types it. */
export function bare(res: ServerResponse, status: number): void {
	sendText(res, status, '', 'application/octet-stream');
}

/** The server's own crash answer (where it has no check and fails with an unhandled error). */
export function crash(res: ServerResponse): void {
	sendText(res, 500, '500 Internal Server Error');
}

export function createFileHandlers(deps: FileDeps) {
	const keyOf = (folder: string, segments: string[]) =>
		storageKey(deps.accountId, folder, segments.slice(0, -1).join('/'), segments.at(-1) ?? '');
	const exists = (folder: string, segments: string[]) => deps.storage.get(keyOf(folder, segments)) !== undefined;

	function view(req: SimRequest, res: ServerResponse): void {
		const given = req.query.get('filename');
		if (given === null) return bare(res, 404);
		const { name, folder: named } = annotated(given);
		if (name === '' || name.startsWith('/') || name.includes('..')) return bare(res, 400);
		const folder = named ?? req.query.get('type') ?? 'output';
		if (!FOLDERS.has(folder)) return bare(res, 400);
		const subfolder = req.query.get('subfolder');
		const dir = subfolder === null ? [] : segmentsInside(subfolder);
		if (!dir) return bare(res, 403);
		const base = posix.basename(name);
		const object = base === '' ? undefined : deps.storage.get(keyOf(folder, [...dir, base]));
		if (!object) return bare(res, 404);
		serveStored(req, res, object, { 'content-type': contentTypeOfName(base), 'content-disposition': `filename="${base}"` });
	}

	/** /upload/image, and /upload/mask, which writes the masked original instead of the part's bytes. */
	function upload(req: SimRequest, res: ServerResponse, mask: boolean): void {
		const form = readUploadForm(req, deps.uploadLimitBytes());
		if (isUploadProblem(form)) return form.status === 413 ? sendText(res, 413, form.message) : bare(res, 400);
		const { image, field } = form;
		if (!image.filename) return bare(res, 400);
		const folder = field('type') ?? 'input';
		if (!FOLDERS.has(folder)) return crash(res);
		const subfolder = field('subfolder') ?? '';
		const overwrite = field('overwrite') === 'true' || field('overwrite') === '1';
		const place = (name: string) => segmentsInside(posix.normalize(subfolder), name);
		let name = image.filename;
		let segments = place(name);
		if (!segments || segments.length === 0) return bare(res, 400);
		let duplicate = false;
		const ext = posix.extname(image.filename);
		const root = image.filename.slice(0, image.filename.length - ext.length);
		for (let i = 1; !overwrite && exists(folder, segments); i++) {
			const current = deps.storage.get(keyOf(folder, segments));
			if (Buffer.isBuffer(current?.body) && current.body.equals(image.data)) {
				duplicate = true;
				break;
			}
			name = `${root} (${i})${ext}`;
			segments = place(name) as string[];
		}
		if (!duplicate) {
			if (mask) {
				const written = writeMasked(field('original_ref'), folder, segments);
				if (written === 'crash') return crash(res);
			} else {
				deps.storage.put(keyOf(folder, segments), image.contentType ?? contentTypeOfName(name), Buffer.from(image.data));
			}
		}
		deps.uploads.push({
			accountId: deps.accountId,
			name,
			subfolder,
			type: folder,
			size: image.data.length,
			contentType: image.contentType ?? contentTypeOfName(name),
			mask,
		});
		res.writeHead(200, { 'content-type': 'application/json' });
		res.end(JSON.stringify({ name, subfolder, type: folder }));
	}

	/**
	 * The server writes the original image (original_ref: filename, subfolder, type, default output)
	 * with the mask as its alpha; when the original is missing or its reference is unsafe it writes
	 * nothing and still answers 200. Here the original's bytes stand for the masked image.
	 */
	function writeMasked(refText: string | undefined, folder: string, target: string[]): 'crash' | void {
		let ref: unknown;
		try {
			ref = JSON.parse(refText ?? '');
		} catch {
			return 'crash';
		}
		if (typeof ref !== 'object' || ref === null || typeof (ref as { filename?: unknown }).filename !== 'string') return 'crash';
		const r = ref as { filename: string; subfolder?: unknown; type?: unknown };
		const { name, folder: named } = annotated(r.filename);
		if (name === '' || name.startsWith('/') || name.includes('..')) return;
		const originalFolder = named ?? (typeof r.type === 'string' ? r.type : 'output');
		if (!FOLDERS.has(originalFolder)) return;
		const segments = segmentsInside(typeof r.subfolder === 'string' ? r.subfolder : '', name);
		const original = segments && deps.storage.get(keyOf(originalFolder, segments));
		if (original) deps.storage.put(keyOf(folder, target), 'image/png', original.body);
	}

	return {
		view,
		uploadImage: (req: SimRequest, res: ServerResponse) => upload(req, res, false),
		uploadMask: (req: SimRequest, res: ServerResponse) => upload(req, res, true),
	};
}

/** What LoadImage accepts for an uploaded input: its path inside the input folder. */
export function loadableName(upload: UploadedInput): string {
	return (segmentsInside(posix.normalize(upload.subfolder ?? ''), upload.name) ?? [upload.name]).join('/');
}
