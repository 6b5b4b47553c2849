/**
 * Cloud: running one job. Nodes run in dependency order, each taking `nodeMs` (deadlines
 * are absolute, so timer lag does not add up over a long batch), and every step is reported on the
 * account's WebSockets the way the real service does. Output nodes store real (or synthetic,
 * streamed) files and announce them in `executed`.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

import { OUTPUT_BEHAVIOUR, SAMPLER_CLASSES, UNAVAILABLE_CHECKPOINTS, type NodeDefinition } from './catalogue';
import { asLink, type Graph } from './graph';
import { CONTENT_TYPES, EXTENSIONS, makeJpeg, makePng, mediaBody, type MediaKind } from './media';
import type { ExecutionFailure, Job, NodeOutput } from './types';
import { metadataPreviewFrame, previewFrame, textFrame } from './ws';
import type { ResolvedOptions } from '../shared/context';
import { picturePng } from '../shared/png';
import type { OutputCache } from './cache';
import type { SignedStorage } from '../shared/storage';

export interface RunEnv {
	/** A message of `job` (absent for account-wide ones): the cloud sends it to every socket of the account, the self-hosted server by client id. */
	emit(accountId: string, message: object | Buffer, job?: Job): void;
	/** The job reached completed or failed (cancellation is handled by the board). */
	finished(job: Job): void;
	storage: SignedStorage;
	options: ResolvedOptions;
	catalogue: Record<string, NodeDefinition>;
	names: FileNamer;
	log(line: string): void;
	/** Whether runs add messages of invented other jobs (default: the interleaveOtherJobs option); only the cloud shares sockets between jobs. */
	otherJobMessages?: boolean;
	/** The upstream server's output cache (self-hosted only): repeated nodes are not run again. */
	cache?: OutputCache;
	/** How a partner node fails when the job's partner key was refused (default: the cloud's billing failure). */
	partnerRefusal?(nodeId: string, classType: string): ExecutionFailure;
}

/** Where a file lives in storage; /api/view looks files up the same way. Scoped per account. */
export function storageKey(accountId: string, type: string, subfolder: string, filename: string): string {
	return [accountId, type, ...subfolder.split('/').filter((s) => s !== ''), filename].join('/');
}

/** Numbered file names per account, folder and prefix (`lighthouse_00001_.png`), like the real output folder. */
export class FileNamer {
	private counters = new Map<string, number>();

	next(scope: string, base: string, ext: string): string {
		const n = (this.counters.get(`${scope}|${base}`) ?? 0) + 1;
		this.counters.set(`${scope}|${base}`, n);
		return `${base}_${String(n).padStart(5, '0')}_.${ext}`;
	}

	reset(): void {
		this.counters.clear();
	}
}

/** Splits `video/clip` into subfolder `video` and base `clip`, dropping `..` and empty parts. */
function splitPrefix(prefix: unknown, fallback: string): { dir: string; base: string } {
	const parts = String(prefix ?? fallback)
		.split(/[\\/]/)
		.filter((p) => p !== '' && p !== '.' && p !== '..');
	const base = parts.pop() ?? fallback;
	return { dir: parts.join('/'), base };
}

const PREVIEW_JPEG = makeJpeg();
const PREVIEW_PNG = picturePng(64, 64, 99);
const PREVIEW_STEPS = 4;

export async function runJob(job: Job, env: RunEnv): Promise<void> {
	const run = new JobRun(job, env);
	try {
		await run.execute();
	} catch (error) {
		if (job.abort.signal.aborted) return; // cancelled (the board reported it) or reset
		env.log(`cloud job ${job.promptId} crashed: ${(error as Error).stack ?? String(error)}`);
		run.fail(job.currentNode ?? null, { exception_type: 'RuntimeError', exception_message: 'Internal simulator error' });
	}
}

class JobRun {
	private readonly nodeMs: number;
	private readonly interleave: boolean;
	private readonly phantomId = randomUUID();
	/** Absolute deadline of the node being run. */
	private clock = 0;

	constructor(
		private readonly job: Job,
		private readonly env: RunEnv,
	) {
		this.nodeMs = Math.max(0, env.options.nodeMs);
		this.interleave = env.otherJobMessages ?? env.options.interleaveOtherJobs;
	}

	private send(type: string, data: Record<string, unknown>): void {
		this.env.emit(this.job.accountId, { type, data: { ...data, prompt_id: data.prompt_id ?? this.job.promptId } }, this.job);
	}

