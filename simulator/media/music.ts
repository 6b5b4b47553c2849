/**
 * Media proxy text-to-music: an NDJSON stream of `title` events (one per stream), a `duration` event,
 * `audio_chunk` events (base64 slices of a real PCM WAV per stream, streams interleaved) and
 * `complete`. Audio is generated on the fly and written with backpressure, so a stream of any size
 * costs the simulator a chunk of memory, not the file.
 */
import type { ServerResponse } from 'node:http';

import type { Faults } from '../shared/core';
import { ToneWav } from './formats';
import type { TimerSet } from './timers';
import type { MusicRequest } from './validation';

export interface MusicOptions {
	/** Parallel takes per request, each its own stream_index (default 2). */
	streams: number;
	/** Size of each stream's WAV file, header included (default 64 KiB). */
	audioBytesPerStream: number;
	/** Audio bytes per audio_chunk event before base64 (default 16 KiB). */
	chunkBytes: number;
	/** PCM sample rate of the WAV (default 16000 Hz, 16-bit mono). */
	sampleRate: number;
	/** Pause before each audio chunk, to simulate generation time (default 0). */
	chunkDelayMs: number;
}

export function defaultMusicOptions(): MusicOptions {
	return { streams: 2, audioBytesPerStream: 64 * 1024, chunkBytes: 16 * 1024, sampleRate: 16000, chunkDelayMs: 0 };
}

type MusicEvent = Record<string, unknown>;

/**
 * One line of the stream: an event, a deliberately broken line (malformedNdjson fault), or the
 * first part of a line after which the stream stops (chaos cut: ended orderly, or reset).
 */
type Line = { event: MusicEvent; bytes?: number } | { broken: string } | { pause: true } | { cut: string; reset: boolean };

/** Where a chaos fault cuts the stream: in an audio chunk's data or in another line, which one and how far in (fractions of 1). */
interface StreamCut {
	inAudio: boolean;
	pick: number;
	at: number;
}

interface StreamPlan {
	request: MusicRequest;
	options: MusicOptions;
	malformed: number;
	error?: { code: string; message: string };
	cut?: StreamCut;
}

/** The first part of `event`'s line, cut strictly inside it: inside the base64 data of an audio chunk. */
function cutLine(event: MusicEvent, cut: StreamCut): string {
	const text = JSON.stringify(event);
	const data = typeof event.data === 'string' ? event.data : undefined;
	if (!cut.inAudio || data === undefined || data.length < 2) return text.slice(0, 1 + Math.floor(cut.at * (text.length - 1)));
	const dataStart = text.indexOf('"data":"') + '"data":"'.length;
	return text.slice(0, dataStart + 1 + Math.floor(cut.at * (data.length - 1)));
}

const BROKEN_LINES = [
	'{"type":"audio_chunk","stream_index":0,"data":"UklGRiQ',
	'<html><body>502 Bad Gateway</body></html>',
	"{type: 'title', title: unquoted}",
	'{"type":"duration","duration_sec":}',
];

function titleFor(prompt: string, index: number): string {
	const words = prompt.trim().split(/\s+/).slice(0, 4).join(' ');
	const title = words.charAt(0).toUpperCase() + words.slice(1);
	return `${title} (take ${index + 1})`;
}

function tagsFor(prompt: string): string[] {
	const words = prompt.toLowerCase().match(/[a-z][a-z-]{3,}/g) ?? [];
	const tags = [...new Set(words)].slice(0, 3);
	return tags.length > 0 ? tags : ['instrumental'];
}

/** Even positions for `count` broken lines among `events` events (several may share a position). */
function brokenPositions(count: number, events: number): Map<number, number> {
	const positions = new Map<number, number>();
	for (let i = 0; i < count; i++) {
		const after = Math.floor(((i + 1) * events) / (count + 1));
		positions.set(after, (positions.get(after) ?? 0) + 1);
	}
	return positions;
}

