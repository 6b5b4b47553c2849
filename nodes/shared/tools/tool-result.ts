/**
 * What a tool call answers an AI agent or MCP client about a job, one shape for Host Cloud jobs and
 * Host Media tasks:
 * - `{status: "completed", <ids>, outputs: [{kind, mime_type, url, url_valid_for, ...}]}`, each
 *   output once;
 * - `{status: "running", <ids>, message}`: the job goes on, and the message says which tool to call
 *   with which id to collect it.
 * The ids are those the status tool takes. Nothing a model cannot use (node ids, subfolders, raw
 * outputs, the same file listed twice) and never binary data: a model pays for every token.
 */
import type { IDataObject } from 'n8n-workflow';

import { mimeTypeForExtension } from '../binary/file-types';

/**
 * The spec states no lifetime for the service's output links (signed storage URLs, result URLs of
 * media tasks): the model is told so instead of being given a made-up time.
 */
export const SERVICE_LINK_LIFETIME = 'not stated by the service: the link expires, so fetch it or pass it on soon';

/** A self-hosted server's /api/view link does not expire. */
export const SERVER_LINK_LIFETIME = 'as long as your server keeps the file';

export type ToolOutput = IDataObject & { kind: string; mime_type: string; url: string; url_valid_for: string };

/** One output of a job as a tool answers it; `extra` holds what the model needs to use it further (a creation id...). */
export function toolOutput(
	file: { url: string; kind: string; mimeType: string },
	lifetime = SERVICE_LINK_LIFETIME,
	extra: IDataObject = {},
): ToolOutput {
	return { kind: file.kind, mime_type: file.mimeType, url: file.url, url_valid_for: lifetime, ...extra };
}

/** The MIME type a link's path names by its extension, or the kind's fallback. */
export function mimeTypeOfLink(url: string, fallback: string): string {
	let path = url;
	try {
		path = new URL(url).pathname;
	} catch {
		// Not an absolute URL: read its extension as it is.
	}
	const extension = /\.([a-z0-9]+)$/i.exec(path)?.[1];
	return (extension && mimeTypeForExtension(extension)) || fallback;
}

/** A finished job with its outputs. */
export function completedForTool(ids: IDataObject, outputs: ToolOutput[]): IDataObject {
	return { status: 'completed', ...ids, outputs };
}

/**
 * A job that is not finished yet: `waitedMs` is how long this call waited (none when it did not
 * wait), `next` what to call to collect it.
 */
export function runningForTool(ids: IDataObject, next: string, waitedMs?: number): IDataObject {
	const waited = waitedMs === undefined ? 'Started.' : `Still running after ${Math.round(waitedMs / 1000)} s.`;
	return { status: 'running', ...ids, message: `${waited} It goes on running on the service (it was not cancelled). ${next}` };
}

/**
 * The part of a tool description that says what the tool answers, in the words of the shapes
 * above: `ids` are the id fields ("prompt_id"), `statusTool` what collects a job still running.
 */
export function describeToolAnswer(ids: string[], statusTool: string): string {
	const fields = ids.map((id) => `"${id}"`).join(', ');
	const same = ids.join(' and ');
	return (
		`It answers {"status": "completed", ${fields}, "outputs": [{"kind", "mime_type", "url", "url_valid_for"}]}; the URLs are temporary links, so fetch them or pass them on soon. ` +
		`If the job is not finished within the wait of one call (under a minute), it answers {"status": "running", ${fields}, "message"}: the job goes on, and ${statusTool} with the same ${same} collects it. A failed job is answered as an error that says why.`
	);
}
