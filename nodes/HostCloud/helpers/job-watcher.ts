/**
 * Waits for cloud jobs (area A). One WebSocket serves every job of a node run:
 * - it is opened before the first submit and messages are buffered until the submit answers with
 *   its prompt_id (a short job can finish before the answer arrives);
 * - every message is filtered on data.prompt_id (each connection gets all the user's messages);
 * - outputs come from `executed` messages; `execution_success` ends a job, `execution_error` fails
 *   it, `execution_interrupted` cancels it;
 * - when the socket is silent, closed or absent, job status is polled, the socket is reopened with
 *   back-off, and outputs that may have been missed are read from the job record, or the job fails
 *   with "outputs may be incomplete": a partial list is never passed off as whole;
 * - a maximum wait and the execution's cancel signal end the wait; on cancel the node's own jobs
 *   are cancelled (POST /api/queue {delete}), never interrupted for the whole account.
 * Timers are built from n8n's `sleep` and AbortControllers (no setTimeout in community nodes).
 */
import { randomUUID } from 'crypto';

import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { mergeNodeOutput } from './output-files';
import { parsePreviewFrame, type PreviewImage } from './preview-frames';
import { cloudJobStateOf, type CloudJobState } from '../../shared/task-status';
import { jittered } from '../../shared/retry';
import { hostRequest, redact } from '../../shared/transport';
import { isRecord } from '../../shared/validation';
import { runtimeWebSocket, SOCKET_OPEN, type RuntimeWebSocket } from './websocket';

export interface WatchSettings {
	/** Use the WebSocket when the runtime has one (false: poll only). */
	useWebSocket: boolean;
	/** Between status polls of a job while the socket cannot be relied on. */
	pollIntervalMs: number;
	/** No message for this long while jobs run: poll their status to reconcile. */
	silenceMs: number;
	/** Longest wait for one job; 0 waits without limit. */
	maxWaitMs: number;
	/** At the maximum wait, cancel the job (true) or leave it running (false). */
	cancelOnTimeout: boolean;
	/** Keep the last preview image of each job. */
	keepPreview: boolean;
	/** How long to wait for the socket to open. */
	connectTimeoutMs?: number;
	/** Whether stopping early (cancelled execution, failed item) cancels the jobs on the cloud (default true: the node started them). */
	cancelOnAbandon?: boolean;
}

export interface FinishedJob {
	promptId: string;
	status: 'completed';
	/** Node id → that node's output, as the service reported it. */
	outputs: Record<string, IDataObject>;
	/** True when the outputs were read from the job record (the socket may have missed some). */
	recovered: boolean;
	preview?: PreviewImage;
}

/** Taken before a submit starts; handed to `watch` with the prompt_id it answered. */
export interface SubmissionTicket {
	epoch: number;
	socketOpen: boolean;
	open: boolean;
}

interface ExecutionErrorInfo {
	exception_type: string;
	exception_message: string;
	node_id?: string;
	node_type?: string;
}

interface TrackedJob {
	promptId: string;
	itemIndex: number;
	/** Gap epoch when the job was submitted; a later epoch means messages may have been missed. */
	startEpoch: number;
	/** Messages were certainly missed (no socket when submitted, or watched after the fact). */
	gapFromStart: boolean;
	outputs: Record<string, IDataObject>;
	preview?: PreviewImage;
	error?: ExecutionErrorInfo;
	lastStatus?: string;
	deadline?: number;
	nextPollAt: number;
	/** Poll once even while the socket is trusted (after a reconnect, to confirm an end, to start following). */
	pollOnce: boolean;
	polling: boolean;
	/** The socket announced the end of the run (`executing` with no node): a poll confirms it. */
	endSeen: boolean;
	/** The job is over and its outputs or failure details are being read. */
	finishing: boolean;
	timingOut: boolean;
	settled: boolean;
	resolve(job: FinishedJob): void;
	reject(error: Error): void;
}

/** Message types buffered for a prompt_id the node does not know yet. */
const BUFFERED_TYPES = new Set(['executed', 'execution_success', 'execution_error', 'execution_interrupted', 'executing']);
const EARLY_BUFFER_LIMIT = 5000;
const RECONNECT_FIRST_MS = 100;
const RECONNECT_MAX_MS = 15_000;
const CANCEL_TIMEOUT_MS = 10_000;