	private sendFrame(frame: Buffer): void {
		this.env.emit(this.job.accountId, frame, this.job);
	}

	private async sleepUntil(at: number): Promise<void> {
		await sleep(Math.max(0, at - Date.now()), undefined, { signal: this.job.abort.signal });
	}

	async execute(): Promise<void> {
		const { job } = this;
		job.status = 'in_progress';
		job.startedAt = Date.now();
		this.clock = job.startedAt;
		this.send('execution_start', { timestamp: job.startedAt });
		// Only a server with a cache (the self-hosted flavour) works out what it can serve from it.
		const fromCache = this.env.cache?.begin(job.graph, job.order);
		const cached = fromCache?.cached ?? new Map<string, { output?: NodeOutput }>();
		this.send('execution_cached', { nodes: [...cached.keys()], timestamp: Date.now() });
		this.phantom('executing');
		const injected = job.injectedFailure;
		if (injected?.nodeId !== undefined && !job.order.includes(injected.nodeId)) return this.fail(injected.nodeId, injected);
		const middle = Math.floor((job.order.length - 1) / 2);
		for (const [index, id] of job.order.entries()) {
			const earlier = cached.get(id);
			if (earlier) {
				if (earlier.output) this.replay(id, earlier.output);
				continue;
			}
			const failure = await this.runNode(id);
			if (failure) return this.fail(id, failure);
			fromCache?.store(id, job.outputs[id]);
			if (index === middle) this.phantom('executed');
		}
		this.phantom('execution_error');
		this.succeed();
	}

	/** Runs one node; returns the failure it ends with, if any. */
	private async runNode(id: string): Promise<ExecutionFailure | undefined> {
		const { job } = this;
		const node = job.graph[id];
		job.currentNode = id;
		// Upstream marks the node running, then announces it.
		this.sendProgressState(id, 0, 1);
		this.send('executing', { node: id, display_node: id });
		this.clock += this.nodeMs;
		if (SAMPLER_CLASSES.has(node.class_type)) await this.sample(id);
		else if (node.class_type === 'SaveImageWebsocket') await this.sendImages(id);
		else {
			if (this.env.catalogue[node.class_type].api_node) this.sendFrame(textFrame(id, 'Waiting for the partner service to respond…'));
			await this.sleepUntil(this.clock);
		}
		const failure = this.failureAt(id);
		if (failure) return failure;
		if (OUTPUT_BEHAVIOUR[node.class_type]) this.writeOutputs(id);
		job.executed.push(id);
		job.currentNode = undefined;
		this.sendProgressState(id, 1, 1);
		return undefined;
	}

	/** A sampler reports a few progress steps, each with a preview frame (type 1 and 4 alternate). */
	private async sample(id: string): Promise<void> {
		const inputs = this.job.graph[id].inputs;
		const steps = Number.isInteger(Number(inputs.steps)) && Number(inputs.steps) > 0 ? Number(inputs.steps) : 20;
		const start = Date.now();
		const span = Math.max(0, this.clock - start);
		this.sendFrame(textFrame(id, `Sampling ${steps} steps with ${String(inputs.sampler_name ?? 'euler')}`));
		const shown = Math.min(PREVIEW_STEPS, steps);
		for (let k = 1; k <= shown; k++) {
			await this.sleepUntil(start + (span * k) / shown);
			const value = Math.round((steps * k) / shown);
			this.send('progress', { value, max: steps, node: id });
			this.sendProgressState(id, value, steps);
			if (k % 2 === 1) this.sendFrame(previewFrame(1, PREVIEW_JPEG));
			else this.sendFrame(metadataPreviewFrame(this.previewMetadata(id), PREVIEW_PNG));
		}
	}

	/** SaveImageWebsocket: each image of the batch as a PNG frame (type 1, image type 2), after a progress tick; no files, no `executed`. */
	private async sendImages(id: string): Promise<void> {
		await this.sleepUntil(this.clock);
		const count = batchSize(this.job.graph, id);
		for (let i = 1; i <= count; i++) {
			this.sendProgressState(id, i - 1, count);
			this.send('progress', { value: i, max: count, node: id });
			this.sendFrame(previewFrame(2, PREVIEW_PNG));
		}
	}

	private previewMetadata(id: string): Record<string, unknown> {
		return {
			node_id: id,
			prompt_id: this.job.promptId,
			display_node_id: id,
			parent_node_id: null,
			real_node_id: id,
			image_type: 'image/png',
		};
	}

