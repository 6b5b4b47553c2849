/**
 * Cloud: jobs and their scheduling. Per account at most `parallelLimit` jobs run at once;
 * the rest wait as pending and start in submit order. Running a job (its messages and files) is
 * run.ts; this file owns the states, the queue, cancellation and the public job records.
 */
import { randomUUID } from 'node:crypto';

import type { NodeDefinition } from './catalogue';
import type { Graph } from './graph';
import { runJob, type RunEnv } from './run';
import type { ExecutionFailure, Job, JobStatus, JobView } from './types';
import type { Account } from '../shared/core';

export interface Submission {
	account: Account;
	graph: Graph;
	order: string[];
	extraData: Record<string, unknown>;
	clientId?: string;
	/** The client's own prompt_id (the self-hosted server accepts one); a new UUID when absent. */
	promptId?: string;
	/** Whether partner nodes may run; by default, whether extra_data.api_key_host_org is the account's key. */
	partnerAuthorised?: boolean;
}

const TERMINAL: ReadonlySet<JobStatus> = new Set(['completed', 'failed', 'cancelled']);

export function isTerminal(job: JobView): boolean {
	return TERMINAL.has(job.status);
}

export class JobBoard {
	readonly jobs = new Map<string, Job>();
	private readonly pending = new Map<string, Job[]>();
	private readonly running = new Map<string, Set<Job>>();
	private nextNumber = 1;
	private nextFailure?: ExecutionFailure;
	outputSize?: number;

	constructor(
		private readonly accountById: (id: string) => Account | undefined,
		private readonly env: Omit<RunEnv, 'finished'>,
	) {}

	failNextJob(failure: ExecutionFailure): void {
		this.nextFailure = { ...failure };
	}

	submit(s: Submission): Job {
		const { api_key_host_org: partnerKey, ...publicExtraData } = s.extraData;
		const job: Job = {
			promptId: s.promptId ?? randomUUID(),
			accountId: s.account.id,
			status: 'pending',
			submittedAt: Date.now(),
			outputs: {},
			extraDataKeys: Object.keys(s.extraData),
			clientId: s.clientId,
			number: this.nextNumber++,
			graph: s.graph,
			order: s.order,
			publicExtraData,
			partnerAuthorised: s.partnerAuthorised ?? partnerKey === s.account.apiKey,
			injectedFailure: this.nextFailure,
			outputSize: this.outputSize,
			executed: [],
			abort: new AbortController(),
		};
		this.nextFailure = undefined;
		this.jobs.set(job.promptId, job);
		this.listOf(this.pending, job.accountId, () => []).push(job);
		this.emitStatus(job.accountId);
		this.pump(job.accountId);
		return job;
	}

	/** Starts pending jobs of the account while it is under its parallel limit. */
	private pump(accountId: string): void {
		const limit = Math.max(1, this.accountById(accountId)?.parallelLimit ?? 1);
		const queue = this.pending.get(accountId) ?? [];
		const running = this.listOf(this.running, accountId, () => new Set<Job>());
		while (running.size < limit && queue.length > 0) {
			const job = queue.shift() as Job;
			running.add(job);
			void runJob(job, { ...this.env, finished: (j) => this.finished(j) });
		}
	}

	/** Called by the runner once a job reached completed or failed. */
	private finished(job: Job): void {
		this.running.get(job.accountId)?.delete(job);
		this.emitStatus(job.accountId);
		this.pump(job.accountId);
	}

