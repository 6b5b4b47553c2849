/**
 * The output item of a finished job, shaped for the next node without a Code node:
 * `{prompt_id, status, images: [{filename, subfolder, type, node_id, url}], videos, audio, files}`,
 * so `{{ $json.images[0].url }}` works; optionally the files (and the last preview) as binary data.
 * A tool call gets the compact shape of `tool-result.ts` instead, and never the files.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { hostCloudServer } from '../../transport/cloud-service';
import {
	completedForTool,
	runningForTool,
	SERVER_LINK_LIFETIME,
	SERVICE_LINK_LIFETIME,
	toolOutput,
} from '../../../shared/tools/tool-result';
import type { FinishedJob } from './tracked-job';
import { filesItem, filesWithAddresses, type FileDownload } from '../job-reports/files-item';

/** The binary field of the last in-progress preview. */
export const PREVIEW_FIELD = 'preview';

export interface ResultOptions {
	/** Download every file into binary data; undefined: list them only. */
	download?: FileDownload;
	includePreview?: boolean;
	includeRawOutputs?: boolean;
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
