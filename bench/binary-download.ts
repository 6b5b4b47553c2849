/**
 * binary_download_peak_rss_delta_mib: resident memory growth of the n8n process while Host Cloud
 * puts a 512 MiB output file into binary data (filesystem mode). The file is streamed by the
 * simulator's storage host from its own process.
 *
 * BENCH_FLAVOUR=self-hosted: binary_download_self_hosted_peak_rss_delta_mib, the same with the file
 * streamed from a self-hosted server's /api/view (behind a reverse proxy that wants the
 * credential's header) instead of a signed storage URL. BENCH_DOWNLOAD_MIB sizes the file (a test
 * runs it at 256 MiB; the benchmark uses 512 MiB).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { EngineHarness, readBinary } from '../test/support/engine';
import {
	benchFlavour,
	type Figures,
	flavourTag,
	report,
	ROOT,
	startHostCloudSimulator,
	startRetainedSampler,
	startRssSampler,
} from './support';

const SIZE = Number(process.env.BENCH_DOWNLOAD_MIB ?? 512) * 1024 * 1024;
const graph = readFileSync(join(ROOT, 'test/fixtures/txt2img-api.json'), 'utf8');

async function main(): Promise<void> {
	const flavour = benchFlavour();
	const { sim, credential: credentialData } = await startHostCloudSimulator(flavour, { sim: { nodeMs: 5 } });
	const harness = new EngineHarness();
	const credential = harness.addCredential('hostCloudApi', credentialData);
	const run = (workflow: string) =>
		harness.runNode({
			type: 'hostCloud',
			parameters: { resource: 'workflow', operation: 'execute', workflow, downloadFiles: true },
			credentials: { hostCloudApi: credential },
		});
	// The warm-up has its own seed: a self-hosted server would answer the same workflow from its cache, with the warm-up's small file.
	const warmGraph = JSON.parse(graph) as Record<string, { inputs: Record<string, unknown> }>;
	warmGraph['3']!.inputs.seed = 1;
	const warm = await run(JSON.stringify(warmGraph));
	if (warm.status !== 'success') throw new Error(`warm-up failed: ${warm.error('Node')?.message}`);
	await sim.query({ command: 'outputSize', outputSize: SIZE });

	const started = Date.now();
	const sampler = startRssSampler();
	const retained = startRetainedSampler();
	const result = await run(graph);
	const memory = sampler.stop();
	const held = retained?.stop();
	const seconds = (Date.now() - started) / 1000;
	if (result.status !== 'success') throw new Error(`download failed: ${result.error('Node')?.message}`);
	const binaries = Object.values(result.items[0]!.binary ?? {});
	if (binaries.length !== 1) throw new Error(`expected one output file, got ${binaries.length}`);
	// The size n8n stored (read back only if it did not record one).
	const bytes = Number(binaries[0]!.bytes ?? (await readBinary(binaries[0]!)).length);
	const counters = await sim.query<{ storageCredentialAttempts: number }>({ command: 'counters' });
	await sim.close();
	const tag = flavourTag(flavour);
	const figures: Figures = {
		[`binary_download${tag}_peak_rss_delta_mib`]: Math.round(memory.peakDeltaMiB * 10) / 10,
		// Not rounded: a file short by a byte does not show as its whole size.
		[`binary_download${tag}_file_mib`]: bytes / 1024 / 1024,
		[`binary_download${tag}_seconds`]: Math.round(seconds * 10) / 10,
		// With --expose-gc: what the process held at most, after forced collections, while the file came.
		...(held
			? { [`binary_download${tag}_retained_mib_max`]: held.maxDeltaMiB, [`binary_download${tag}_retained_samples`]: held.samples }
			: {}),
	};
	// Signed storage URLs are the cloud's: a self-hosted server serves its files itself.
	if (flavour === 'cloud') figures.storage_credential_attempts = counters.storageCredentialAttempts;
	report(figures);
}

void main().catch((error: Error) => {
	process.stderr.write(`${error.stack ?? error.message}\n`);
	process.exit(1);
});
