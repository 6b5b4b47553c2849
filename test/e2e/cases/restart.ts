/**
 * Restart-proof waits (issue 13, item 3): 20 executions wait in "Wait for Notification", n8n is
 * killed with SIGKILL (a crash: nothing shuts down cleanly), the service finishes every task while
 * n8n is down (its notifications fail with "connection refused" and are retried with the
 * simulator's back-off), and n8n is started again on the same database. Each execution resumes
 * exactly once, with its own task's result. One more execution, waiting with the smallest Max Wait,
 * is down past it: after the restart n8n resumes it as timed out, naming its task.
 *
 * Where this case runs: the restart keeps n8n's user folder, database, encryption key and port, so
 * the stack (its URLs, the signed-in client, the credentials and workflows) is the same afterwards
 * and the cases after this file run on the restarted n8n, as a user's workflows do after a crash.
 * It restores the simulator switches it sets. The secrets audit (e2e.test.ts) runs after every case.
 *
 * The retry window: the simulator retries a notification 8 times with back-off from 100 ms
 * doubling (about 12.7 s from the first attempt to the last); the service's own schedule is not in
 * the spec, so the restart must fit within it (n8n restarts in about 5 s here). The case releases
 * the tasks right after the kill, waits for one refused attempt per task, and starts n8n at once.
 */
import { readFileSync } from 'node:fs';

import { e2e } from '../support/context';
import { describeFailure, outputItems, type ExecutionResult } from '../support/n8n-client';
import { waitFor } from '../support/wait';
import { hostNodeType, linearWorkflow, manualTriggerNode } from '../support/workflows';
import { recordReliability } from '../../support/reliability';
import type { Delivery } from '../../../simulator/media/notify';
import type { VideoTask } from '../../../simulator/media/video';

const EXECUTIONS = 20;
/** The smallest Max Wait the node accepts (Wait Options, node version 2). */
const SMALLEST_MAX_WAIT_MINUTES = 0.01;
const WAITING_NODE = 'Extend video';
const NEXT_NODE = 'After resume';

function waitingWorkflow(name: string, waitOptions: Record<string, unknown> = {}) {
	return linearWorkflow(name, [
		manualTriggerNode(),
		{
			name: WAITING_NODE,
			type: hostNodeType('hostMedia'),
			typeVersion: 2,
			parameters: { resource: 'video', operation: 'extend', model: 'videoq2-turbo', waitMode: 'webhook', downloadFiles: true, waitOptions },
			credentials: { hostApi: { name: 'Host API' } },
		},
		{ name: NEXT_NODE, type: 'n8n-nodes-base.noOp', typeVersion: 1, parameters: {} },
	]);
}

/** The task the service holds for an execution: the one whose notification URL is that execution's resume URL. */
function taskOf(tasks: Iterable<VideoTask>, executionId: string): VideoTask | undefined {
	return [...tasks].find(
		(task) => task.callbackUrl !== undefined && new URL(task.callbackUrl).pathname.endsWith(`/webhook-waiting/${executionId}`),
	);
}

const FINAL_STATUSES = ['success', 'error', 'canceled', 'crashed'];

const isFinal = (delivery: Delivery) => ['success', 'failed'].includes(String((delivery.body as { state?: string }).state));

interface Scenario {
	workflowId: string;
	/** Execution id → its task. */
	tasks: Map<string, VideoTask>;
	timedOut: { workflowId: string; executionId: string; task: VideoTask; waitTill: number };
	killedAt: number;
	restartedAt: number;
	readyAt: number;
	resumed: Map<string, ExecutionResult>;
	timedOutResult: ExecutionResult;
	/** The executions n8n's start-up recovery rewrote, as its log names them ("Found unfinished executions: 1, 2"). */
	recoveredByN8n: Set<string>;
	/** The executions whose resume n8n refused while its recovery resumed them (`resumesRefusedByN8n`). */
	refusedByN8n: Set<string>;
}

/**
 * The executions n8n's start-up recovery amended after the restart (its log, from the last start).
 * n8n 2.41.1 serves waiting webhooks while that recovery runs: it reads an execution, writes it back
 * as `crashed`, then saves it again through its hooks (as `waiting`, since the copy it read still
 * waits). A resume that runs in between is overwritten (n8n's race, not the node's): such an
 * execution ends `crashed`, or waits again until its Max Wait, although the node resumed it.
 */