/** The stream's lines in order, produced lazily: audio bytes exist only while their line is written. */
function* musicLines(plan: StreamPlan): Generator<Line> {
	const { options, request } = plan;
	const streams = Math.max(1, Math.floor(options.streams));
	const chunkBytes = Math.max(1, Math.floor(options.chunkBytes));
	// Integer tones (440, 550, 660 Hz …) keep one second of samples exactly periodic.
	const wavs = Array.from({ length: streams }, (_, i) => new ToneWav(options.audioBytesPerStream, options.sampleRate, 440 + 110 * i));
	const chunksPerStream = Math.ceil(wavs[0].totalBytes / chunkBytes);
	const totalChunks = chunksPerStream * streams;
	const errorAfter = plan.error ? Math.max(1, Math.floor(totalChunks / 2)) : Infinity;
	// Spread the broken lines over the events that will really be sent (an error cuts the stream short).
	const eventsSent = streams + 1 + Math.min(totalChunks, errorAfter) + (plan.error ? 0 : 1);
	const broken = brokenPositions(plan.malformed, eventsSent);
	// The cut's line, counted among the audio chunks or among the other events that are sent.
	const cut = plan.cut;
	const candidates = cut?.inAudio ? Math.min(totalChunks, errorAfter) : streams + 1 + (plan.error ? 0 : 1);
	const cutLineIndex = cut ? Math.floor(cut.pick * candidates) : -1;
	const seen = { audio: 0, other: 0 };
	let index = 0;
	let brokenSent = 0;
	function* emit(event: MusicEvent, bytes?: number): Generator<Line> {
		const inAudio = event.type === 'audio_chunk';
		if (cut && cut.inAudio === inAudio && seen[inAudio ? 'audio' : 'other']++ === cutLineIndex) {
			// The writer stops at a cut line: nothing after it is sent.
			yield { cut: cutLine(event, cut), reset: cut.inAudio };
		}
		yield { event, bytes };
		for (let n = broken.get(index++) ?? 0; n > 0; n--) yield { broken: BROKEN_LINES[brokenSent++ % BROKEN_LINES.length] };
	}

	for (let i = 0; i < streams; i++) {
		yield* emit({
			type: 'title',
			title: titleFor(request.prompt, i),
			display_tags: tagsFor(request.prompt),
			copy_index: i,
			prompt_index: 0,
			stream_index: i,
		});
	}
	yield* emit({ type: 'duration', duration_sec: Math.round(wavs[0].durationSec * 1000) / 1000 });
	const failure: Line = { event: { type: 'error', code: plan.error?.code, message: plan.error?.message } };
	let chunksSent = 0;
	for (let c = 0; c < chunksPerStream; c++) {
		// Streams interleave chunk by chunk, as parallel takes do; clients must assemble per stream_index.
		for (let s = 0; s < streams; s++) {
			if (chunksSent === errorAfter) return yield failure;
			yield { pause: true };
			const audio = wavs[s].read(c * chunkBytes, chunkBytes);
			yield* emit({ type: 'audio_chunk', stream_index: s, data: audio.toString('base64') }, audio.length);
			chunksSent++;
		}
	}
	// A one-chunk stream reaches its end before the half-way error point: the error still replaces complete.
	if (plan.error) return yield failure;
	yield* emit({ type: 'complete' });
}

/** Resolves true when the socket drained, false when the response closed first. */
function drained(res: ServerResponse): Promise<boolean> {
	return new Promise((resolve) => {
		const done = (ok: boolean) => {
			res.off('drain', onDrain);
			res.off('close', onClose);
			resolve(ok);
		};
		const onDrain = () => done(true);
		const onClose = () => done(false);
		res.on('drain', onDrain);
		res.on('close', onClose);
	});
}

type Counter = (field: keyof MusicStreamer['stats'], by?: number) => void;

