/**
 * A job's output files as the fields of its item (`images`, `videos`, `audio`, `files`, each file
 * with its signed URL), and their binary data when asked: the same for Execute's finished job,
 * Get History's entries and the trigger's ended job.
 */
import type { IBinaryKeyData, IDataObject } from 'n8n-workflow';

import { binaryFieldFor } from '../../../shared/binary/result-files';
import type { RunContext } from '../../../shared/transport/transport';
import { collectOutputFiles, downloadOutputFile, fileAddressFor, type FileKind, type OutputFileRef } from '../files/output-files';

/**
 * Where downloaded files go: `binaryPropertyName`, then `_1`, `_2`... (version 3), or, without it,
 * named by kind: image_0, video_0, audio_0, file_0... (versions 1 and 2).
 */
export interface FileDownload {
	binaryPropertyName?: string;
}

const GROUP_BY_KIND: Record<FileKind, 'images' | 'videos' | 'audio' | 'others'> = {
	image: 'images',
	video: 'videos',
	audio: 'audio',
	file: 'others',
};

/** Every file of a job's outputs and its address (in parallel: one short request each, a few at a time, see FILE_REQUESTS_AT_ONCE). */
export async function filesWithAddresses(
	context: RunContext,
	outputs: Record<string, unknown>,
	where: { itemIndex: number; promptId: string },
): Promise<{ refs: OutputFileRef[]; urls: string[] }> {
	const refs = collectOutputFiles(outputs);
	return { refs, urls: await Promise.all(refs.map(async (ref) => await fileAddressFor(context, ref, where))) };
}

/** Files of a job's outputs with their signed URLs, grouped by kind, and the binary data when asked. */
export async function filesItem(
	context: RunContext,
	outputs: Record<string, unknown>,
	itemIndex: number,
	promptId: string,
	download: FileDownload | undefined,
): Promise<{ json: IDataObject; binary?: IBinaryKeyData }> {
	const where = { itemIndex, promptId };
	// Downloads one by one, streamed, so a job never holds several large files at once.
	const { refs, urls } = await filesWithAddresses(context, outputs, where);
	const groups: Record<string, IDataObject[]> = { images: [], videos: [], audio: [], others: [] };
	const counters: Record<FileKind, number> = { image: 0, video: 0, audio: 0, file: 0 };
	const files: IDataObject[] = [];
	const binary: IBinaryKeyData = {};
	for (const [index, ref] of refs.entries()) {
		const file: IDataObject = { ...(ref as IDataObject), url: urls[index] };
		if (download) {
			const property =
				download.binaryPropertyName === undefined
					? `${ref.kind}_${counters[ref.kind]++}`
					: binaryFieldFor(download.binaryPropertyName, index);
			binary[property] = await downloadOutputFile(context, urls[index], ref, where);
			file.binary_property = property;
		}
		groups[GROUP_BY_KIND[ref.kind]].push(file);
		files.push(file);
	}
	const json: IDataObject = { images: groups.images, videos: groups.videos, audio: groups.audio, files };
	return download && files.length ? { json, binary } : { json };
}