/** Plain words for the service's execution error types. */
const EXECUTION_ERRORS: Record<string, { summary: string; hint: string }> = {
	OOMError: {
		summary: 'the cloud ran out of GPU memory',
		hint: 'Use a smaller image size or batch size, fewer frames, or a lighter model, then run again.',
	},
	InsufficientFundsError: {
		summary: 'the account balance is too low to pay for a partner node',
		hint: 'Top up the account balance, then run again.',
	},
	InactiveSubscriptionError: {
		summary: 'the subscription is not active',
		hint: 'Running workflows needs an active subscription. Check the account’s subscription.',
	},
	ValidationError: {
		summary: 'the workflow or one of its inputs is invalid',
		hint: 'Check the node and input named in the message (Get Node Definitions lists what each node accepts).',
	},
	ModelDownloadError: {
		summary: 'a model the workflow needs is not available or could not be downloaded',
		hint: 'Check the model names in the workflow (for example ckpt_name) against Get Node Definitions.',
	},
	ImageDownloadError: {
		summary: 'an input image could not be downloaded from its URL',
		hint: 'Check that the image URL is public and reachable, or upload the image instead.',
	},
};

/** The WebSocket address: the credential's WebSocket base URL, or the base URL with https→wss, http→ws. */
export function socketBaseUrl(baseUrl: string, wsBaseUrl?: string): string {
	const explicit = (wsBaseUrl ?? '').trim().replace(/\/+$/, '');
	if (explicit) return explicit.replace(/\/ws$/, '');
	return baseUrl
		.trim()
		.replace(/\/+$/, '')
		.replace(/^https:/i, 'wss:')
		.replace(/^http:/i, 'ws:');
}

/** A failure message and hint for an execution_error, in words a user can act on. */
export function describeExecutionError(promptId: string, error: ExecutionErrorInfo): { message: string; description: string } {
	const known = EXECUTION_ERRORS[error.exception_type];
	const at = error.node_id ? ` at node ${error.node_id}${error.node_type ? ` (${error.node_type})` : ''}` : '';
	const said = error.exception_message ? `: ${error.exception_message}` : '';
	if (known) {
		return {
			message: `Job ${promptId} failed${at}: ${known.summary} (${error.exception_type}${said})`,
			description: known.hint,
		};
	}
	return {
		message: `Job ${promptId} failed${at}: ${error.exception_type || 'execution error'}${said}`,
		description: 'The cloud reported this error while running the workflow. Check the node named in the message.',
	};
}

function errorInfoFrom(data: Record<string, unknown>): ExecutionErrorInfo {
	return {
		exception_type: typeof data.exception_type === 'string' ? data.exception_type : '',
		exception_message: typeof data.exception_message === 'string' ? data.exception_message : '',
		...(data.node_id !== undefined && data.node_id !== null ? { node_id: String(data.node_id) } : {}),
		...(typeof data.node_type === 'string' ? { node_type: data.node_type } : {}),
	};
}

export class JobWatcher {
	private socket?: RuntimeWebSocket;
	private connecting = false;
	private reconnectAt = 0;
	private reconnectDelay = RECONNECT_FIRST_MS;
	/** Bumped whenever messages may have been lost (socket closed, silence). */
	private gapEpoch = 0;
	private lastMessageAt = Date.now();
	private silent = false;
	private readonly jobs = new Map<string, TrackedJob>();
	private readonly following = new Map<string, Promise<FinishedJob>>();
	private readonly early = new Map<string, Array<Record<string, unknown>>>();
	private earlyCount = 0;
	private inFlight = 0;
	/** The job of the latest progress message: type 1 previews do not name their job. */
	private activePrompt?: string;
	private wake = new AbortController();
	private closed = false;
	private abandoned?: { reason: string };
	private loop?: Promise<void>;
	private readonly cleanups: Array<Promise<void>> = [];
	private apiKey = '';
	private socketUrl = '';
	readonly clientId = randomUUID();
	private readonly cancelSignal: AbortSignal | undefined;
	private readonly onCancel = () => this.abandon('cancelled');

	constructor(
		private readonly context: IExecuteFunctions,
		private readonly settings: WatchSettings,
	) {
		this.cancelSignal = context.getExecutionCancelSignal();
	}

