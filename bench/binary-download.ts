/**
 * binary_download_peak_rss_delta_mib: resident memory growth of the n8n process while Host Cloud
 * puts a 512 MiB output file into binary data (filesystem mode). The file is streamed by the
 * simulator's storage host from its own process.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { EngineHarness } from '../test/harness/engine';
import { report, ROOT, startRemoteSimulator, startRssSampler } from './support';

const SIZE = 512 * 1024 * 1024;
const graph = readFileSync(join(ROOT, 'test/fixtures/txt2img-api.json'), 'utf8');

async function main(): Promise<void> {
	const sim = await startRemoteSimulator({ sim: { nodeMs: 5 } });
	const harness = new EngineHarness();
	const credential = harness.addCredential('hostCloudApi', { apiKey: sim.apiKey, baseUrl: sim.baseUrl });
	const run = () =>
		harness.runNode({
			type: 'hostCloud',
			parameters: { resource: 'workflow', operation: 'execute', workflow: graph, downloadFiles: true },
			credentials: { hostCloudApi: credential },
		});
	const warm = await run();
	if (warm.status !== 'success') throw new Error(`warm-up failed: ${warm.error('Node')?.message}`);
	await sim.query({ command: 'outputSize', outputSize: SIZE });

	const started = Date.now();
	const sampler = startRssSampler();
	const result = await run();
	const memory = sampler.stop();
	if (result.status !== 'success') throw new Error(`download failed: ${result.error('Node')?.message}`);
	const binary = Object.values(result.items[0]!.binary ?? {})[0];
	if (!binary) throw new Error('no binary output');
	const counters = await sim.query<{ storageCredentialAttempts: number }>({ command: 'counters' });
	await sim.close();
	report({
		binary_download_peak_rss_delta_mib: Math.round(memory.peakDeltaMiB * 10) / 10,
		binary_download_file_mib: Math.round((Number(binary.bytes ?? 0) || SIZE) / 1024 / 1024),
		binary_download_seconds: Math.round((Date.now() - started) / 100) / 10,
		storage_credential_attempts: counters.storageCredentialAttempts,
	});
}

void main().catch((error: Error) => {
	process.stderr.write(`${error.stack ?? error.message}\n`);
	process.exit(1);
});
