/**
 * v2: the JSON a client reads: assets, outputs and jobs, with links made fresh on every read
 * (the contract: "Re-fetching always yields fresh URLs").
 */
import type { AssetRecord } from './assets';
import { outputType, type V2Job } from './jobs';

/** How links are made on this surface. */
export interface Links {
	/** A job's self, events or cancel link (absolute, or host-relative when mounted under a prefix). */
	job(id: string, tail: '' | '/events' | '/cancel'): string;
	/** A short-lived absolute URL of an asset's bytes, and when it stops working (ms). */
	content(record: AssetRecord): { url: string; expiresAt: number };
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function assetJson(record: AssetRecord, links: Links, createdNew?: boolean): Record<string, unknown> {
	const { url, expiresAt } = links.content(record);
	return {
		id: record.id,
		hash: record.hash,
		size_bytes: record.size,
		content_type: record.contentType,
		file_path: record.filePath,
		...(createdNew === undefined ? {} : { created_new: createdNew }),
		created_at: iso(record.createdAt),
		url,
		url_expires_at: iso(expiresAt),
		expires_at: iso(record.expiresAt),
		// "Absent for uploaded assets, which have no producing job."
		...(record.jobId === null ? {} : { job_id: record.jobId }),
	};
}

export function outputJson(nodeId: string, record: AssetRecord, links: Links): Record<string, unknown> {
	const { url, expiresAt } = links.content(record);
	return {
		node_id: nodeId,
		name: record.filePath ?? record.id,
		type: outputType(record.contentType),
		content_type: record.contentType,
		size_bytes: record.size,
		id: record.id,
		hash: record.hash,
		url,
		url_expires_at: iso(expiresAt),
		job_id: record.jobId,
	};
}

/** The job object; `logs` only where asked (GET on a deployment, once finished). */
export function jobJson(job: V2Job, links: Links, logs?: { text: string; capturedAt: number }): Record<string, unknown> {
	return {
		id: job.id,
		status: job.status,
		created_at: iso(job.createdAt),
		started_at: iso(job.startedAt),
		completed_at: iso(job.completedAt),
		expires_at: iso(job.expiresAt),
		queue_position: job.queuePosition,
		progress: job.progress,
		outputs: job.outputs.map((o) => outputJson(o.nodeId, o.asset, links)),
		error: job.error,
		...(logs ? { logs: { text: logs.text, truncated: false, captured_at: iso(logs.capturedAt) } } : {}),
		urls: { self: links.job(job.id, ''), events: links.job(job.id, '/events'), cancel: links.job(job.id, '/cancel') },
	};
}
