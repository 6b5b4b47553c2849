/**
 * Run in a fresh process by media/area.test.ts: the simulator streams MUSIC_MIB of audio to a client in
 * the same process that decodes every chunk and keeps none, and the peak resident memory growth is
 * printed as one JSON line, with (under --expose-gc) what the process held at most after forced
 * collections while it streamed, which garbage and a busy machine cannot raise. A shared Jest
 * worker's heap is too noisy for either (CI saw +166 MiB there for a stream that costs a fresh
 * process a few MiB).
 */
import { request } from 'node:http';
import { createInterface } from 'node:readline';
import type { IncomingMessage } from 'node:http';

import { startRetainedSampler, startRssSampler } from '../../../bench/support';
import { startSimulator, type Simulator } from '../../../simulator/server';

const AUDIO_BYTES = Number(process.env.MUSIC_MIB ?? 256) * 1024 * 1024;

function openMusic(sim: Simulator, prompt: string): Promise<IncomingMessage> {
	const boundary = 'memory-test';
	const body = `--${boundary}\r\nContent-Disposition: form-data; name="prompt"\r\n\r\n${prompt}\r\n--${boundary}--\r\n`;
	return new Promise((resolve, reject) => {
		const req = request(`${sim.registryUrl}/proxy/music/t2m/generate`, {
			method: 'POST',
			headers: { Authorization: `Bearer ${sim.accessToken}`, 'Content-Type': `multipart/form-data; boundary=${boundary}` },
		});
		req.on('response', resolve).on('error', reject).end(body);
	});
}

/** Decodes every audio chunk and keeps only counts and the WAV header. */
async function readAudio(sim: Simulator, prompt: string): Promise<{ bytes: number; header?: Buffer; last?: string }> {
	const res = await openMusic(sim, prompt);
	if (res.statusCode !== 200) throw new Error(`music stream answered HTTP ${res.statusCode}`);
	let bytes = 0;
	let header: Buffer | undefined;
	let last: string | undefined;
	for await (const line of createInterface({ input: res, crlfDelay: Infinity })) {
		if (line === '') continue;
		const event = JSON.parse(line) as { type: string; data?: string };
		last = event.type;
		if (event.type !== 'audio_chunk') continue;
		const audio = Buffer.from(event.data ?? '', 'base64');
		header ??= Buffer.from(audio.subarray(0, 44));
		bytes += audio.length;
	}
	return { bytes, header, last };
}

async function main(): Promise<void> {
	const sim = await startSimulator();
	try {
		// Warm-up: the heap's one-off growth for streaming (young generation, socket buffers) is not the stream's cost.
		Object.assign(sim.proxy.music, { streams: 1, audioBytesPerStream: 4 * 1024 * 1024, chunkBytes: 64 * 1024 });
		await readAudio(sim, 'warm-up');
		sim.proxy.music.audioBytesPerStream = AUDIO_BYTES;
		const sampler = startRssSampler();
		const retained = startRetainedSampler();
		const result = await readAudio(sim, 'long ambient drone');
		const memory = sampler.stop();
		const held = retained?.stop();
		process.stdout.write(
			`${JSON.stringify({
				audioBytes: result.bytes,
				riffSize: result.header?.readUInt32LE(4),
				dataSize: result.header?.readUInt32LE(40),
				lastEvent: result.last,
				peakRssDeltaMiB: memory.peakDeltaMiB,
				retainedMiBMax: held?.maxDeltaMiB,
				retainedSamples: held?.samples,
			})}\n`,
		);
	} finally {
		await sim.close();
	}
}

void main().catch((error: Error) => {
	process.stderr.write(`${error.stack ?? error.message}\n`);
	process.exit(1);
});