	/** Opens the socket (when there is one) before anything is submitted, and starts reconciling. */
	async start(): Promise<void> {
		const credentials = await this.context.getCredentials('hostCloudApi');
		this.apiKey = String(credentials.apiKey ?? '');
		const base = socketBaseUrl(String(credentials.baseUrl ?? ''), credentials.wsBaseUrl as string | undefined);
		this.socketUrl = `${base}/ws?clientId=${encodeURIComponent(this.clientId)}&token=${encodeURIComponent(this.apiKey)}`;
		if (this.socketWanted()) await this.connect();
		if (this.cancelSignal?.aborted) this.abandon('cancelled');
		else this.cancelSignal?.addEventListener('abort', this.onCancel, { once: true });
		this.loop = this.run();
	}

	/** Whether progress comes over a WebSocket right now (false: status polling). */
	get usingSocket(): boolean {
		return this.socket?.readyState === SOCKET_OPEN;
	}

	/** Call just before submitting: messages for unknown jobs are kept until `watch` or `submissionFailed`. */
	beginSubmission(): SubmissionTicket {
		this.inFlight++;
		this.lastMessageAt = Math.max(this.lastMessageAt, Date.now());
		return { epoch: this.gapEpoch, socketOpen: this.usingSocket, open: true };
	}

	/** The submit failed: nothing to watch. */
	submissionFailed(ticket: SubmissionTicket): void {
		this.endSubmission(ticket);
	}

	/** Waits for a job this node submitted (with `ticket` from before the submit). */
	watch(promptId: string, itemIndex: number, ticket: SubmissionTicket): Promise<FinishedJob> {
		const promise = this.track(promptId, itemIndex, ticket.epoch, !ticket.socketOpen, false);
		const buffered = this.early.get(promptId);
		this.early.delete(promptId);
		this.endSubmission(ticket);
		const job = this.jobs.get(promptId);
		if (job && buffered) for (const message of buffered) this.apply(job, message);
		return promise;
	}

	/** Waits for a job submitted earlier (its earlier messages were missed: outputs come from the job record). */
	follow(promptId: string, itemIndex: number): Promise<FinishedJob> {
		const followed = this.following.get(promptId);
		if (followed) {
			// The same job named by several items: one wait, each item's error carrying its own index.
			return followed.catch((error: Error & { description?: string }) => {
				throw this.jobError(promptId, itemIndex, error.message, error.description ?? undefined);
			});
		}
		const promise = this.track(promptId, itemIndex, this.gapEpoch, true, true);
		this.following.set(promptId, promise);
		return promise;
	}

	/**
	 * Stops waiting: every job still running is cancelled on the cloud and its wait fails.
	 * `reason` 'cancelled' is the execution's cancel signal; anything else is a failed item.
	 */
	abandon(reason: string): void {
		if (this.abandoned) return;
		this.abandoned = { reason };
		const open = [...this.jobs.values()].filter((job) => !job.settled);
		for (const job of open) this.settleWithError(job, this.abandonError(job.promptId, job.itemIndex));
		if (this.ownsJobs) {
			const submitting = this.inFlight > 0;
			const known = open.map((job) => job.promptId);
			this.cleanups.push(this.cancelJobs(known).then(async () => (submitting ? await this.cancelUnansweredSubmissions(known) : undefined)));
		}
		this.kick();
	}

	/** Closes the socket and waits for clean-up calls (cancelling jobs) to finish. */
	async close(): Promise<void> {
		this.closed = true;
		this.cancelSignal?.removeEventListener('abort', this.onCancel);
		this.kick();
		this.dropSocket();
		await this.loop;
		await Promise.all(this.cleanups);
	}

	private get ownsJobs(): boolean {
		return this.settings.cancelOnAbandon !== false;
	}

	private abandonError(promptId: string, itemIndex: number): NodeOperationError {
		const cancelled = this.abandoned?.reason === 'cancelled';
		const fate = this.ownsJobs ? 'the job was stopped on the cloud' : 'the job itself was left running';
		// "canceled" is the word n8n looks for to mark the execution canceled rather than failed.
		const message = cancelled
			? `The execution was canceled while waiting for job ${promptId}; ${fate}`
			: `Stopped waiting for job ${promptId} because another item failed; ${fate}`;
		return this.jobError(promptId, itemIndex, message, cancelled ? undefined : 'Turn on "Continue On Fail" to let the other items finish.');
	}

