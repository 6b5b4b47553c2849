/**
 * The output item of a finished job, shaped for the next node without a Code node:
 * `{prompt_id, status, images: [{filename, subfolder, type, node_id, url}], videos, audio, files}`,
 * so `{{ $json.images[0].url }}` works; optionally the files (and the last preview) as binary data.
 */
import type { IBinaryKeyData, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { FinishedJob } from './tracked-job';
import { collectOutputFiles, downloadOutputFile, fileAddressFor, type FileKind } from './output-files';

export interface ResultOptions {
	/** Download every file into binary data (image_0, video_0, audio_0, file_0...). */
	download: boolean;
	includePreview?: boolean;
	includeRawOutputs?: boolean;
}

const GROUP_BY_KIND: Record<FileKind, 'images' | 'videos' | 'audio' | 'others'> = {
	image: 'images',
	video: 'videos',
	audio: 'audio',
	file: 'others',
};

/** Files of a job's outputs with their signed URLs, grouped by kind, and the binary data when asked. */
export async function filesItem(
	context: IExecuteFunctions,
	outputs: Record<string, unknown>,
	itemIndex: number,
	promptId: string,
	download: boolean,
): Promise<{ json: IDataObject; binary?: IBinaryKeyData }> {
	const refs = collectOutputFiles(outputs);
	const where = { itemIndex, promptId };
	// Addresses in parallel (one short request each, a few at a time: see FILE_REQUESTS_AT_ONCE);
	// downloads one by one, streamed, so a job never holds several large files at once.
	const urls = await Promise.all(refs.map(async (ref) => await fileAddressFor(context, ref, where)));
	const groups: Record<string, IDataObject[]> = { images: [], videos: [], audio: [], others: [] };
	const counters: Record<FileKind, number> = { image: 0, video: 0, audio: 0, file: 0 };
	const files: IDataObject[] = [];
	const binary: IBinaryKeyData = {};
	for (const [index, ref] of refs.entries()) {
		const file: IDataObject = { ...(ref as IDataObject), url: urls[index] };
		if (download) {
			const property = `${ref.kind}_${counters[ref.kind]++}`;
			binary[property] = await downloadOutputFile(context, urls[index], ref, where);
			file.binary_property = property;
		}
		groups[GROUP_BY_KIND[ref.kind]].push(file);
		files.push(file);
	}
	const json: IDataObject = { images: groups.images, videos: groups.videos, audio: groups.audio, files };
	return download && files.length ? { json, binary } : { json };
}

/** The output item of a job that completed. */
export async function finishedJobItem(
	context: IExecuteFunctions,
	job: FinishedJob,
	itemIndex: number,
	options: ResultOptions,
): Promise<INodeExecutionData> {
	const files = await filesItem(context, job.outputs, itemIndex, job.promptId, options.download);
	const json: IDataObject = { prompt_id: job.promptId, status: job.status, ...files.json };
	if (job.recovered) json.outputs_from_job_record = true;
	if (options.includeRawOutputs) json.outputs = job.outputs as IDataObject;
	const item: INodeExecutionData = { json, pairedItem: { item: itemIndex } };
	if (files.binary) item.binary = files.binary;
	if (options.includePreview && job.preview) {
		const extension = job.preview.mimeType === 'image/jpeg' ? 'jpg' : 'png';
		item.binary ??= {};
		item.binary.preview = await context.helpers.prepareBinaryData(job.preview.image, `preview.${extension}`, job.preview.mimeType);
	}
	return item;
}