	/** progress_state: every node of the run with its state (pending, running, finished). */
	private sendProgressState(current: string, value: number, max: number): void {
		const { job } = this;
		const nodes: Record<string, unknown> = {};
		for (const id of job.order) {
			const state = job.executed.includes(id) ? 'finished' : id === current ? 'running' : 'pending';
			nodes[id] = {
				value: state === 'running' ? value : state === 'finished' ? 1 : 0,
				max: state === 'running' ? max : 1,
				state,
				node_id: id,
				prompt_id: job.promptId,
				display_node_id: id,
				parent_node_id: null,
				real_node_id: id,
			};
		}
		this.send('progress_state', { nodes });
	}

	/** Injected failures first, then what the real service would fail on at this node. */
	private failureAt(id: string): ExecutionFailure | undefined {
		const { job } = this;
		const node = job.graph[id];
		const injected = job.injectedFailure;
		if (injected && (injected.nodeId ?? job.order[job.order.length - 1]) === id) return injected;
		if (this.env.catalogue[node.class_type].api_node && !job.partnerAuthorised) {
			return (this.env.partnerRefusal ?? billingRefusal)(id, node.class_type);
		}
		const ckpt = node.inputs.ckpt_name;
		if (node.class_type === 'CheckpointLoaderSimple' && UNAVAILABLE_CHECKPOINTS.includes(String(ckpt))) {
			return {
				exception_type: 'ModelDownloadError',
				exception_message: `Model ${String(ckpt)} is not available on this service and could not be downloaded.`,
			};
		}
		return undefined;
	}

	/** A cached output node: its earlier output announced again, without running. */
	private replay(id: string, output: NodeOutput): void {
		this.job.outputs[id] = output;
		this.job.executed.push(id);
		this.send('executed', { node: id, display_node: id, output });
		this.sendProgressState(id, 1, 1);
	}

	private writeOutputs(id: string): void {
		const output = this.makeOutput(id);
		this.job.outputs[id] = output;
		this.send('executed', { node: id, display_node: id, output });
	}

	/** Stores the node's files and builds its output object (reference shapes vary like the real nodes'). */
	private makeOutput(id: string): NodeOutput {
		const { job } = this;
		const node = job.graph[id];
		const behaviour = OUTPUT_BEHAVIOUR[node.class_type];
		const kind = behaviour.kind(node.inputs);
		const count = behaviour.key === 'images' ? batchSize(job.graph, id) : 1;
		const refs: Array<Record<string, unknown>> = [];
		for (let i = 0; i < count; i++) refs.push(this.storeFile(id, kind, i));
		return { [behaviour.key]: refs };
	}

	private storeFile(id: string, kind: MediaKind, index: number): Record<string, unknown> {
		const { job } = this;
		const node = job.graph[id];
		const plan = filePlan(node.class_type, node.inputs);
		const filename = this.env.names.next(`${job.accountId}|${plan.type}|${plan.dir}`, plan.base, EXTENSIONS[kind]);
		const body = mediaBody(kind, job.number * 31 + index, job.outputSize);
		this.env.storage.put(storageKey(job.accountId, plan.type, plan.dir, filename), CONTENT_TYPES[kind], body);
		return plan.reference(filename);
	}

	/** A message of another job of the same user, so clients must filter on prompt_id. */
	private phantom(type: 'executing' | 'executed' | 'execution_error'): void {
		if (!this.interleave) return;
		const prompt_id = this.phantomId;
		const node = '9';
		if (type === 'executing') return this.send('executing', { node, display_node: node, prompt_id });
		if (type === 'executed') {
			const filename = this.env.names.next(`${this.job.accountId}|output|`, 'other_job', 'png');
			this.env.storage.put(storageKey(this.job.accountId, 'output', '', filename), 'image/png', makePng(7));
			const output = { images: [{ filename, subfolder: '', type: 'output' }] };
			return this.send('executed', { node, display_node: node, output, prompt_id });
		}
		this.send('execution_error', {
			prompt_id,
			node_id: node,
			node_type: 'SaveImage',
			executed: [],
			exception_type: 'OOMError',
			exception_message: 'Out of GPU memory while running another job of this account.',
			traceback: ['Traceback (most recent call last):\n', 'torch.OutOfMemoryError: CUDA out of memory.\n'],
			current_inputs: {},
			current_outputs: {},
			timestamp: Date.now(),
		});
	}

	private succeed(): void {
		const { job } = this;
		job.status = 'completed';
		job.finishedAt = Date.now();
		this.send('execution_success', { timestamp: job.finishedAt });
		this.send('executing', { node: null, display_node: null });
		this.env.finished(job);
	}