	private track(promptId: string, itemIndex: number, epoch: number, gapFromStart: boolean, pollNow: boolean): Promise<FinishedJob> {
		return new Promise<FinishedJob>((resolve, reject) => {
			const now = Date.now();
			const job: TrackedJob = {
				promptId,
				itemIndex,
				startEpoch: epoch,
				gapFromStart,
				outputs: {},
				deadline: this.settings.maxWaitMs > 0 ? now + this.settings.maxWaitMs : undefined,
				nextPollAt: pollNow ? now : now + this.settings.pollIntervalMs,
				pollOnce: pollNow,
				polling: false,
				endSeen: false,
				finishing: false,
				timingOut: false,
				settled: false,
				resolve,
				reject,
			};
			if (this.abandoned) {
				// Submitted while the run was being abandoned: cancel it too.
				if (this.ownsJobs) this.cleanups.push(this.cancelJobs([promptId]));
				job.settled = true;
				reject(this.abandonError(promptId, itemIndex));
				return;
			}
			this.jobs.set(promptId, job);
			this.kick();
		});
	}

	private endSubmission(ticket: SubmissionTicket): void {
		if (!ticket.open) return;
		ticket.open = false;
		this.inFlight = Math.max(0, this.inFlight - 1);
		if (this.inFlight === 0) {
			this.early.clear();
			this.earlyCount = 0;
		}
	}

	// ---- the socket ----

	private socketWanted(): boolean {
		return this.settings.useWebSocket && runtimeWebSocket() !== undefined && !this.closed;
	}

	/** Opens a socket; resolves true once it is open, false when it could not be opened in time. */
	private connect(): Promise<boolean> {
		const Socket = runtimeWebSocket();
		if (!Socket || this.connecting) return Promise.resolve(false);
		this.connecting = true;
		return new Promise<boolean>((resolve) => {
			let settled = false;
			const timer = new AbortController();
			const finish = (ok: boolean) => {
				if (settled) return;
				settled = true;
				this.connecting = false;
				timer.abort();
				if (ok) this.reconnectDelay = RECONNECT_FIRST_MS;
				else {
					this.reconnectAt = Date.now() + jittered(this.reconnectDelay);
					this.reconnectDelay = Math.min(RECONNECT_MAX_MS, this.reconnectDelay * 2);
				}
				this.kick();
				resolve(ok);
			};
			let socket: RuntimeWebSocket;
			try {
				socket = new Socket(this.socketUrl);
				socket.binaryType = 'arraybuffer';
			} catch {
				finish(false);
				return;
			}
			socket.onopen = () => {
				if (this.closed) {
					socket.close();
					finish(false);
					return;
				}
				this.socket = socket;
				this.lastMessageAt = Date.now();
				this.silent = false;
				finish(true);
			};
			socket.onmessage = (event) => {
				if (this.socket === socket) this.onMessage(event.data);
			};
			socket.onclose = () => {
				if (!settled) finish(false);
				else if (this.socket === socket) this.socketLost();
			};
			socket.onerror = () => {
				// A refused handshake may end with an error and no close event.
				if (!settled) {
					socket.onclose = null;
					finish(false);
				} else if (this.socket === socket && socket.readyState !== SOCKET_OPEN) this.socketLost();
			};
			sleep(this.settings.connectTimeoutMs ?? 10_000, timer.signal).then(
				() => {
					if (settled) return;
					socket.onclose = null;
					socket.close();
					finish(false);
				},
				() => undefined,
			);
		});
	}

	private socketLost(): void {
		this.socket = undefined;
		this.gapEpoch++;
		this.reconnectAt = Date.now() + jittered(this.reconnectDelay);
		this.reconnectDelay = Math.min(RECONNECT_MAX_MS, this.reconnectDelay * 2);
		this.context.logger?.debug?.('Host Cloud: the progress WebSocket closed; polling job status until it is back');
		this.kick();
	}

