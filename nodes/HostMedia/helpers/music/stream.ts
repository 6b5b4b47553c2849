/**
 * music/: the text-to-music stream (NDJSON lines, the events kept in items, its errors). It may
 * call transport/ and nodes/shared; nothing in tasks/ or inputs/: music is streamed, not a task.
 *
 * Reads the text-to-music NDJSON stream as it arrives: titles, duration and other events are
 * collected (bounded, see events.ts), and the base64 audio chunks of each take (stream_index)
 * are decoded one by one and written into that take's own binary file through a byte channel, so
 * memory stays small however long the music is. The file's MIME type is recognised from its first
 * bytes. The read ends at "complete" or "error", or when nothing arrives for the idle timeout; the
 * connection is then closed, never left to the service.
 */
import type { IBinaryData, IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { errorForItem } from '../../../shared/items/items';
import { isNetworkFailure, networkFailureReason } from '../../../shared/transport/network-failure';
import { IdleTimeoutError, isAsyncIterable, readableClassOf, TotalTimeoutError, withIdleTimeout } from '../../../shared/binary/streams';
import { credentialSecrets } from '../../../shared/transport/redaction';
import { HOST_API } from '../../../shared/transport/host-api';
import type { OpenStream } from '../../transport/media-api';
import { holeError, NOTHING_STARTED, overdueError, silentError } from './errors';
import { keptText, keptValue, MusicEventLog } from './events';
import { isBase64, readNdjson } from './ndjson';
import { abandonTakes, addAudio, type AudioStore, isWhole, LENGTH_HEAD_BYTES, newTake, startStoring, type Take, takeFacts } from './takes';

/**
 * Takes one stream may announce: the real service makes a few per prompt, and each take is an
 * output item of its own, so a stream naming thousands of them must not become thousands of items.
 */
const MAX_TAKES = 32;

export interface MusicTake {
	json: IDataObject;
	binary?: IBinaryData;
}

export interface MusicStreamOptions {
	itemIndex: number;
	/** Write the audio into binary data (otherwise chunks are only counted). */
	keepAudio: boolean;
	/** The read fails when nothing arrives for this long (milliseconds). */
	idleMs: number;
	/** The read fails when the stream has not completed after this long in all (milliseconds). */
	maxWaitMs: number;
	/** Pass on takes that may have a hole, marked so, instead of failing (the user opted in). */
	acceptIncomplete?: boolean;
}

const indexOf = (value: unknown): number | undefined =>
	typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;

/**
 * Opens the music stream with `open` and reads it whole: one entry per take, with its audio file
 * when kept. The service may fall silent before it answers at all, and that fails alike.
 */
export async function readMusicStream(
	context: IExecuteFunctions,
	open: () => Promise<OpenStream>,
	options: MusicStreamOptions,
): Promise<MusicTake[]> {
	const secrets = await credentialSecrets(context, HOST_API, options.itemIndex);
	let stream: OpenStream;
	try {
		stream = await open();
	} catch (error) {
		if (error instanceof IdleTimeoutError) throw silentError(context, options.itemIndex, error.idleMs, NOTHING_STARTED);
		throw errorForItem(context, error, options.itemIndex);
	}
	return await new MusicStreamReader(context, stream, options, secrets).read();
}

class MusicStreamReader {
	private readonly takes = new Map<number, Take>();
	private readonly events: MusicEventLog;
	private malformed = 0;
	private durationSec: number | undefined;
	private completed = false;
	private failure: { message: string; code: string } | undefined;
	/** Where the takes' audio is written. */
	private readonly store: AudioStore;
	private readonly body: AsyncIterable<Buffer>;

	constructor(
		private readonly context: IExecuteFunctions,
		private readonly stream: OpenStream,
		private readonly options: MusicStreamOptions,
		/** Replaced wherever the service echoes them into what is kept. */
		private readonly secrets: string[],
	) {
		this.events = new MusicEventLog(secrets);
		const body = stream.body;
		const Readable = readableClassOf(body);
		if (!Readable || !isAsyncIterable(body)) {
			stream.close();
			throw new NodeOperationError(context.getNode(), 'The music service did not answer with a stream', { itemIndex: options.itemIndex });
		}
		this.store = { context, Readable, keepAudio: options.keepAudio };
		this.body = body;
	}

	/** Reads the whole stream; answers one entry per take, with its audio file when kept. */
	async read(): Promise<MusicTake[]> {
		const signal = this.context.getExecutionCancelSignal();
		try {
			const bytes = withIdleTimeout(this.body, this.options.idleMs, signal, this.options.maxWaitMs);
			for await (const line of readNdjson(bytes, { base64Field: 'data' })) {
				if (signal?.aborted) break;
				if ('malformed' in line) {
					this.malformed++;
					continue;
				}
				await this.handle(line.event, line.bytes);
				// Nothing follows "complete" or "error": stop now (the `finally` closes the connection) rather than wait for the service to.
				if (this.failure || this.completed) break;
			}
		} catch (error) {
			await this.abandon();
			if (signal?.aborted) throw this.cancelled();
			if (error instanceof IdleTimeoutError) throw silentError(this.context, this.options.itemIndex, error.idleMs, this.progress());
			if (error instanceof TotalTimeoutError) throw overdueError(this.context, this.options.itemIndex, error.totalMs, this.progress());
			// Our own (too many takes).
			if (error instanceof NodeOperationError) throw errorForItem(this.context, error, this.options.itemIndex);
			const said = isNetworkFailure(error) ? networkFailureReason(error, 'the music service') : (error as Error).message;
			throw new NodeOperationError(this.context.getNode(), `The music stream broke off: ${said}`, {
				itemIndex: this.options.itemIndex,
				description: `${this.progress()} Try again.`,
			});
		} finally {
			// Whatever ended the read, the connection is closed here, never left to the service.
			this.stream.close();
		}
		if (signal?.aborted) {
			await this.abandon();
			throw this.cancelled();
		}
		if (this.failure) {
			await this.abandon();
			const { message, code } = this.failure;
			throw new NodeOperationError(this.context.getNode(), `The music service reported an error: ${message}${code ? ` (${code})` : ''}`, {
				itemIndex: this.options.itemIndex,
				description: 'The service stopped the stream. Change the prompt or try again later.',
			});
		}
		if (!this.completed) {
			await this.abandon();
			throw new NodeOperationError(this.context.getNode(), 'The music stream ended before it was complete (no "complete" event)', {
				itemIndex: this.options.itemIndex,
				description: `${this.progress()} No take is passed on, since its audio may be cut short. Try again.`,
			});
		}
		const holed = [...this.takes.values()].find((take) => this.mayHaveHole(take));
		if (holed && !this.options.acceptIncomplete) {
			await this.abandon();
			throw holeError(this.context, this.options.itemIndex, holed, this.malformed);
		}
		return await this.finish();
	}

	/**
	 * Whether a take's audio may not be whole: none of it arrived (the stream announced the take by
	 * its title, then completed without its audio), other than what its header announces arrived
	 * (less: a hole; more: audio of another take or stream mixed in), or a line could not be read
	 * and its format announces no length (the line may have been its chunk).
	 */
	private mayHaveHole(take: Take): boolean {
		if (take.bytes === 0) return true;
		return isWhole(take) === undefined ? this.malformed > 0 : !isWhole(take);
	}

	private chunkCount(): number {
		return [...this.takes.values()].reduce((sum, take) => sum + take.chunks, 0);
	}

	/**
	 * What had arrived when a stream stopped early. "Complete" only where the format says how long
	 * the file is (a WAV's RIFF header) and that much arrived; no take of such a stream is passed on.
	 */
	private progress(): string {
		const takes = [...this.takes.values()];
		if (takes.length === 0) return NOTHING_STARTED;
		const complete = takes.filter((take) => isWhole(take) === true).length;
		const unknown = takes.filter((take) => take.bytes >= LENGTH_HEAD_BYTES && take.declaredBytes === undefined).length;
		return (
			`Complete takes: ${complete} of ${takes.length} (a take is complete when the audio its WAV header announces has arrived, no less and no more)` +
			`${unknown > 0 ? `, ${unknown} of unknown length (its format does not announce one)` : ''}; audio chunks received: ${this.chunkCount()}.`
		);
	}

	private cancelled(): NodeOperationError {
		return new NodeOperationError(this.context.getNode(), 'The execution was canceled while the music was streaming', {
			itemIndex: this.options.itemIndex,
		});
	}

	private take(streamIndex: number): Take {
		let take = this.takes.get(streamIndex);
		if (!take) {
			if (this.takes.size >= MAX_TAKES) {
				throw new NodeOperationError(this.context.getNode(), `The music stream announced more than ${MAX_TAKES} takes`, {
					itemIndex: this.options.itemIndex,
					description: 'The service makes a few takes per prompt; a stream naming more is not read further. Try again.',
				});
			}
			take = newTake(streamIndex);
			this.takes.set(streamIndex, take);
		}
		return take;
	}

	private async handle(event: Record<string, unknown>, lineBytes: number): Promise<void> {
		switch (event.type) {
			case 'audio_chunk': {
				// Decoded by the NDJSON reader already; a Base64 string is the escaped-value fallback.
				const bytes = Buffer.isBuffer(event.data)
					? event.data
					: typeof event.data === 'string' && isBase64(Buffer.from(event.data, 'latin1'))
						? Buffer.from(event.data, 'base64')
						: undefined;
				// A chunk that does not name its take (a whole stream_index) is given to none: unreadable.
				const streamIndex = indexOf(event.stream_index);
				if (!bytes || streamIndex === undefined) {
					this.malformed++;
					return;
				}
				await addAudio(this.store, this.take(streamIndex), bytes);
				return;
			}
			case 'title': {
				// A title that does not name its take (a whole stream_index or copy_index) is given to none, as a chunk is.
				const streamIndex = indexOf(event.stream_index) ?? indexOf(event.copy_index);
				if (streamIndex === undefined) break;
				const take = this.take(streamIndex);
				if (typeof event.title === 'string') take.title = keptText(event.title, this.secrets);
				take.displayTags = keptValue(event.display_tags, this.secrets);
				take.copyIndex = keptValue(event.copy_index, this.secrets);
				take.promptIndex = keptValue(event.prompt_index, this.secrets);
				break;
			}
			case 'titles': {
				const titles = Array.isArray(event.titles) ? event.titles : [];
				titles.forEach((entry: unknown, position) => {
					const record = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>) : { title: entry };
					const take = this.take(indexOf(record.stream_index) ?? position);
					if (typeof record.title === 'string') take.title = keptText(record.title, this.secrets);
					if (record.display_tags !== undefined) take.displayTags = keptValue(record.display_tags, this.secrets);
				});
				break;
			}
			case 'duration': {
				const seconds = Number(event.duration_sec ?? event.duration);
				if (Number.isFinite(seconds)) this.durationSec = seconds;
				break;
			}
			case 'complete':
				this.completed = true;
				break;
			case 'error':
				this.failure = {
					message: typeof event.message === 'string' && event.message ? keptText(event.message, this.secrets) : 'no reason given',
					code: typeof event.code === 'string' ? keptText(event.code, this.secrets) : '',
				};
				break;
			default:
				break;
		}
		this.events.add(event, lineBytes);
	}

	/** Stops every take's file (error or cancellation) and lets the stores settle. */
	private async abandon(): Promise<void> {
		await abandonTakes(this.takes.values());
	}

	private async finish(): Promise<MusicTake[]> {
		for (const take of this.takes.values())
			if (!take.channel && take.headBytes > 0 && this.options.keepAudio) await startStoring(this.store, take);
		for (const take of this.takes.values()) take.channel?.end();
		const out: MusicTake[] = [];
		const takes = [...this.takes.values()].sort((a, b) => a.streamIndex - b.streamIndex);
		for (const take of takes) {
			let binary: IBinaryData | undefined;
			try {
				binary = take.store ? await take.store : undefined;
			} catch (error) {
				throw new NodeOperationError(
					this.context.getNode(),
					`The audio of take ${take.streamIndex + 1} could not be stored: ${(error as Error).message}`,
					{
						itemIndex: this.options.itemIndex,
					},
				);
			}
			out.push({ json: this.takeJson(take), binary });
		}
		if (out.length === 0) out.push({ json: this.takeJson(undefined) });
		return out;
	}

	private takeJson(take: Take | undefined): IDataObject {
		const json: IDataObject = take ? takeFacts(take) : {};
		if (this.durationSec !== undefined) json.duration_sec = this.durationSec;
		json.takes = this.takes.size;
		json.malformed_lines = this.malformed;
		// Passed on only because the user accepts incomplete takes: said on the take.
		if (take && this.mayHaveHole(take)) json.audio_may_be_incomplete = true;
		return { ...json, ...this.events.json() };
	}
}
