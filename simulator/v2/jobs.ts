/**
 * v2: jobs. The cloud engine (cloud/jobs.ts, cloud/run.ts) queues and runs each job; this book
 * listens to what the engine reports (the messages it would send on a WebSocket) and keeps the v2
 * view of it: status, the latest progress snapshot and preview, outputs committed as the output
 * nodes finish (each an asset), the error of a failed run. Every change is published to the job's
 * event streams (events.ts). A cancel of a running job waits for the next node or sampler step, as
 * ComfyUI's interrupt does.
 */
import type { AssetBook, AssetRecord } from './assets';
import { JobBoard } from '../cloud/jobs';
import { storageKey } from '../cloud/run';
import type { Job } from '../cloud/types';

export type V2Status = 'queued' | 'running' | 'succeeded' | 'canceling' | 'canceled' | 'failed' | 'expired';

const TERMINAL: ReadonlySet<V2Status> = new Set(['succeeded', 'canceled', 'failed', 'expired']);

export interface Progress {
	value: number;
	nodes_done: number;
	nodes_total: number;
	current_node: string | null;
	current_node_class: string | null;
	step: number | null;
	steps: number | null;
	message: string | null;
}

export interface PreviewEvent {
	node_id: string;
	content_type: string;
	data_base64: string;
}

export interface JobError {
	code: string;
	message: string;
	node_id: string | null;
	class_type: string | null;
	traceback: string | null;
}

export interface V2Job {
	readonly id: string;
	readonly accountId: string;
	readonly engine: Job;
	/** The workflow as submitted (what GET .../workflow answers with `format: api`). */
	readonly workflow: Record<string, unknown>;
	status: V2Status;
	createdAt: number;
	startedAt: number | null;
	completedAt: number | null;
	expiresAt: number;
	queuePosition: number | null;
	progress: Progress | null;
	preview: PreviewEvent | null;
	/** Output assets with the node that made each, in commit order. */
	outputs: Array<{ nodeId: string; asset: AssetRecord }>;
	error: JobError | null;
	/** Set by a test: the job was "submitted from the editor" with this UI workflow (GET .../workflow answers `format: save`). */
	savedWorkflow?: Record<string, unknown>;
	/** The job ends `expired` once this many nodes have run (the v2ExpireNextJob fault). */
	expireAfterNodes?: number;
	/** False once past its retention: every read of it is a 404. */
	retained: boolean;
}

/** Something a job's streams are told: an SSE event name and its data (the job itself for `status`). */
export type JobEvent = { event: 'status' | 'progress' | 'preview' | 'output'; job: V2Job; data: unknown };

/** How long a job is kept (a platform property: the contract fixes none). */
export const JOB_RETENTION_MS = 24 * 60 * 60 * 1000;

export const isFinished = (job: V2Job) => TERMINAL.has(job.status);

type Message = { type: string; data: Record<string, unknown> };

/** The output kind of a content type (the contract's OutputType). */
export function outputType(contentType: string): string {
	const top = contentType.split('/')[0];
	if (top === 'image' || top === 'video' || top === 'audio' || top === 'text') return top;
	return 'file';
}

export class V2JobBook {
	readonly jobs = new Map<string, V2Job>();
	private readonly listeners = new Set<(e: JobEvent) => void>();
	private next?: { workflow: Record<string, unknown>; expireAfterNodes?: number };
	board!: JobBoard;

	constructor(
		private readonly assets: AssetBook,
		private readonly pendingOf: (accountId: string) => Job[],
	) {}

	/** Hears every job event (events.ts routes them to streams). */
	listen(listener: (e: JobEvent) => void): void {
		this.listeners.add(listener);
	}

	/** What the next job the engine takes was submitted with (the engine reports its start before submit() returns). */
	expect(workflow: Record<string, unknown>, expireAfterNodes?: number): void {
		this.next = { workflow, expireAfterNodes };
	}

