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
import { abandon, readStorageText, storageRequest } from '../../shared/transport/transport';
import { retryFits, storageIdleMs, storageSlowDownPlan } from '../../shared/transport/request-limits';
import { slowDownAsked, type SlowDownAnswer, tooLongWords, waitForService, waitSeconds } from '../../shared/transport/slow-down';

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

/** Why the registry's upload address cannot be used (nothing is sent to it), or undefined when it can. */
function unusableAddress(signedUrl: string): string | undefined {
	// A malformed answer is no network trouble: nothing to send, nothing to retry (and the address is not repeated).
	const unusable = notAWebAddress(signedUrl, 'uploaded to');
	if (unusable) return `the upload address the registry gave is unusable: ${unusable}`;
	// The answer was redacted: a secret of the credential, in any spelling, became *** in the address.
	if (signedUrl.includes(REDACTED))
		return 'the upload address the registry gave holds a secret of the credential, which must not reach the storage host';
	return undefined;
}

/** What one PUT came to: uploaded, or why not, whether another try may fare better, and a "slow down" the host asked for. */
interface PutOutcome {
	uploaded: boolean;
	/** The status the host answered (absent when no answer came). */
	statusCode?: number;
	reason?: string;
	retryable: boolean;
	slowDown?: SlowDownAnswer;
	cancelled?: boolean;
}

/** The archive to send and where: a signed address and the size the PUT declares. */
interface ArchiveTarget {
	signedUrl: string;
	archive: IBinaryData;
	bytes: number;
}

/** Sends the archive once; the host's answer is its status, read on only for its words, then the connection is closed. */
async function putArchive(context: IExecuteFunctions, itemIndex: number, target: ArchiveTarget, signal?: AbortSignal): Promise<PutOutcome> {
	let statusCode: number | undefined;
	try {
		const giveUp = new AbortController();
		const response = await storageRequest(context, {
			method: 'PUT',
			url: target.signedUrl,
			body: await archiveBody(context, itemIndex, target.archive),
			headers: { 'Content-Type': 'application/zip', 'Content-Length': target.bytes },
			stop: giveUp.signal,
		});
		statusCode = response.statusCode;
		if (statusCode >= 200 && statusCode < 300) {
			abandon(response.body, giveUp);
			return { uploaded: true, statusCode, retryable: false };
		}
		const said = storageText(await readStorageText(response.body, signal));
		abandon(response.body, giveUp);
		const reason = `the storage host answered HTTP ${statusCode}${said ? ` (${said})` : ''}`;
		const slowDown = slowDownAsked(statusCode, response.headers as IDataObject, 'PUT');
		return { uploaded: false, statusCode, reason, retryable: statusCode >= 500, slowDown };
	} catch (error) {
		if (signal?.aborted)
			return { uploaded: false, statusCode, reason: 'the execution was cancelled during the upload', retryable: false, cancelled: true };
		return { uploaded: false, statusCode, reason: networkFailureReason(error, 'the storage host', storageIdleMs()), retryable: true };
	}
}

/**
 * Sends the archive to the signed address, trying again after a 5xx or a network failure while the
 * read limit allows, and waiting as asked when the host says to slow down (that wait is no failed try).
 */
export async function uploadArchive(
	context: IExecuteFunctions,
	itemIndex: number,
	signedUrl: string,
	archive: IBinaryData,
	bytes: number,
): Promise<ArchiveUploadResult> {
	const signal = context.getExecutionCancelSignal();
	const result: ArchiveUploadResult = { uploaded: false, bytes, fileName: archive.fileName, attempts: 0 };
	const unusable = unusableAddress(signedUrl);
	if (unusable) return { ...result, reason: unusable };
	const startedAt = Date.now();
	const tries = { failed: 0, slowDowns: 0 };
	for (;;) {
		// Every PUT counts as an attempt.
		result.attempts++;
		const put = await putArchive(context, itemIndex, { signedUrl, archive, bytes }, signal);
		if (put.statusCode !== undefined) result.statusCode = put.statusCode;
		if (put.uploaded) {
			result.uploaded = true;
			delete result.reason;
			return result;
		}
		result.reason = put.reason;
		if (put.cancelled) return result;
		const next = nextPut(put, tries, startedAt);
		if (next.note) result.reason = `${result.reason}; ${next.note}`;
		if (next.waitMs === undefined) return result;
		try {
			// A wait the host asked for counts as the item's wait for the service; a retry's pause does not.
			if (next.asked) await waitForService(context, itemIndex, next.waitMs, signal);
			else await pause(next.waitMs, signal);
		} catch {
			result.reason = `${result.reason}; the execution was cancelled before a retry`;
			return result;
		}
	}
}

/**
 * The wait before the next PUT after one that failed: the one the host asked for (no failed try),
 * or the retry table's pause; none when the upload ends here. `note` adds to the reason.
 */
function nextPut(
	put: PutOutcome,
	tries: { failed: number; slowDowns: number },
	startedAt: number,
): { waitMs?: number; asked?: boolean; note?: string } {
	// A host that asks to slow down did not take the archive: it is sent again after the wait it asks.
	const plan = put.slowDown && storageSlowDownPlan(put.slowDown.askedMs, ++tries.slowDowns, startedAt);
	if (plan && 'waitMs' in plan) return { waitMs: plan.waitMs, asked: true };
	const note = plan
		? `it asked to wait ${waitSeconds(plan.tooLong.askedMs)} s${tooLongWords(plan.tooLong)} of the time the upload may take`
		: undefined;
	tries.failed++;
	// Another try only where its pause and a whole idle limit still fit the read limit.
	if (!put.retryable || tries.failed >= UPLOAD_ATTEMPTS || !retryFits(startedAt, tries.failed)) return { note };
	return { waitMs: RETRY_DELAYS_MS[tries.failed - 1]!, note };
}