	private dropSocket(): void {
		const socket = this.socket;
		this.socket = undefined;
		if (!socket) return;
		socket.onclose = null;
		socket.onmessage = null;
		socket.close();
	}

	private onMessage(data: unknown): void {
		this.lastMessageAt = Date.now();
		this.silent = false;
		if (typeof data === 'string') {
			let message: unknown;
			try {
				message = JSON.parse(data);
			} catch {
				return;
			}
			if (isRecord(message)) this.onJson(message);
			return;
		}
		if (!this.settings.keepPreview) return;
		// Realm-independent checks: the runtime's socket may build its ArrayBuffers in another realm.
		if (Object.prototype.toString.call(data) === '[object ArrayBuffer]' || ArrayBuffer.isView(data)) {
			this.onPreview(data as ArrayBuffer | ArrayBufferView);
		} else if (isRecord(data) && typeof data.arrayBuffer === 'function') {
			// A Blob, where the runtime ignores binaryType.
			(data.arrayBuffer as () => Promise<ArrayBuffer>)().then(
				(buffer) => this.onPreview(buffer),
				() => undefined,
			);
		}
	}

	private onJson(message: Record<string, unknown>): void {
		const data = message.data;
		if (!isRecord(data) || typeof data.prompt_id !== 'string') return;
		const promptId = data.prompt_id;
		if (message.type === 'progress' || message.type === 'executing' || message.type === 'execution_start') this.activePrompt = promptId;
		const job = this.jobs.get(promptId);
		if (job) {
			this.apply(job, message);
			return;
		}
		if (this.inFlight === 0 || typeof message.type !== 'string' || !BUFFERED_TYPES.has(message.type)) return;
		const list = this.early.get(promptId) ?? [];
		if (list.length === 0) this.early.set(promptId, list);
		list.push(message);
		this.earlyCount++;
		this.pruneEarly();
	}

	/** Other jobs of the account fill the buffer too: keep it small, dropping the oldest jobs' messages first. */
	private pruneEarly(): void {
		for (const [promptId, list] of this.early) {
			if (this.earlyCount <= EARLY_BUFFER_LIMIT) return;
			this.early.delete(promptId);
			this.earlyCount -= list.length;
		}
	}

	private onPreview(data: ArrayBuffer | ArrayBufferView): void {
		const preview = parsePreviewFrame(data);
		if (!preview) return;
		const job = this.jobs.get(preview.promptId ?? this.activePrompt ?? '');
		if (job && !job.settled) job.preview = preview;
	}

	/** One message of a tracked job. */
	private apply(job: TrackedJob, message: Record<string, unknown>): void {
		// Once a job is ending (outputs being read, being cancelled at Max Wait), the socket has nothing to add.
		if (job.settled || job.finishing) return;
		const data = message.data as Record<string, unknown>;
		switch (message.type) {
			case 'executed': {
				const nodeId = String(data.node ?? data.display_node ?? '');
				if (nodeId && isRecord(data.output)) job.outputs[nodeId] = mergeNodeOutput(job.outputs[nodeId], data.output as IDataObject);
				return;
			}
			case 'execution_success':
				this.completed(job);
				return;
			case 'execution_error':
				job.error = errorInfoFrom(data);
				this.failed(job);
				return;
			case 'execution_interrupted':
				this.cancelledByService(job);
				return;
			case 'executing':
				// The end of a run, sent after errors too: success only if nothing else was said, and
				// only once the status endpoint confirms it (execution_success normally comes first).
				if ((data.node === null || data.node === '') && !job.error && !job.finishing) {
					job.endSeen = true;
					job.pollOnce = true;
					job.nextPollAt = Date.now();
					this.kick();
				}
				return;
			default:
				return;
		}
	}

	// ---- how a job ends ----

	private mayHaveMissedMessages(job: TrackedJob): boolean {
		return job.gapFromStart || job.startEpoch !== this.gapEpoch;
	}

	private completed(job: TrackedJob): void {
		if (job.settled || job.finishing) return;
		if (!this.mayHaveMissedMessages(job)) {
			this.settle(job, { promptId: job.promptId, status: 'completed', outputs: job.outputs, recovered: false, preview: job.preview });
			return;
		}
		job.finishing = true;
		void this.recoverOutputs(job);
	}

