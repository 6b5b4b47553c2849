/**
 * The simulator in its own process for benchmarks: started with JSON options (either flavour), it
 * sends its banner over IPC and answers queries (counters, job timestamps) so the measured process
 * holds only the node's memory.
 */
import { startSimulator, type Simulator, type V2Simulator } from '../simulator/server';
import type { RemoteSimulatorOptions, SimulatorBanner } from './support';

interface Query {
	id: number;
	command: string;
	promptIds?: string[];
	music?: Record<string, number>;
	outputSize?: number;
	nodeMs?: number;
	jobIds?: string[];
	v2?: Record<string, unknown>;
}

async function main(): Promise<void> {
	const options = JSON.parse(process.argv[2] ?? '{}') as RemoteSimulatorOptions;
	const sim: Simulator = await startSimulator(options.sim ?? {});
	if (options.outputSize) sim.cloud.setOutputSize(options.outputSize);
	if (options.music) Object.assign(sim.proxy.music, options.music);
	const banner: SimulatorBanner = {
		baseUrl: sim.baseUrl,
		wsBaseUrl: sim.wsBaseUrl,
		registryUrl: sim.registryUrl,
		storageUrl: sim.storageUrl,
		apiKey: sim.apiKey,
		accessToken: sim.accessToken,
		flavour: sim.flavour,
	};
	process.send?.(banner);
	process.on('message', (message: Query) => {
		let result: unknown;
		if (message.command === 'counters') {
			result = { ...sim.counters, httpRequestsTo: sim.requests.filter((r) => r.host === 'service').length };
		} else if (message.command === 'jobs') {
			// Both flavours keep their jobs on the same board (the self-hosted one also in its history).
			result = (message.promptIds ?? []).map((id) => {
				const job = sim.cloud.jobs.get(id);
				return { id, finishedAt: job?.finishedAt, startedAt: job?.startedAt, status: job?.status };
			});
		} else if (message.command === 'running') {
			result = [...sim.cloud.jobs.values()].filter((job) => job.status === 'in_progress').length;
		} else if (message.command === 'nodeMs') {
			sim.options.nodeMs = message.nodeMs ?? sim.options.nodeMs;
			result = true;
		} else if (message.command === 'music') {
			Object.assign(sim.proxy.music, message.music);
			result = true;
		} else if (message.command === 'outputSize') {
			sim.cloud.setOutputSize(message.outputSize);
			result = true;
		} else if (message.command === 'v2Jobs') {
			// The v2 flavour: when each job completed, and when it was read by GET (the polls).
			const v2 = (sim as unknown as V2Simulator).v2;
			result = (message.jobIds ?? []).map((id) => ({
				id,
				completedAt: v2.jobs.get(id)?.completedAt ?? null,
				reads: sim.requests.filter((r) => r.method === 'GET' && r.path === `/api/v2/jobs/${id}`).map((r) => r.at),
			}));
		} else if (message.command === 'v2Options') {
			// Replaced whole (the flavour reads it per request), over its resolved defaults.
			const options = sim.options as unknown as { v2: Record<string, unknown> };
			options.v2 = { ...options.v2, ...message.v2 };
			result = true;
		} else if (message.command === 'reset') {
			sim.reset();
			result = true;
		}
		process.send?.({ id: message.id, result });
	});
	process.on('SIGTERM', () => void sim.close().then(() => process.exit(0)));
	// A benchmark that dies without closing us must not leave a simulator behind.
	process.on('disconnect', () => void sim.close().then(() => process.exit(0)));
}

void main();
