/**
 * Executions caught in the middle, for the cases that stop, kill or watch them: a Host Cloud run
 * whose job is running on the simulator, a Host Media run waiting for the task's notification,
 * and the simulator slowed down for as long as a case needs it.
 */
import type { ResolvedOptions, Simulator, V2Simulator } from '../../../simulator/server';
import type { ExecutionResult, N8nClient } from './n8n-client';
import { waitFor } from './wait';

type TimingOption = 'nodeMs' | 'videoStepMs' | 'imageStepMs';

/** Runs `work` with a timing option of the simulator (either flavour) set to `value`, then puts the previous value back. */
export async function withSimulatorTiming<T>(
	simulator: { options: Pick<ResolvedOptions, TimingOption> },
	option: TimingOption,
	value: ResolvedOptions[TimingOption],
	work: () => Promise<T>,
): Promise<T> {
	const previous = simulator.options[option];
	simulator.options[option] = value;
	try {
		return await work();
	} finally {
		simulator.options[option] = previous;
	}
}

/** Starts the workflow as the editor does and waits for the cloud job it submitted to be running. */
export async function startWithRunningCloudJob(
	client: N8nClient,
	simulator: Simulator,
	workflowId: string,
): Promise<{ executionId: string; promptId: string }> {
	const before = new Set(simulator.cloud.jobs.keys());
	const executionId = await client.startWorkflow(workflowId);
	const promptId = await waitFor(
		'the job to run on the cloud',
		() => [...simulator.cloud.jobs.entries()].find(([id, job]) => !before.has(id) && job.status === 'in_progress')?.[0],
	);
	return { executionId, promptId };
}

/** The same on a v2 server: waits for the one new v2 job to be running. */
export async function startWithRunningV2Job(
	client: N8nClient,
	simulator: V2Simulator,
	workflowId: string,
): Promise<{ executionId: string; jobId: string }> {
	const { jobs } = simulator.v2;
	const before = new Set(jobs.keys());
	const executionId = await client.startWorkflow(workflowId);
	const jobId = await waitFor(
		'the job to run on the v2 server',
		() => [...jobs.entries()].find(([id, job]) => !before.has(id) && job.status === 'running')?.[0],
	);
	return { executionId, jobId };
}

/** The paths of every cancel request a v2 server received (`/api/v2/jobs/{id}/cancel`), in order. */
export function v2CancelPaths(simulator: V2Simulator): string[] {
	return simulator
		.requestsTo('POST', '/api/v2/jobs/')
		.map((request) => request.path)
		.filter((path) => path.endsWith('/cancel'));
}

/**
 * Starts a Host Media video workflow in *Wait for Notification* mode and waits for the execution to
 * be `waiting`; answers it with the resume URL the node sent the service (`callback_url`).
 */
export async function startWaitingForVideoTask(
	client: N8nClient,
	simulator: Simulator,
	workflowId: string,
): Promise<{ executionId: string; waiting: ExecutionResult; callbackUrl: string }> {
	const executionId = await client.startWorkflow(workflowId);
	const waiting = await client.waitForExecution(executionId, { statuses: ['waiting'], timeoutMs: 30000 });
	// The execution's own task: its callback is this execution's resume URL (not any URL with "/<id>" in it,
	// such as a trigger's webhook whose id begins with the same digits).
	const callbackOf = (body: string): string | undefined => {
		try {
			const url = (JSON.parse(body) as { callback_url?: unknown }).callback_url;
			return typeof url === 'string' && new URL(url).pathname.endsWith(`/webhook-waiting/${executionId}`) ? url : undefined;
		} catch {
			return undefined;
		}
	};
	const callbackUrl = await waitFor('the video task to be submitted', () =>
		simulator
			.requestsTo('POST', '/proxy/video/')
			.map((request) => callbackOf(request.body))
			.find((url) => url !== undefined),
	);
	return { executionId, waiting, callbackUrl };
}