	private failed(job: TrackedJob): void {
		if (job.settled) return;
		const error = job.error ?? { exception_type: '', exception_message: '' };
		const { message, description } = describeExecutionError(job.promptId, error);
		const failure = this.jobError(job.promptId, job.itemIndex, message, description);
		failure.context.exception_type = error.exception_type;
		if (error.node_id) failure.context.node_id = error.node_id;
		this.settleWithError(job, failure);
	}

	private cancelledByService(job: TrackedJob): void {
		this.settleWithError(
			job,
			this.jobError(
				job.promptId,
				job.itemIndex,
				`Job ${job.promptId} was cancelled on the cloud before it finished`,
				'Someone cancelled it in the queue or interrupted the running job (Queue → Cancel Jobs or Interrupt Running, or the same in the editor). Run again to get its outputs.',
			),
		);
	}

	/** Reads outputs from GET /api/jobs/{id} (the real service has them once terminal). */
	private async recoverOutputs(job: TrackedJob): Promise<void> {
		for (let attempt = 0; attempt < 4 && !job.settled; attempt++) {
			let record: IDataObject | undefined;
			try {
				record = await hostRequest<IDataObject>(this.context, 'hostCloudApi', {
					method: 'GET',
					path: `/api/jobs/${encodeURIComponent(job.promptId)}`,
					retry: true,
					itemIndex: job.itemIndex,
					action: `reading the outputs of job ${job.promptId}`,
				});
			} catch (error) {
				if (this.cancelSignal?.aborted) return;
				const status = error instanceof NodeApiError ? Number(error.httpCode) : 0;
				if (status === 404 || status === 405) break;
				this.settleWithError(job, this.wrap(job, error));
				return;
			}
			if (job.settled) return;
			if (isRecord(record?.outputs)) {
				this.settle(job, {
					promptId: job.promptId,
					status: 'completed',
					outputs: record.outputs as Record<string, IDataObject>,
					recovered: true,
					preview: job.preview,
				});
				return;
			}
			// The record may lag behind the socket for a moment; ask again before giving up.
			if (record && cloudJobStateOf(record.status) === 'running') {
				await this.nap(Math.min(this.settings.pollIntervalMs, 500));
				continue;
			}
			break;
		}
		if (job.settled) return;
		this.settleWithError(
			job,
			this.jobError(
				job.promptId,
				job.itemIndex,
				`Job ${job.promptId} finished, but the progress connection was interrupted while it ran and the service's job record does not list its outputs, so the outputs may be incomplete`,
				'The node does not return a partial list of files. Run the workflow again; if this keeps happening, check the network between n8n and the cloud (WebSocket connections must stay open).',
			),
		);
	}

	/** Details of a failure the socket did not report, from the job record. */
	private async recoverFailure(job: TrackedJob): Promise<void> {
		if (!job.error) {
			try {
				const record = await hostRequest<IDataObject>(this.context, 'hostCloudApi', {
					method: 'GET',
					path: `/api/jobs/${encodeURIComponent(job.promptId)}`,
					retry: true,
					itemIndex: job.itemIndex,
					action: `reading why job ${job.promptId} failed`,
				});
				const details = record?.execution_error ?? record?.error;
				if (isRecord(details)) job.error = errorInfoFrom(details);
			} catch {
				// The failure itself is reported below, without the service's details.
			}
		}
		if (!job.error) job.error = { exception_type: '', exception_message: `the status endpoint reports "${job.lastStatus ?? 'failed'}"` };
		this.failed(job);
	}

	/** A state learned from the status endpoint. */
	private onState(job: TrackedJob, state: CloudJobState): void {
		if (job.settled || job.finishing || state === 'running') return;
		if (this.usingSocket && !job.endSeen && !job.gapFromStart && (this.silent || job.startEpoch === this.gapEpoch)) {
			// The open socket never told us this job ended: it cannot be trusted for the others either.
			this.gapEpoch++;
			this.dropSocket();
			this.reconnectAt = Date.now();
		}
		if (state === 'completed') this.completed(job);
		else if (state === 'cancelled') this.cancelledByService(job);
		else {
			job.finishing = true;
			void this.recoverFailure(job);
		}
	}

	private async poll(job: TrackedJob): Promise<void> {
		job.pollOnce = false;
		const state = await this.pollStatus(job);
		if (state) this.onState(job, state);
	}

