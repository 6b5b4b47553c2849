/**
 * batch_overhead_ratio: wall time of 60 jobs run by one Host Cloud node with "Max Concurrent
 * Jobs" 3 against a simulator limit of 3, over the ideal (jobs / 3 × job time, the job time being
 * what the simulator itself spent per job). Also what the simulator counted: WebSocket
 * connections for the batch and HTTP requests per job.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { EngineHarness } from '../test/support/engine';
import { report, ROOT, startRemoteSimulator } from './support';

const JOBS = 60;
const LIMIT = 3;
const graph = readFileSync(join(ROOT, 'test/fixtures/txt2img-api.json'), 'utf8');

async function main(): Promise<void> {
	const sim = await startRemoteSimulator({ sim: { nodeMs: 50, parallelLimit: LIMIT } });
	const harness = new EngineHarness();
	const credential = harness.addCredential('hostCloudApi', { apiKey: sim.apiKey, baseUrl: sim.baseUrl });
	const node = (items: number) =>
		harness.runNode(
			{
				type: 'hostCloud',
				parameters: { resource: 'workflow', operation: 'execute', workflow: graph, additionalFields: { maxConcurrentJobs: LIMIT } },
				credentials: { hostCloudApi: credential },
			},
			Array.from({ length: items }, (_, i) => ({ json: { i } })),
		);
	// Warm-up (engine, first connection), then count from a clean simulator.
	await node(1);
	await sim.query({ command: 'reset' });

	const started = Date.now();
	const result = await node(JOBS);
	const wall = Date.now() - started;
	if (result.status !== 'success' || result.items.length !== JOBS) throw new Error(`batch failed: ${result.error('Node')?.message}`);
	const ids = result.items.map((item) => String(item.json.prompt_id));
	const jobs = await sim.query<Array<{ startedAt?: number; finishedAt?: number }>>({ command: 'jobs', promptIds: ids });
	const jobMs = jobs.reduce((sum, job) => sum + (job.finishedAt! - job.startedAt!), 0) / jobs.length;
	const ideal = (JOBS / LIMIT) * jobMs;
	const counters = await sim.query<{ wsConnections: number; httpRequestsTo: number }>({ command: 'counters' });
	await sim.close();
	report({
		batch_overhead_ratio: Math.round((wall / ideal) * 1000) / 1000,
		batch_wall_ms: wall,
		batch_ideal_ms: Math.round(ideal),
		batch_ws_connections: counters.wsConnections,
		batch_http_requests_per_job: Math.round((counters.httpRequestsTo / JOBS) * 100) / 100,
	});
}

void main().catch((error: Error) => {
	process.stderr.write(`${error.stack ?? error.message}\n`);
	process.exit(1);
});
