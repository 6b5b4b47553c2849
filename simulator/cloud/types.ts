/**
 * Cloud: the shapes of a job, shared by the board that schedules jobs (jobs.ts) and the
 * runner that plays them (run.ts), so neither imports the other's types.
 */
import type { Graph } from './graph';

export type JobStatus = 'pending' | 'in_progress' | 'completed' | 'failed' | 'cancelled';

/** An `executed` output object: file references under images / video / gifs / audio. */
export type NodeOutput = Record<string, Array<Record<string, unknown>>>;

/** A failure to inject or report: exception_type is one of the spec's execution error types. */
export interface ExecutionFailure {
	exception_type: string;
	exception_message: string;
	nodeId?: string;
}

/** What tests and benchmarks may read about a job. Timestamps are the simulator's own (ms). */
export interface JobView {
	readonly promptId: string;
	readonly accountId: string;
	readonly status: JobStatus;
	readonly submittedAt: number;
	readonly startedAt?: number;
	/** Taken just before the terminal message (execution_success / _error / _interrupted) is sent. */
	readonly finishedAt?: number;
	readonly outputs: Readonly<Record<string, NodeOutput>>;
	/** Keys of extra_data as submitted (values are not kept: api_key_host_org is a secret). */
	readonly extraDataKeys: readonly string[];
	readonly clientId?: string;
	/** The error reported in execution_error, once failed. */
	readonly error?: Readonly<{ node_id: string | null; node_type: string | null; exception_type: string; exception_message: string }>;
}

export interface Job extends JobView {
	status: JobStatus;
	startedAt?: number;
	finishedAt?: number;
	outputs: Record<string, NodeOutput>;
	error?: JobView['error'];
	number: number;
	graph: Graph;
	order: string[];
	/** extra_data without api_key_host_org, for queue listings. */
	publicExtraData: Record<string, unknown>;
	/** Whether extra_data.api_key_host_org matched the account's key (partner nodes may run). */
	partnerAuthorised: boolean;
	injectedFailure?: ExecutionFailure;
	/** Byte size of synthetic output files, fixed at submit (undefined: small real files). */
	outputSize?: number;
	/** Node being executed and nodes done, for interrupt/error messages. */
	currentNode?: string;
	executed: string[];
	abort: AbortController;
}
