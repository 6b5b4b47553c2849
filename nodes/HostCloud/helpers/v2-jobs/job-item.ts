/**
 * A v2 job as an output item, like v1's: its outputs grouped by kind (`images`, `videos`, `audio`,
 * `others`), each with its link, the link's expiry, its node, name, kind, content type, size and
 * asset id; the job named as `job_id` (the contract's word) and `prompt_id` (the same id, so a chain
 * built on v1's field works on both). With Download Files, each output's bytes as binary data.
 */
import type { IBinaryKeyData, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { binaryFieldFor } from '../../../shared/binary/result-files';
import { runningForTool } from '../../../shared/tools/tool-result';
import { V2_NO_TOOL_COLLECTS } from '../../transport/v2-service';
import { assetToBinary } from '../assets/asset-files';
import type { JobOutput, V2Job } from './job-record';

/** Where downloaded files go: `binaryPropertyName`, `_1`... (or, without it, by kind: image_0, video_0...). */
export interface V2Download {
	binaryPropertyName?: string;
}

const GROUPS: Record<string, 'images' | 'videos' | 'audio' | 'others'> = { image: 'images', video: 'videos', audio: 'audio' };

/** An output as the item lists it. */
function outputFields(output: JobOutput): IDataObject {
	return {
		asset_id: output.id,
		node_id: output.node_id,
		name: output.name,
		type: output.type,
		content_type: output.content_type,
		size_bytes: output.size_bytes,
		url: output.url,
		url_expires_at: output.url_expires_at,
	};
}

/** A job a v2 tool left running (Submit, or Execute at its Tool Wait): named, and said to be out of any tool's reach. */
export function runningV2JobForTool(jobId: string, waitedMs?: number): IDataObject {
	return runningForTool({ job_id: jobId, prompt_id: jobId }, V2_NO_TOOL_COLLECTS, waitedMs);
}

/** The job's status fields every item about it carries. */
export function jobFields(job: V2Job): IDataObject {
	const fields: IDataObject = { job_id: job.id, prompt_id: job.id, status: job.status };
	if (job.created_at) fields.created_at = job.created_at;
	if (job.completed_at) fields.completed_at = job.completed_at;
	if (job.expires_at) fields.expires_at = job.expires_at;
	return fields;
}

/** The job's outputs as the item's fields, grouped by kind (nothing dropped: text, file and latent go to `others`). */
export function outputGroups(job: V2Job): IDataObject {
	const groups: Record<string, IDataObject[]> = { images: [], videos: [], audio: [], others: [] };
	for (const output of job.outputs) groups[GROUPS[output.type] ?? 'others']!.push(outputFields(output));
	return { ...groups, output_count: job.outputs.length };
}

/** The finished job's item: its fields, its outputs, and their bytes when `download` says where (one at a time, streamed). */
export async function v2JobItem(
	context: IExecuteFunctions,
	job: V2Job,
	itemIndex: number,
	download: V2Download | undefined,
): Promise<INodeExecutionData> {
	const json: IDataObject = { ...jobFields(job), ...outputGroups(job) };
	if (!download) return { json };
	const binary: IBinaryKeyData = {};
	const counters: Record<string, number> = {};
	const lists = json as Record<string, IDataObject[]>;
	for (const [index, output] of job.outputs.entries()) {
		const kind = GROUPS[output.type] ? output.type : 'file';
		const property =
			download.binaryPropertyName === undefined
				? `${kind}_${(counters[kind] = (counters[kind] ?? -1) + 1)}`
				: binaryFieldFor(download.binaryPropertyName, index);
		binary[property] = await assetToBinary(context, output, itemIndex);
		const listed = lists[GROUPS[output.type] ?? 'others']!.find(
			(file) => file.asset_id === output.id && file.binary_property === undefined,
		);
		if (listed) listed.binary_property = property;
	}
	return { json, binary };
}