	/** Max Wait reached: one last look (it may have just finished), then give up on it. */
	private async deadlineReached(job: TrackedJob): Promise<void> {
		job.timingOut = true;
		const state = await this.pollStatus(job);
		if (job.settled || job.finishing) return;
		if (state && state !== 'running') {
			this.onState(job, state);
			return;
		}
		await this.timedOut(job);
	}

	/** GET /api/job/{id}/status; undefined when the answer is unknown (network, 5xx): ask later. */
	private async pollStatus(job: TrackedJob): Promise<CloudJobState | undefined> {
		if (job.polling) return undefined;
		job.polling = true;
		try {
			const body = await hostRequest<IDataObject>(this.context, 'hostCloudApi', {
				method: 'GET',
				path: `/api/job/${encodeURIComponent(job.promptId)}/status`,
				itemIndex: job.itemIndex,
				action: `reading the status of job ${job.promptId}`,
			});
			job.lastStatus = typeof body?.status === 'string' ? body.status : undefined;
			return cloudJobStateOf(body?.status);
		} catch (error) {
			if (this.cancelSignal?.aborted || job.settled) return undefined;
			const status = error instanceof NodeApiError ? Number(error.httpCode) : 0;
			if (status === 404) {
				this.settleWithError(
					job,
					this.jobError(
						job.promptId,
						job.itemIndex,
						`The cloud has no job ${job.promptId} (HTTP 404)`,
						'Check the prompt_id: it must come from a submit made with the same API key.',
					),
				);
			} else if (status === 401 || status === 402 || status === 429) this.settleWithError(job, this.wrap(job, error));
			return undefined;
		} finally {
			job.polling = false;
			job.nextPollAt = Date.now() + this.settings.pollIntervalMs;
		}
	}

	private async timedOut(job: TrackedJob): Promise<void> {
		if (job.settled || job.finishing) return;
		job.finishing = true;
		const seconds = Math.round(this.settings.maxWaitMs / 100) / 10;
		const last = job.lastStatus ? ` Its last known status was "${job.lastStatus}".` : '';
		if (this.settings.cancelOnTimeout) {
			// Cancelled before the item fails, so the run does not end with the job still going.
			const cancelled = this.cancelJobs([job.promptId]);
			this.cleanups.push(cancelled);
			await cancelled;
			this.settleWithError(
				job,
				this.jobError(
					job.promptId,
					job.itemIndex,
					`Job ${job.promptId} did not finish within ${seconds} seconds (Max Wait), so it was cancelled on the cloud`,
					`${last} Raise Max Wait in Additional Fields for longer jobs, or set "On Timeout" to leave jobs running.`.trim(),
				),
			);
			return;
		}
		this.settleWithError(
			job,
			this.jobError(
				job.promptId,
				job.itemIndex,
				`Job ${job.promptId} did not finish within ${seconds} seconds (Max Wait); it is still running on the cloud`,
				`${last} Use Workflow → Wait for Completion with this prompt_id to collect its outputs later.`.trim(),
			),
		);
	}

	/** POST /api/queue {delete}: cancels this node's own jobs (never the account's other work). */
	private async cancelJobs(promptIds: string[]): Promise<void> {
		if (promptIds.length === 0) return;
		try {
			await hostRequest(this.context, 'hostCloudApi', {
				method: 'POST',
				path: '/api/queue',
				body: { delete: promptIds },
				ignoreCancel: true,
				timeout: CANCEL_TIMEOUT_MS,
				action: 'cancelling the jobs this node started',
			});
		} catch (error) {
			this.context.logger?.warn?.(`Host Cloud: could not cancel jobs ${promptIds.join(', ')}: ${(error as Error).message}`);
		}
	}

