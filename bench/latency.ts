/**
 * completion_latency_ms_median_ws / _poll_peer: from the simulator finishing a job (its own
 * timestamp) to the node run returning the job's outputs, median over 50 jobs each, Host Cloud
 * over its WebSocket versus the polling baseline, in the same run.
 *
 * BENCH_FLAVOUR=self-hosted: completion_latency_ms_median_self_hosted_ws, the same for Host Cloud
 * on a self-hosted server behind a reverse proxy (over its WebSocket, the proxy's header on the
 * upgrade). The polling baseline speaks the cloud API only, so it is not run there.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { EngineHarness } from '../test/support/engine';
import { PollingPeer, POLLING_PEER_TYPE } from './polling-peer';
import { benchFlavour, type Figures, flavourTag, median, report, ROOT, startHostCloudSimulator } from './support';

const JOBS = Number(process.env.BENCH_LATENCY_JOBS ?? 50);

/**
 * Job lengths vary from job to job (as real ones do), so a poller's phase against the job's end is
 * spread out; the same sequence is used for both clients. 7 nodes × 100-400 ms ≈ 0.7-2.8 s.
 */
function nodeMsSequence(count: number): number[] {
	let seed = 42;
	return Array.from({ length: count }, () => {
		seed = (seed * 1103515245 + 12345) % 2147483648;
		return 100 + Math.floor((seed / 2147483648) * 300);
	});
}
const graph = readFileSync(join(ROOT, 'test/fixtures/txt2img-api.json'), 'utf8');

async function main(): Promise<void> {
	const flavour = benchFlavour();
	const { sim, credential: credentialData } = await startHostCloudSimulator(flavour, { sim: { nodeMs: 10, parallelLimit: 3 } });
	const harness = new EngineHarness();
	harness.registerNodeType(POLLING_PEER_TYPE, new PollingPeer());
	const credential = harness.addCredential('hostCloudApi', credentialData);

	const measure = async (node: Parameters<EngineHarness['runNode']>[0]): Promise<number[]> => {
		const latencies: number[] = [];
		const lengths = nodeMsSequence(JOBS);
		for (let i = 0; i < JOBS; i++) {
			await sim.query({ command: 'nodeMs', nodeMs: lengths[i] });
			const result = await harness.runNode(node);
			const returnedAt = Date.now();
			if (result.status !== 'success') throw new Error(`run failed: ${result.error('Node')?.message}`);
			const promptId = String(result.items[0]!.json.prompt_id);
			const [job] = await sim.query<Array<{ finishedAt?: number }>>({ command: 'jobs', promptIds: [promptId] });
			latencies.push(returnedAt - job!.finishedAt!);
		}
		return latencies;
	};

	const ws = await measure({
		type: 'hostCloud',
		parameters: { resource: 'workflow', operation: 'execute', workflow: graph },
		credentials: { hostCloudApi: credential },
	});
	const tag = flavourTag(flavour);
	const wsMedian = median(ws);
	const figures: Figures = { [`completion_latency_ms_median${tag}_ws`]: wsMedian };
	if (flavour === 'cloud') {
		const peer = await measure({
			type: POLLING_PEER_TYPE,
			parameters: { workflow: graph, pollMs: 1000 },
			credentials: { hostCloudApi: credential },
		});
		const peerMedian = median(peer);
		figures.completion_latency_ms_median_poll_peer = peerMedian;
		figures.completion_latency_ratio_peer_over_ws = Math.round((peerMedian / Math.max(wsMedian, 0.5)) * 10) / 10;
	}
	await sim.close();
	report({ ...figures, [`completion_latency${tag}_jobs`]: JOBS });
}

void main().catch((error: Error) => {
	process.stderr.write(`${error.stack ?? error.message}\n`);
	process.exit(1);
});