	/** The v2 view of a job the engine just took, made from what expect() was told. */
	adopt(engine: Job): V2Job {
		const known = this.jobs.get(engine.promptId);
		if (known) return known;
		const { workflow, expireAfterNodes } = this.next ?? { workflow: engine.graph };
		this.next = undefined;
		const job: V2Job = {
			id: engine.promptId,
			accountId: engine.accountId,
			engine,
			workflow,
			status: 'queued',
			createdAt: engine.submittedAt,
			startedAt: null,
			completedAt: null,
			expiresAt: engine.submittedAt + JOB_RETENTION_MS,
			queuePosition: null,
			progress: null,
			preview: null,
			outputs: [],
			error: null,
			expireAfterNodes,
			retained: true,
		};
		this.jobs.set(job.id, job);
		this.updateQueue(job.accountId);
		return job;
	}

	/** The account's job, unless past its retention. */
	get(accountId: string, id: string): V2Job | undefined {
		const job = this.jobs.get(id);
		return job && job.accountId === accountId && job.retained ? job : undefined;
	}

	/** Whether an asset is an output of a job still kept. */
	holds(assetId: string): boolean {
		return [...this.jobs.values()].some((job) => job.retained && job.outputs.some((o) => o.asset.id === assetId));
	}

	/** Cancel: a queued job ends now; a running one becomes canceling until its next node or step; a finished one stays. */
	cancel(job: V2Job): void {
		if (job.status === 'queued') this.board.cancel(job.engine);
		else if (job.status === 'running') {
			job.status = 'canceling';
			this.publish({ event: 'status', job, data: job });
		}
	}

	/** The job passes its retention: reads of it and of its outputs answer 404 from now on. */
	passRetention(job: V2Job): void {
		job.retained = false;
		for (const output of job.outputs) this.assets.delete(output.asset.id);
	}

	reset(): void {
		this.jobs.clear();
		this.next = undefined;
	}

	/** What the engine reports: account-wide messages (queue changes) and the messages of one job. */
	hear(accountId: string, message: object | Buffer, engine?: Job): void {
		if (!engine) return void (Buffer.isBuffer(message) || (message as Message).type !== 'status' || this.updateQueue(accountId));
		const job = this.jobs.get(engine.promptId) ?? this.adopt(engine);
		if (isFinished(job)) return;
		if (Buffer.isBuffer(message)) return this.previewFrom(job, message);
		const { type, data } = message as Message;
		if (data.prompt_id !== undefined && data.prompt_id !== job.id) return;
		if (type === 'execution_start') return this.start(job);
		if ((type === 'executing' && data.node !== null) || type === 'progress') return this.boundary(job);
		if (type === 'progress_state')
			return this.progressFrom(job, data.nodes as Record<string, { state: string; value: number; max: number }>);
		if (type === 'executed') return this.commit(job, String(data.node), data.output as Record<string, Array<Record<string, unknown>>>);
		if (type === 'execution_success') return this.finish(job, 'succeeded');
		if (type === 'execution_error') return this.failFrom(job, data);
		if (type === 'execution_interrupted') this.finish(job, job.expireAfterNodes !== undefined ? 'expired' : 'canceled');
	}

	private publish(e: JobEvent): void {
		for (const listener of this.listeners) listener(e);
	}

	private updateQueue(accountId: string): void {
		const pending = this.pendingOf(accountId);
		for (const job of this.jobs.values()) {
			if (job.accountId !== accountId || job.status !== 'queued') continue;
			const position = pending.findIndex((p) => p.promptId === job.id);
			if (position === -1 || position === job.queuePosition) continue;
			job.queuePosition = position;
			this.publish({ event: 'status', job, data: job });
		}
	}

	private start(job: V2Job): void {
		job.status = 'running';
		job.startedAt = job.engine.startedAt ?? Date.now();
		job.queuePosition = null;
		job.progress = { value: 0, nodes_done: 0, nodes_total: job.engine.order.length, ...NO_NODE };
		this.publish({ event: 'status', job, data: job });
		this.publish({ event: 'progress', job, data: job.progress });
	}