	/**
	 * A submit cut short by the cancel may have reached the service without its answer reaching
	 * us: find such jobs in the queue by this run's client_id and cancel them too.
	 */
	private async cancelUnansweredSubmissions(alreadyCancelled: string[]): Promise<void> {
		let queue: IDataObject | undefined;
		try {
			queue = await hostRequest<IDataObject>(this.context, 'hostCloudApi', {
				method: 'GET',
				path: '/api/queue',
				ignoreCancel: true,
				timeout: CANCEL_TIMEOUT_MS,
				action: 'looking for jobs this node started',
			});
		} catch (error) {
			this.context.logger?.warn?.(`Host Cloud: could not read the queue to cancel this node's jobs: ${(error as Error).message}`);
			return;
		}
		const entries = [queue?.queue_running, queue?.queue_pending].flatMap((list) => (Array.isArray(list) ? (list as unknown[]) : []));
		const mine = entries.flatMap((entry) => {
			// The local runner's shape: [number, prompt_id, prompt, extra_data, output node ids].
			if (!Array.isArray(entry) || typeof entry[1] !== 'string' || !isRecord(entry[3])) return [];
			return entry[3].client_id === this.clientId && !alreadyCancelled.includes(entry[1]) ? [entry[1]] : [];
		});
		await this.cancelJobs(mine);
	}

	private settle(job: TrackedJob, result: FinishedJob): void {
		if (job.settled) return;
		job.settled = true;
		this.jobs.delete(job.promptId);
		job.resolve(result);
	}

	private settleWithError(job: TrackedJob, error: Error): void {
		if (job.settled) return;
		job.settled = true;
		this.jobs.delete(job.promptId);
		job.reject(error);
	}

	private jobError(promptId: string, itemIndex: number, message: string, description?: string): NodeOperationError {
		const error = new NodeOperationError(this.context.getNode(), redact(message, [this.apiKey]), {
			itemIndex,
			...(description ? { description: redact(description, [this.apiKey]) } : {}),
		});
		error.context.prompt_id = promptId;
		return error;
	}

	private wrap(job: TrackedJob, error: unknown): Error {
		if (error instanceof NodeApiError || error instanceof NodeOperationError) {
			error.context.prompt_id = job.promptId;
			return error;
		}
		return this.jobError(job.promptId, job.itemIndex, `Waiting for job ${job.promptId} failed: ${(error as Error).message}`);
	}

	// ---- the reconciling loop ----

	private kick(): void {
		this.wake.abort();
	}

	private async nap(ms: number): Promise<void> {
		try {
			await sleep(Math.max(1, ms), this.wake.signal);
		} catch {
			// Woken early by an event.
		}
		if (this.wake.signal.aborted) this.wake = new AbortController();
	}

	private async run(): Promise<void> {
		while (!this.closed) {
			const now = Date.now();
			const pending = [...this.jobs.values()].filter((job) => !job.settled);
			const busy = pending.length > 0 || this.inFlight > 0;
			const open = this.usingSocket;
			if (open && busy && !this.silent && now - this.lastMessageAt >= this.settings.silenceMs) {
				// Nothing heard for a while: messages may have been lost. Poll to find out.
				this.silent = true;
				this.gapEpoch++;
				for (const job of pending) job.nextPollAt = now;
			}
			if (!open && !this.connecting && this.socketWanted() && now >= this.reconnectAt) {
				void this.connect().then((ok) => {
					if (!ok) return;
					// Back again: jobs may have finished while it was down.
					for (const job of this.jobs.values()) {
						job.pollOnce = true;
						job.nextPollAt = Date.now();
					}
				});
			}
			const trustSocket = this.usingSocket && !this.silent;
			for (const job of pending) {
				if (job.finishing || job.timingOut || job.polling) continue;
				if (job.deadline !== undefined && now >= job.deadline) void this.deadlineReached(job);
				else if ((!trustSocket || job.pollOnce) && now >= job.nextPollAt) void this.poll(job);
			}
			await this.nap(this.nextWake(now, pending));
		}
		this.dropSocket();
	}

	private nextWake(now: number, pending: TrackedJob[]): number {
		let at = now + 60_000;
		if (this.usingSocket && !this.silent) at = Math.min(at, this.lastMessageAt + this.settings.silenceMs);
		if (!this.usingSocket && this.socketWanted()) at = Math.min(at, this.reconnectAt);
		const trustSocket = this.usingSocket && !this.silent;
		for (const job of pending) {
			if (job.finishing || job.timingOut) continue;
			if (job.deadline !== undefined) at = Math.min(at, job.deadline);
			if (!trustSocket || job.pollOnce) at = Math.min(at, job.nextPollAt);
		}
		return Math.max(1, at - now);
	}
}