	/** Cancels a pending or running job: status cancelled, execution_interrupted sent. False when already over. */
	cancel(job: Job): boolean {
		if (isTerminal(job)) return false;
		const wasRunning = job.status === 'in_progress';
		job.abort.abort();
		job.status = 'cancelled';
		job.finishedAt = Date.now();
		const nodeId = wasRunning ? (job.currentNode ?? null) : null;
		const interrupted = {
			type: 'execution_interrupted',
			data: {
				prompt_id: job.promptId,
				node_id: nodeId,
				node_type: nodeId ? job.graph[nodeId].class_type : null,
				executed: [...job.executed],
				timestamp: job.finishedAt,
			},
		};
		this.env.emit(job.accountId, interrupted, job);
		if (wasRunning) {
			this.env.emit(job.accountId, { type: 'executing', data: { node: null, display_node: null, prompt_id: job.promptId } }, job);
		}
		const queue = this.pending.get(job.accountId);
		if (queue?.includes(job)) queue.splice(queue.indexOf(job), 1);
		this.running.get(job.accountId)?.delete(job);
		this.emitStatus(job.accountId);
		this.pump(job.accountId);
		return true;
	}

	/** Takes a pending job off the queue without a word on the sockets (the self-hosted server's queue delete). False when not pending. */
	withdraw(job: Job): boolean {
		const queue = this.pending.get(job.accountId);
		if (job.status !== 'pending' || !queue?.includes(job)) return false;
		queue.splice(queue.indexOf(job), 1);
		job.abort.abort();
		job.status = 'cancelled';
		job.finishedAt = Date.now();
		this.emitStatus(job.accountId);
		return true;
	}

	runningOf(accountId: string): Job[] {
		return [...(this.running.get(accountId) ?? [])].sort((a, b) => a.number - b.number);
	}

	pendingOf(accountId: string): Job[] {
		return [...(this.pending.get(accountId) ?? [])];
	}

	queueRemaining(accountId: string): number {
		return (this.running.get(accountId)?.size ?? 0) + (this.pending.get(accountId)?.length ?? 0);
	}

	private emitStatus(accountId: string): void {
		this.env.emit(accountId, { type: 'status', data: { status: { exec_info: { queue_remaining: this.queueRemaining(accountId) } } } });
	}

	private listOf<T>(map: Map<string, T>, key: string, make: () => T): T {
		let value = map.get(key);
		if (value === undefined) map.set(key, (value = make()));
		return value;
	}

	/** Stops every job (their timers end with the abort) and forgets them. */
	reset(): void {
		for (const job of this.jobs.values()) job.abort.abort();
		this.jobs.clear();
		this.pending.clear();
		this.running.clear();
		this.nextFailure = undefined;
		this.outputSize = undefined;
		this.nextNumber = 1;
	}
}

/** The job record served by GET /api/jobs/{id}; `outputs` only once terminal and when enabled. */
export function jobRecord(job: Job, withOutputs: boolean): Record<string, unknown> {
	const iso = (t?: number) => (t === undefined ? null : new Date(t).toISOString());
	const record: Record<string, unknown> = {
		id: job.promptId,
		prompt_id: job.promptId,
		status: job.status,
		number: job.number,
		created_at: iso(job.submittedAt),
		started_at: iso(job.startedAt),
		completed_at: iso(job.finishedAt),
		updated_at: iso(job.finishedAt ?? job.startedAt ?? job.submittedAt),
	};
	if (job.error) record.execution_error = { ...job.error };
	if (withOutputs && isTerminal(job)) record.outputs = job.outputs;
	return record;
}

/** The output nodes of a job: what the local runner lists as the prompt's outputs to execute. */
export function outputNodeIds(job: Job, catalogue: Record<string, NodeDefinition>): string[] {
	return job.order.filter((id) => catalogue[job.graph[id].class_type].output_node);
}

/**
 * A queue entry in the local runner's tuple shape: [number, prompt_id, prompt, extra_data, output node ids].
 * extra_data defaults to the submitted one without the partner key, client_id added.
 */
export function queueEntry(
	job: Job,
	catalogue: Record<string, NodeDefinition>,
	extraData: Record<string, unknown> = { ...job.publicExtraData, client_id: job.clientId },
): unknown[] {
	return [job.number, job.promptId, job.graph, extraData, outputNodeIds(job, catalogue)];
}