function recoveredExecutions(logFile: string): Set<string> {
	const log = readFileSync(logFile, 'utf8');
	const lastStart = log.lastIndexOf('n8n ready on');
	const found = /Found unfinished executions: ([\d, ]+)/.exec(log.slice(Math.max(0, lastStart)));
	return new Set(
		found
			? found[1]!
					.split(',')
					.map((id) => id.trim())
					.filter(Boolean)
			: [],
	);
}

/**
 * The executions whose resume n8n refused before running the node, after the restart, because its
 * own recovery was resuming them ("Execution is already being resumed by another process (execution
 * 49)"): such an execution may wait again without the node having read its task.
 */
function resumesRefusedByN8n(logFile: string): Set<string> {
	const log = readFileSync(logFile, 'utf8');
	const sinceStart = log.slice(Math.max(0, log.lastIndexOf('n8n ready on')));
	return new Set([...sinceStart.matchAll(/already being resumed by another process \(execution (\d+)\)/g)].map((match) => match[1]!));
}

describe('n8n killed and restarted while executions wait for notifications', () => {
	let scenario: Scenario | undefined;
	const figures: Record<string, unknown> = {};

	beforeAll(async () => {
		const { client, importWorkflow, simulator, n8n } = e2e();
		const { proxy, options } = simulator;
		const videoStepMs = options.videoStepMs;
		const notifyAttempts = options.notifyAttempts;
		try {
			// Services that notify retry for minutes to hours; the simulator's default (8 attempts, about
			// 12.7 s) is shorter than a loaded machine may take to bring n8n back, so this case uses
			// 11 attempts (about 100 s): a restart, not the service giving up, is what is under test.
			options.notifyAttempts = 11;
			const workflow = await importWorkflow(waitingWorkflow('Host Media: waits through an n8n restart'));
			const timedOutWorkflow = await importWorkflow(
				waitingWorkflow('Host Media: Max Wait passes while n8n is down', { maxWaitMinutes: SMALLEST_MAX_WAIT_MINUTES }),
			);

			// Tasks go through created, queueing and processing as usual, then stop short of success.
			proxy.holdFinalStatus = true;
			const executionIds: string[] = [];
			for (let i = 0; i < EXECUTIONS; i++) executionIds.push(await client.startWorkflow(workflow.id));
			for (const id of executionIds) await client.waitForExecution(id, { statuses: ['waiting'], timeoutMs: 60000 });
			const tasks = new Map<string, VideoTask>();
			for (const id of executionIds) {
				tasks.set(id, await waitFor(`the task of execution ${id}`, () => taskOf(proxy.videoTasks.values(), id)));
			}
			// Only the final notification is left to send: every earlier one reached n8n.
			await waitFor('every task to be processing, its notifications so far delivered', () =>
				[...tasks.values()].every(
					(task) =>
						task.state === 'processing' &&
						proxy.deliveries.filter((d) => d.url === task.callbackUrl).length === 2 &&
						proxy.deliveries.filter((d) => d.url === task.callbackUrl).every((d) => d.done && d.delivered),
				),
			);

			// Its task does not finish during the case (the first step is far off), so only Max Wait can end the wait.
			options.videoStepMs = 10 * 60_000;
			const timedOutId = await client.startWorkflow(timedOutWorkflow.id);
			const waiting = await client.waitForExecution(timedOutId, { statuses: ['waiting'], timeoutMs: 60000 });
			await n8n.kill();
			const killedAt = Date.now();
			options.videoStepMs = videoStepMs;
			const timedOutTask = await waitFor('the task of the execution with the short Max Wait', () =>
				taskOf(proxy.videoTasks.values(), timedOutId),
			);

			// The service finishes every task while n8n is down; a task whose last step had not come yet finishes by itself.
			proxy.holdFinalStatus = false;
			proxy.releaseHeldTasks();
			const urls = new Set([...tasks.values()].map((task) => task.callbackUrl));
			await proxy.waitForDeliveries(
				(deliveries) =>
					deliveries.filter((d) => urls.has(d.url) && isFinal(d) && d.attempts >= 1 && /ECONNREFUSED/.test(d.error ?? '')).length ===
					EXECUTIONS,
				10000,
			);
			const waitTill = Date.parse(String(waiting.waitTill));
			// n8n stays down past the Max Wait (it is far shorter than a restart; this makes it certain).
			while (Date.now() <= waitTill) await new Promise((resolve) => setTimeout(resolve, 50));

			const restartedAt = Date.now();
			await n8n.restart();
			const readyAt = Date.now();

			// The service keeps retrying (about 100 s here): n8n must serve its webhooks again by then.
			const finals = await proxy.waitForDeliveries(
				(deliveries) => deliveries.filter((d) => urls.has(d.url) && isFinal(d) && d.done).length === EXECUTIONS,
				60000,
			);
			const givenUp = finals.filter((d) => urls.has(d.url) && isFinal(d) && !d.delivered);
			if (givenUp.length > 0) {
				throw new Error(
					`The service gave up on ${givenUp.length} final notification(s) after ${givenUp[0]!.attempts} attempts (last: ${givenUp[0]!.status ?? givenUp[0]!.error}): n8n served again ${((readyAt - killedAt) / 1000).toFixed(1)} s after the kill, longer than the service retries.`,
				);
			}
			const recoveredByN8n = recoveredExecutions(n8n.logFile);
			const refusedByN8n = resumesRefusedByN8n(n8n.logFile);
			const resumed = new Map<string, ExecutionResult>();
			for (const id of executionIds) {
				// Every final notification is delivered: a recovered execution still waiting now holds n8n's stale copy.
				const statuses = recoveredByN8n.has(id) ? [...FINAL_STATUSES, 'waiting'] : FINAL_STATUSES;
				resumed.set(id, await client.waitForExecution(id, { statuses, timeoutMs: 60000 }));
			}
			const timedOutResult = await client.waitForExecution(timedOutId, { timeoutMs: 60000 });
			await proxy.waitForDeliveries((deliveries) => deliveries.filter((d) => urls.has(d.url)).every((d) => d.done), 30000);
			scenario = {
				workflowId: workflow.id,
				tasks,
				timedOut: { workflowId: timedOutWorkflow.id, executionId: timedOutId, task: timedOutTask, waitTill },
				killedAt,
				restartedAt,
				readyAt,
				resumed,
				timedOutResult,
				recoveredByN8n,
				refusedByN8n,
			};
			figures.executions_waiting = executionIds.length;
			figures.downtime_seconds = Number(((readyAt - killedAt) / 1000).toFixed(1));
			figures.restart_seconds = Number(((readyAt - restartedAt) / 1000).toFixed(1));
		} finally {
			options.videoStepMs = videoStepMs;
			options.notifyAttempts = notifyAttempts;
			proxy.holdFinalStatus = false;
			proxy.releaseHeldTasks();
		}
	}, 300000);

	afterAll(() => recordReliability('restart', figures));

	it('every waiting execution resumes exactly once, with its own task and file', async () => {
		const { client, simulator } = e2e();
		const { tasks, resumed, killedAt } = scenario!;
		// One execution record each: the restart neither lost one nor started another.
		const records = await client.listExecutions(scenario!.workflowId);
		expect(records.map((r) => r.id).sort()).toEqual([...tasks.keys()].sort());

		let withOwnResult = 0;
		let resumedOnce = 0;
		let retried = 0;
		let webhookRunsRefused = 0;
		const overwrittenByN8n: string[] = [];
		for (const [executionId, task] of tasks) {
			const execution = resumed.get(executionId)!;
			// n8n's recovery wrote back what it had read before the resume ran: only there may an
			// execution end crashed or waiting. Waiting, the node's resume must have read its task;
			// crashed, n8n may have ended it before the notification reached it (its resume is refused).
			if (execution.status !== 'success' && scenario!.recoveredByN8n.has(executionId)) {
				expect(['crashed', 'waiting']).toContain(execution.status);
				const reads = simulator.requestsTo('GET', `/proxy/video/tasks/${task.taskId}/creations`).filter((r) => r.at >= killedAt);
				if (execution.status === 'waiting' && !scenario!.refusedByN8n.has(executionId)) expect(reads.length).toBeGreaterThanOrEqual(1);
				overwrittenByN8n.push(executionId);
				continue;
			}
			expect(describeFailure(execution)).toBe('succeeded');
			const creation = task.creations[0]!;
			const fileName = decodeURIComponent(new URL(creation.url).pathname.split('/').pop()!);
			const [item] = outputItems(execution, WAITING_NODE);
			expect(item!.json).toMatchObject({ task_id: task.taskId, status: 'succeeded', final: true, video_url: creation.url });
			// The file is named after its task (the URL's name is the creation's).
			expect(item!.binary?.data).toMatchObject({ fileName: `${String(item!.json.task_type)}-${task.taskId}.mp4`, mimeType: 'video/mp4' });
			const stored = simulator.storage.get(`proxy/video/${task.taskId}/${fileName}`)!.body as Buffer;
			expect((await client.binaryContent(item!.binary!.data!)).equals(stored)).toBe(true);
			withOwnResult++;

			// Resumed once, as n8n records it: one execution (above), one run of the waiting node (n8n drops
			// the waiting run as it resumes) and one of the next node; as the service saw it: one final
			// notification, delivered, after failing while n8n was down.
			expect(execution.runData[WAITING_NODE]).toHaveLength(1);
			expect(execution.runData[NEXT_NODE]).toHaveLength(1);
			expect(outputItems(execution, NEXT_NODE).map((i) => i.json.task_id)).toEqual([task.taskId]);
			const finals = simulator.proxy.deliveries.filter((d) => d.url === task.callbackUrl && isFinal(d));
			expect(finals.map((d) => ({ delivered: d.delivered, status: d.status }))).toEqual([{ delivered: true, status: 200 }]);
			expect(finals[0]!.attempts).toBeGreaterThan(1);
			retried += finals[0]!.attempts - 1;
			// One status read per run of the node's webhook. n8n may run it and then refuse the resume (its
			// start-up recovery briefly marks waiting executions crashed); the service retries and the next resumes.
			const reads = simulator.requestsTo('GET', `/proxy/video/tasks/${task.taskId}/creations`).filter((r) => r.at >= killedAt);
			expect(reads.length).toBeGreaterThanOrEqual(1);
			webhookRunsRefused += reads.length - 1;
			resumedOnce++;
		}
		Object.assign(figures, {
			executions_resumed: [...resumed.values()].filter((e) => e.status === 'success').length,
			resumed_exactly_once: resumedOnce,
			with_own_result: withOwnResult,
			notifications_retried: retried,
			webhook_runs_n8n_did_not_resume: webhookRunsRefused,
			recovered_by_n8n_at_start: scenario!.recoveredByN8n.size,
			resumes_overwritten_by_n8n_recovery: overwrittenByN8n.length,
		});
	});

	it('an execution whose Max Wait passed while n8n was down resumes as timed out, naming its task', async () => {
		const { client } = e2e();
		const { timedOut, timedOutResult: execution, killedAt, restartedAt } = scenario!;
		expect(describeFailure(execution)).toBe('succeeded');
		const [item] = outputItems(execution, WAITING_NODE);
		expect(item!.json).toMatchObject({ task_id: timedOut.task.taskId, status: 'timeout', timed_out: true, final: false });
		expect(String(item!.json.error)).toContain(
			`No notification for video extension task ${timedOut.task.taskId} arrived within ${SMALLEST_MAX_WAIT_MINUTES} minutes`,
		);
		expect(item!.binary).toBeUndefined();
		expect(execution.runData[WAITING_NODE]).toHaveLength(1);
		expect(execution.runData[NEXT_NODE]).toHaveLength(1);
		expect((await client.listExecutions(timedOut.workflowId)).map((r) => r.id)).toEqual([timedOut.executionId]);
		// Killed before the Max Wait ran out, n8n cannot have resumed it before the crash: it did after the restart.
		const resumedAfterRestart = execution.runData[WAITING_NODE]![0]!.startTime >= restartedAt;
		if (killedAt < timedOut.waitTill) expect(resumedAfterRestart).toBe(true);
		figures.timed_out_case = {
			status: item!.json.status,
			task_id_named: String(item!.json.error).includes(timedOut.task.taskId),
			resumed_after_restart: resumedAfterRestart,
		};
	});
});
