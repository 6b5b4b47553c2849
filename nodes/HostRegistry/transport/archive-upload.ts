/**
 * Sends a node version's archive to the signed upload URL the registry hands out on publish.
 * This is the one call of the node that does not go through the credentialed transport
 * (registry-api.ts): the storage host is another origin, and the Host API credential must never
 * reach it, so the request goes out as the transport's storage request and carries no credential at
 * all (the signature in the URL is the permission), within the same idle limit as every request.
 * Only a 2xx answer counts as uploaded; 5xx and network failures are retried, since a PUT to the
 * same URL is safe to repeat and a lost archive leaves the version pending for good.
 */
import type { IBinaryData, IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { notAWebAddress } from '../../shared/transport/service-values';
import { networkFailureReason } from '../../shared/transport/network-failure';
import { pause } from '../../shared/waits/pause';
import { REDACTED } from '../../shared/transport/redaction';
import { RETRY_DELAYS_MS } from '../../shared/transport/retry';
import { abandon, readStorageText, retryFits, storageIdleMs, storageReadMs, storageRequest } from '../../shared/transport/transport';
import { asksToSlowDown, retryAfterMs, slowDownPlan, waitForService, waitSeconds } from '../../shared/transport/slow-down';

/** A whole archive is sent again on each try: two retries, not three. */
const UPLOAD_ATTEMPTS = 3;

type BinaryStream = Awaited<ReturnType<IExecuteFunctions['helpers']['getBinaryStream']>>;

export interface ArchiveUploadResult {
	uploaded: boolean;
	/** Status of the storage host's last answer (absent after a network failure). */
	statusCode?: number;
	bytes: number;
	fileName?: string;
	attempts: number;
	/** Why the upload failed, in words a user can act on. */
	reason?: string;
}

/** The archive's size in bytes, read without loading a stored file into memory. */
export async function archiveSize(context: IExecuteFunctions, itemIndex: number, archive: IBinaryData): Promise<number> {
	if (archive.id) return (await context.helpers.getBinaryMetadata(archive.id)).fileSize;
	return (await context.helpers.getBinaryDataBuffer(itemIndex, archive)).length;
}

/** A fresh body for each attempt: a stream for stored files, the bytes otherwise. */
async function archiveBody(context: IExecuteFunctions, itemIndex: number, archive: IBinaryData): Promise<Buffer | BinaryStream> {
	if (archive.id) return await context.helpers.getBinaryStream(archive.id);
	return await context.helpers.getBinaryDataBuffer(itemIndex, archive);
}

function storageText(text: string): string {
	// Storage error pages are XML or text; keep the gist and never echo a (signed) URL.
	return text
		.replace(/<[^>]+>/g, ' ')
		.replace(/https?:\/\/\S+/g, '[url]')
		.replace(/\s+/g, ' ')
		.trim()
		.slice(0, 200);
}

export async function uploadArchive(
	context: IExecuteFunctions,
	itemIndex: number,
	signedUrl: string,
	archive: IBinaryData,
	bytes: number,
): Promise<ArchiveUploadResult> {
	const signal = context.getExecutionCancelSignal();
	const result: ArchiveUploadResult = { uploaded: false, bytes, fileName: archive.fileName, attempts: 0 };
	// A malformed answer is no network trouble: nothing to send, nothing to retry (and the address is not repeated).
	const unusable = notAWebAddress(signedUrl, 'uploaded to');
	if (unusable) return { ...result, reason: `the upload address the registry gave is unusable: ${unusable}` };
	// The answer was redacted: a secret of the credential, in any spelling, became *** in the address.
	if (signedUrl.includes(REDACTED))
		return {
			...result,
			reason: 'the upload address the registry gave holds a secret of the credential, which must not reach the storage host',
		};
	const startedAt = Date.now();
	let slowDowns = 0;
	for (let attempt = 1; attempt <= UPLOAD_ATTEMPTS; attempt++) {
		result.attempts = attempt;
		let retryable = false;
		let waitMs: number | undefined;
		try {
			// The storage host's answer is its status: what follows is read only for its words, then the connection is closed.
			const giveUp = new AbortController();
			const response = await storageRequest(context, {
				method: 'PUT',
				url: signedUrl,
				body: await archiveBody(context, itemIndex, archive),
				headers: { 'Content-Type': 'application/zip', 'Content-Length': bytes },
				stop: giveUp.signal,
			});
			result.statusCode = response.statusCode;
			if (response.statusCode >= 200 && response.statusCode < 300) {
				abandon(response.body, giveUp);
				result.uploaded = true;
				delete result.reason;
				return result;
			}
			const said = storageText(await readStorageText(response.body, signal));
			abandon(response.body, giveUp);
			result.reason = `the storage host answered HTTP ${response.statusCode}${said ? ` (${said})` : ''}`;
			retryable = response.statusCode >= 500;
			// A host that asks to slow down did not take the archive: it is sent again after the wait it asks, no failed try.
			if (asksToSlowDown(response.statusCode, response.headers as IDataObject, { method: 'PUT' })) {
				const asked = retryAfterMs((response.headers as IDataObject)['retry-after']);
				const plan = slowDownPlan(asked, ++slowDowns, { readDeadline: startedAt + storageReadMs() - storageIdleMs() });
				if (plan && 'tooLong' in plan)
					result.reason = `${result.reason}; it asked to wait ${waitSeconds(plan.tooLong.askedMs)} s, more than the upload may take`;
				else if (plan) waitMs = plan.waitMs;
			}
		} catch (error) {
			if (signal?.aborted) {
				result.reason = 'the execution was cancelled during the upload';
				return result;
			}
			result.reason = networkFailureReason(error, 'the storage host', storageIdleMs());
			retryable = true;
		}
		if (waitMs !== undefined) {
			try {
				await waitForService(context, itemIndex, waitMs, signal);
			} catch {
				result.reason = `${result.reason}; the execution was cancelled before a retry`;
				break;
			}
			attempt--;
			continue;
		}
		// Another try only where its pause and a whole idle limit still fit the read limit.
		if (!retryable || attempt >= UPLOAD_ATTEMPTS || !retryFits(startedAt, attempt)) break;
		try {
			await pause(RETRY_DELAYS_MS[attempt - 1]!, signal);
		} catch {
			result.reason = `${result.reason}; the execution was cancelled before a retry`;
			break;
		}
	}
	return result;
}
