/**
 * music_stream_peak_rss_delta_mib: resident memory growth of the n8n process while Host Media
 * turns a music stream carrying 512 MiB of audio into binary data (filesystem mode). The
 * simulator streams from its own process, so only the node's memory is measured.
 */
import { EngineHarness, readBinary } from '../test/support/engine';
import { report, startRemoteSimulator, startRetainedSampler, startRssSampler } from './support';

// BENCH_MUSIC_MIB sizes the stream (a test runs it small; the benchmark uses 512 MiB).
const AUDIO_BYTES = Number(process.env.BENCH_MUSIC_MIB ?? 512) * 1024 * 1024;

async function main(): Promise<void> {
	const sim = await startRemoteSimulator({ music: { streams: 1, audioBytesPerStream: 1024 * 1024, chunkBytes: 256 * 1024 } });
	const harness = new EngineHarness();
	const credential = harness.addCredential('hostApi', { accessToken: sim.accessToken, registryUrl: sim.registryUrl });
	const run = () =>
		harness.runNode({
			type: 'hostMedia',
			parameters: { resource: 'music', operation: 'generate', prompt: 'a long calm piece' },
			credentials: { hostApi: credential },
		});
	// Warm-up: loads the engine and grows V8's heap once, so the figure is the stream's own cost.
	const warm = await run();
	if (warm.status !== 'success') throw new Error(`warm-up failed: ${warm.error('Node')?.message}`);
	await sim.query({ command: 'music', music: { streams: 1, audioBytesPerStream: AUDIO_BYTES, chunkBytes: 256 * 1024 } });

	const started = Date.now();
	const sampler = startRssSampler();
	const retained = startRetainedSampler();
	const result = await run();
	const memory = sampler.stop();
	const held = retained?.stop();
	const seconds = (Date.now() - started) / 1000;
	if (result.status !== 'success') throw new Error(`music run failed: ${result.error('Node')?.message}`);
	const binary = result.items[0]!.binary!.data!;
	const size = Number(binary.bytes ?? (await readBinary(binary)).length);
	await sim.close();
	report({
		music_stream_peak_rss_delta_mib: Math.round(memory.peakDeltaMiB * 10) / 10,
		music_stream_audio_mib: Math.round((size / 1024 / 1024) * 10) / 10,
		music_stream_seconds: Math.round(seconds * 10) / 10,
		// With --expose-gc: what the process held at most, after forced collections, while the stream came.
		...(held ? { music_stream_retained_mib_max: held.maxDeltaMiB, music_stream_retained_samples: held.samples } : {}),
	});
}

void main().catch((error: Error) => {
	process.stderr.write(`${error.stack ?? error.message}\n`);
	process.exit(1);
});