export class MusicStreamer {
	private abort = new AbortController();
	private readonly active = new Set<ServerResponse>();
	/** Streams since the last reset, and audio bytes handed to sockets (shows backpressure holds generation back). */
	readonly stats = { started: 0, completed: 0, aborted: 0, audioBytesSent: 0 };
	/** Bumped by reset(): a stream counts only in the stats of the reset it started after. */
	private generation = 0;

	constructor(
		private readonly faults: Faults,
		private readonly options: MusicOptions,
		private readonly timers: TimerSet,
	) {}

	/** Streams the answer to `res`; the music faults are consumed by this stream. */
	async stream(res: ServerResponse, request: MusicRequest): Promise<void> {
		const plan: StreamPlan = { request, options: { ...this.options }, malformed: Math.max(0, this.faults.malformedNdjson?.count ?? 0) };
		delete this.faults.malformedNdjson;
		if (this.faults.musicError) {
			plan.error = { ...this.faults.musicError };
			delete this.faults.musicError;
		}
		const chaos = this.faults.chaos;
		if (chaos?.roll('musicCutMidChunk')) plan.cut = { inAudio: true, pick: chaos.random(), at: chaos.random() };
		else if (chaos?.roll('musicCutMidLine')) plan.cut = { inAudio: false, pick: chaos.random(), at: chaos.random() };
		const signal = this.abort.signal;
		const count = this.counter();
		this.active.add(res);
		count('started');
		res.writeHead(200, { 'content-type': 'application/x-ndjson', 'cache-control': 'no-cache' });
		try {
			const ending = await this.write(res, musicLines(plan), plan.options.chunkDelayMs, signal, count);
			count(ending === 'finished' ? 'completed' : 'aborted');
			// A cut in another line ends the answer as if whole; anything else that stops early drops the connection.
			if (ending === 'finished' || ending === 'cutEnded') res.end();
			else res.destroy();
		} finally {
			this.active.delete(res);
		}
	}

	/**
	 * Writes lines until done ('finished'), until a chaos cut line was written ('cutEnded', or
	 * 'cutReset' for one that resets the connection), or until the client went away or a reset
	 * cut the stream ('stopped').
	 */
	private async write(
		res: ServerResponse,
		lines: Generator<Line>,
		delayMs: number,
		signal: AbortSignal,
		count: Counter,
	): Promise<'finished' | 'cutEnded' | 'cutReset' | 'stopped'> {
		for (const line of lines) {
			if (signal.aborted || res.destroyed) return 'stopped';
			if ('pause' in line) {
				if (delayMs > 0 && !(await this.timers.sleep(delayMs, signal))) return 'stopped';
				continue;
			}
			if ('cut' in line) {
				// Flushed before the connection is dropped, so the client does receive half a line.
				await new Promise<void>((resolve) => res.write(line.cut, () => resolve()));
				return line.reset ? 'cutReset' : 'cutEnded';
			}
			const text = 'event' in line ? JSON.stringify(line.event) : line.broken;
			const ok = res.write(`${text}\n`);
			if ('event' in line && line.event.type === 'audio_chunk') count('audioBytesSent', line.bytes ?? 0);
			if (!ok && !(await drained(res))) return 'stopped';
		}
		return signal.aborted ? 'stopped' : 'finished';
	}

	/**
	 * Adds to the stats for one stream. A stream cut by reset() ends (and would count) a moment
	 * later, in the next test's stats: its counts are dropped once a reset came after its start.
	 */
	private counter(): Counter {
		const generation = this.generation;
		return (field, by = 1) => {
			if (generation === this.generation) this.stats[field] += by;
		};
	}

	/** Cuts every open stream (reset/close). */
	stopAll(): void {
		this.abort.abort();
		this.abort = new AbortController();
		for (const res of this.active) res.destroy();
		this.active.clear();
	}

	reset(defaults: MusicOptions): void {
		this.stopAll();
		this.generation++;
		Object.assign(this.options, defaults);
		this.stats.started = 0;
		this.stats.completed = 0;
		this.stats.aborted = 0;
		this.stats.audioBytesSent = 0;
	}
}
