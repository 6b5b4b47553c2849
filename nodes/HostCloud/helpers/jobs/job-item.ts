/**
 * The output item of a finished job, shaped for the next node without a Code node:
 * `{prompt_id, status, images: [{filename, subfolder, type, node_id, url}], videos, audio, files}`,
 * so `{{ $json.images[0].url }}` works; optionally the files (and the last preview) as binary data.
 * A tool call gets the compact shape of `tool-result.ts` instead, and never the files.
 */
import type { IBinaryKeyData, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { binaryFieldFor } from '../../../shared/binary/result-files';
import type { RunContext } from '../../../shared/transport/transport';
import { hostCloudServer } from '../../transport/cloud-service';
import {
	completedForTool,
	runningForTool,
	SERVER_LINK_LIFETIME,
	SERVICE_LINK_LIFETIME,
	toolOutput,
} from '../../../shared/tools/tool-result';
import type { FinishedJob } from './tracked-job';
import { collectOutputFiles, downloadOutputFile, fileAddressFor, type FileKind, type OutputFileRef } from '../files/output-files';

/**
 * Where downloaded files go: `binaryPropertyName`, then `_1`, `_2`... (version 3), or, without it,
 * named by kind: image_0, video_0, audio_0, file_0... (versions 1 and 2).
 */
export interface FileDownload {
	binaryPropertyName?: string;
}

/** The binary field of the last in-progress preview. */
export const PREVIEW_FIELD = 'preview';

export interface ResultOptions {
	/** Download every file into binary data; undefined: list them only. */
	download?: FileDownload;
	includePreview?: boolean;
	includeRawOutputs?: boolean;
}

const GROUP_BY_KIND: Record<FileKind, 'images' | 'videos' | 'audio' | 'others'> = {
	image: 'images',
	video: 'videos',
	audio: 'audio',
	file: 'others',
};

/** Every file of a job's outputs and its address (in parallel: one short request each, a few at a time, see FILE_REQUESTS_AT_ONCE). */
async function filesWithAddresses(
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
		item.binary[PREVIEW_FIELD] = await context.helpers.prepareBinaryData(job.preview.image, `preview.${extension}`, job.preview.mimeType);
	}
	return item;
}

/** A finished job as a tool answers it: each output once, with its link; nothing is downloaded. */
export async function completedJobForTool(context: IExecuteFunctions, job: FinishedJob, itemIndex: number): Promise<INodeExecutionData> {
	const { refs, urls } = await filesWithAddresses(context, job.outputs, { itemIndex, promptId: job.promptId });
	const lifetime = (await hostCloudServer(context, itemIndex)).kind === 'cloud' ? SERVICE_LINK_LIFETIME : SERVER_LINK_LIFETIME;
	const outputs = refs.map((ref, index) => toolOutput({ url: urls[index]!, kind: ref.kind, mimeType: ref.mime_type }, lifetime));
	return { json: completedForTool({ prompt_id: job.promptId }, outputs), pairedItem: { item: itemIndex } };
}

/** A job a tool call stopped waiting for (or did not wait for): it goes on, and Get Status collects it. */
export function runningJobForTool(promptId: string, itemIndex: number, waitedMs?: number): INodeExecutionData {
	const next = `To get its outputs, call the Host Cloud "Get Status" tool with prompt_id "${promptId}" (each call waits up to its tool wait).`;
	return { json: runningForTool({ prompt_id: promptId }, next, waitedMs), pairedItem: { item: itemIndex } };
}