	/** A node or sampler step begins: where a requested cancel (or an injected expiry) lands. */
	private boundary(job: V2Job): void {
		const expires = job.expireAfterNodes !== undefined && job.engine.executed.length >= job.expireAfterNodes;
		if (job.status === 'canceling' || expires) this.board.cancel(job.engine);
	}

	private progressFrom(job: V2Job, nodes: Record<string, { state: string; value: number; max: number }>): void {
		const entries = Object.entries(nodes);
		const done = entries.filter(([, n]) => n.state === 'finished').length;
		const running = entries.find(([, n]) => n.state === 'running');
		const fraction = running && running[1].max > 0 ? running[1].value / running[1].max : 0;
		const stepped = running !== undefined && running[1].max > 1;
		const classType = running ? (job.engine.graph[running[0]]?.class_type ?? null) : null;
		job.progress = {
			value: entries.length === 0 ? 0 : Math.min(1, (done + fraction) / entries.length),
			nodes_done: done,
			nodes_total: entries.length,
			current_node: running ? running[0] : null,
			current_node_class: classType,
			step: stepped ? running[1].value : null,
			steps: stepped ? running[1].max : null,
			message: stepped ? `${classType} ${running[1].value}/${running[1].max}` : null,
		};
		this.publish({ event: 'progress', job, data: job.progress });
	}

	/** Preview frames (binary type 1: image type then bytes; type 4: metadata JSON then bytes); text frames are not previews. */
	private previewFrom(job: V2Job, frame: Buffer): void {
		const kind = frame.readUInt32BE(0);
		let contentType = frame.readUInt32BE(4) === 2 ? 'image/png' : 'image/jpeg';
		let image = frame.subarray(8);
		if (kind === 4) {
			const length = frame.readUInt32BE(4);
			const meta = JSON.parse(frame.subarray(8, 8 + length).toString('utf8')) as { image_type?: string };
			contentType = meta.image_type ?? 'image/png';
			image = frame.subarray(8 + length);
		} else if (kind !== 1) return;
		job.preview = { node_id: job.engine.currentNode ?? '', content_type: contentType, data_base64: image.toString('base64') };
		this.publish({ event: 'preview', job, data: job.preview });
	}

	/** An output node finished: each file it stored becomes an asset on job.outputs, announced on the streams. */
	private commit(job: V2Job, nodeId: string, output: Record<string, Array<Record<string, unknown>>>): void {
		for (const refs of Object.values(output ?? {})) {
			for (const ref of refs) {
				const filename = String(ref.filename);
				const key = storageKey(job.accountId, String(ref.type ?? 'output'), String(ref.subfolder ?? ''), filename);
				const asset = this.assets.mintOutput(job.accountId, key, filename, job.id);
				if (!asset) continue;
				job.outputs.push({ nodeId, asset });
				this.publish({ event: 'output', job, data: { nodeId, asset } });
			}
		}
	}

	private failFrom(job: V2Job, data: Record<string, unknown>): void {
		const traceback = Array.isArray(data.traceback) ? data.traceback.join('') : null;
		job.error = {
			code: 'node_execution_error',
			message: String(data.exception_message ?? 'The workflow failed.'),
			node_id: typeof data.node_id === 'string' ? data.node_id : null,
			class_type: typeof data.node_type === 'string' ? data.node_type : null,
			traceback,
		};
		this.finish(job, 'failed');
	}

	private finish(job: V2Job, status: V2Status): void {
		job.status = status;
		job.completedAt = job.engine.finishedAt ?? Date.now();
		job.queuePosition = null;
		if (status === 'succeeded') {
			const total = job.engine.order.length;
			job.progress = { value: 1, nodes_done: total, nodes_total: total, ...NO_NODE };
			this.publish({ event: 'progress', job, data: job.progress });
		}
		this.publish({ event: 'status', job, data: job });
	}
}

const NO_NODE = { current_node: null, current_node_class: null, step: null, steps: null, message: null };