	/** execution_error, then the end-of-run `executing` with node null (as the real runner sends after any run). */
	fail(nodeId: string | null, failure: ExecutionFailure): void {
		const { job } = this;
		const nodeType = nodeId !== null ? (job.graph[nodeId]?.class_type ?? null) : null;
		job.status = 'failed';
		job.error = {
			node_id: nodeId,
			node_type: nodeType,
			exception_type: failure.exception_type,
			exception_message: failure.exception_message,
		};
		job.finishedAt = Date.now();
		this.send('execution_error', {
			node_id: nodeId,
			node_type: nodeType,
			executed: [...job.executed],
			exception_type: failure.exception_type,
			exception_message: failure.exception_message,
			traceback: traceback(nodeType, failure),
			current_inputs: nodeId !== null ? (job.graph[nodeId]?.inputs ?? {}) : {},
			current_outputs: {},
			timestamp: job.finishedAt,
		});
		this.send('executing', { node: null, display_node: null });
		this.env.finished(job);
	}
}

/** The cloud bills partner nodes to the account whose key is in extra_data; any other key cannot be billed. */
function billingRefusal(nodeId: string, classType: string): ExecutionFailure {
	return {
		exception_type: 'InsufficientFundsError',
		exception_message:
			`Partner node ${classType} (node ${nodeId}) could not be billed: extra_data.api_key_host_org is missing or is not ` +
			"this account's API key. Workflows with partner nodes must send the platform API key as extra_data.api_key_host_org.",
	};
}

function traceback(nodeType: string | null, failure: ExecutionFailure): string[] {
	return [
		'Traceback (most recent call last):\n',
		'  File "/app/execution.py", line 496, in execute\n    output_data, output_ui, has_subgraph = get_output_data(obj, input_data_all)\n',
		`  File "/app/nodes.py", line 1, in ${nodeType ?? 'run'}\n`,
		`${failure.exception_type}: ${failure.exception_message}\n`,
	];
}

interface FilePlan {
	dir: string;
	base: string;
	type: 'output' | 'temp';
	reference(filename: string): Record<string, unknown>;
}

/**
 * Reference shapes per output node. Some deliberately omit `subfolder` or `type`, as the real
 * service sometimes does; files of such references are stored where the defaults point
 * (subfolder "", type output).
 */
function filePlan(classType: string, inputs: Record<string, unknown>): FilePlan {
	switch (classType) {
		case 'PreviewImage': {
			const base = `ComfyUI_temp_${randomUUID().slice(0, 5)}`;
			return { dir: '', base, type: 'temp', reference: (filename) => ({ filename, subfolder: '', type: 'temp' }) };
		}
		case 'SaveVideo': {
			const { base } = splitPrefix(inputs.filename_prefix, 'ComfyUI');
			return { dir: '', base, type: 'output', reference: (filename) => ({ filename }) };
		}
		case 'SaveAudio': {
			const { dir, base } = splitPrefix(inputs.filename_prefix, 'ComfyUI');
			return { dir, base, type: 'output', reference: (filename) => ({ filename, subfolder: dir }) };
		}
		case 'VHS_VideoCombine': {
			const { dir, base } = splitPrefix(inputs.filename_prefix, 'AnimateDiff');
			const type = inputs.save_output === false ? 'temp' : 'output';
			const format = String(inputs.format ?? 'image/gif');
			const reference = (filename: string) => ({ filename, subfolder: dir, type, format, frame_rate: Number(inputs.frame_rate ?? 8) });
			return { dir, base, type, reference };
		}
		default: {
			const { dir, base } = splitPrefix(inputs.filename_prefix, 'ComfyUI');
			return { dir, base, type: 'output', reference: (filename) => ({ filename, subfolder: dir, type: 'output' }) };
		}
	}
}

/** Images per output node: the batch_size of an upstream EmptyLatentImage or EmptyImage (1 when none), at most 8. */
function batchSize(graph: Graph, id: string, seen = new Set<string>()): number {
	if (seen.has(id) || !graph[id]) return 1;
	seen.add(id);
	const node = graph[id];
	if (node.class_type === 'EmptyLatentImage' || node.class_type === 'EmptyImage')
		return Math.min(8, Math.max(1, Number(node.inputs.batch_size) || 1));
	for (const value of Object.values(node.inputs)) {
		const link = asLink(value);
		if (!link) continue;
		const n = batchSize(graph, link[0], seen);
		if (n > 1) return n;
	}
	return 1;
}
