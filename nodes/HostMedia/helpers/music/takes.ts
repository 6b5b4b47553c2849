/**
 * One take of the music stream (its stream_index): the facts the stream told of it, and its audio,
 * decoded chunk by chunk and written through a byte channel into its own binary file once its first
 * bytes say what format it is. Its length, where its header declares one, tells whether it is whole.
 * The stream reader (stream.ts) hands each take its chunks and asks it for its item.
 */
import type { IBinaryData, IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { declaredFileBytes, extensionFor, sniffMimeType, SNIFF_BYTES } from '../../../shared/binary/file-types';
import { ByteChannel, readableClassOf, readableFrom } from '../../../shared/binary/streams';

/** Bytes of a file that say how long it is (RIFF), read from each take's first chunks. */
export const LENGTH_HEAD_BYTES = 8;

export interface Take {
	streamIndex: number;
	title?: string;
	displayTags?: IDataObject[string];
	copyIndex?: IDataObject[string];
	promptIndex?: IDataObject[string];
	/** The first LENGTH_HEAD_BYTES of its audio, and the file length they declare, if they do. */
	lead: Buffer;
	declaredBytes?: number;
	head: Buffer[];
	headBytes: number;
	channel?: ByteChannel;
	store?: Promise<IBinaryData>;
	mimeType?: string;
	bytes: number;
	chunks: number;
}

/** Where a take's audio is written: n8n's binary data, through the stream class of the answer's body. */
export interface AudioStore {
	context: IExecuteFunctions;
	Readable: NonNullable<ReturnType<typeof readableClassOf>>;
	/** Write the audio into binary data (otherwise chunks are only counted). */
	keepAudio: boolean;
}

export const newTake = (streamIndex: number): Take => ({ streamIndex, lead: Buffer.alloc(0), head: [], headBytes: 0, bytes: 0, chunks: 0 });

function fileBase(take: Take): string {
	const slug = (take.title ?? '')
		.normalize('NFKD')
		.replace(/[^\w\s-]/g, '')
		.trim()
		.replace(/\s+/g, '-')
		.toLowerCase()
		.slice(0, 60);
	return slug || `music-take-${take.streamIndex + 1}`;
}

/** One decoded chunk of a take: held until the format can be recognised, then written through. */
export async function addAudio(store: AudioStore, take: Take, bytes: Buffer): Promise<void> {
	if (take.bytes < LENGTH_HEAD_BYTES) {
		take.lead = Buffer.concat([take.lead, bytes.subarray(0, LENGTH_HEAD_BYTES - take.bytes)]);
		if (take.lead.length === LENGTH_HEAD_BYTES) take.declaredBytes = declaredFileBytes(take.lead);
	}
	take.bytes += bytes.length;
	take.chunks++;
	if (!store.keepAudio || bytes.length === 0) return;
	if (take.channel) return await take.channel.write(bytes);
	take.head.push(bytes);
	take.headBytes += bytes.length;
	if (take.headBytes >= SNIFF_BYTES) await startStoring(store, take);
}

/** Starts storing a take: from now on its chunks flow straight into n8n's binary data. */
export async function startStoring(store: AudioStore, take: Take): Promise<void> {
	const head = Buffer.concat(take.head);
	take.head = [];
	take.mimeType = sniffMimeType(head) ?? 'application/octet-stream';
	const extension = extensionFor(take.mimeType) ?? 'bin';
	const channel = new ByteChannel();
	take.channel = channel;
	take.store = store.context.helpers.prepareBinaryData(
		readableFrom(store.Readable, channel),
		`${fileBase(take)}.${extension}`,
		take.mimeType,
	);
	// If storing fails, stop feeding it; the error is reported when the store is awaited.
	take.store.catch(() => channel.close());
	await channel.write(head);
}

/** Stops every take's file (error or cancellation) and lets the stores settle. */
export async function abandonTakes(takes: Iterable<Take>): Promise<void> {
	const reason = new Error('music stream abandoned');
	const all = [...takes];
	for (const take of all) take.channel?.fail(reason);
	await Promise.allSettled(all.map(async (take) => await take.store));
}

/** Whether the whole of a take arrived as its header announced it (no less and no more); undefined for a format that announces no length. */
export const isWhole = (take: Take): boolean | undefined =>
	take.declaredBytes === undefined ? undefined : take.bytes === take.declaredBytes;

/** What the item says of a take: its index, what the stream told of it, and its audio's size and type. */
export function takeFacts(take: Take): IDataObject {
	const json: IDataObject = { stream_index: take.streamIndex };
	if (take.title !== undefined) json.title = take.title;
	if (take.displayTags !== undefined) json.display_tags = take.displayTags;
	if (take.copyIndex !== undefined) json.copy_index = take.copyIndex;
	if (take.promptIndex !== undefined) json.prompt_index = take.promptIndex;
	json.audio_bytes = take.bytes;
	json.audio_chunks = take.chunks;
	if (take.mimeType) json.mime_type = take.mimeType;
	return json;
}
