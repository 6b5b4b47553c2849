/**
 * progress-socket/: the service's progress WebSocket, which Execute's watcher (jobs/) and the
 * trigger (finished-jobs/) both listen on. It carries messages and knows nothing of what one
 * means for a job: job-reports/ and the watcher do. It may call nodes/shared and no helper folder
 * (its address comes from transport/ through its callers).
 *
 * A progress WebSocket: connecting (with a time limit, `open-socket.ts`), reconnecting with
 * back-off, decoding text frames (JSON) and binary frames (previews, `preview-frames.ts`), handing
 * each job's messages to the listeners that watch that job, and keeping the messages of jobs whose
 * submit has not answered yet (`kept-messages.ts`). Node runs share one per process and credential
 * (`jobs/socket-share.ts`); the trigger has its own. Timers are the package's `pause` with
 * AbortControllers (no setTimeout in community nodes).
 */
import type { Logger } from 'n8n-workflow';

import { pause } from '../../../shared/waits/pause';
import { redact, redactDeep } from '../../../shared/transport/redaction';
import { jittered } from '../../../shared/transport/retry';
import { isRecord } from '../../../shared/items/validation';
import { JSON_LIMITS, jsonValueProblem, readJson } from '../../../shared/transport/json-reader';
import { KeptMessages } from './kept-messages';
import { openSocket } from './open-socket';
import { parsePreviewFrame, type PreviewImage } from './preview-frames';
import { runtimeWebSocket, SOCKET_CLOSED, SOCKET_OPEN, type RuntimeWebSocket } from './runtime-websocket';

export type JobMessage = Record<string, unknown> & { data: Record<string, unknown> & { prompt_id: string } };

/** One reader of the socket: a node run's watcher, or the trigger. */
export interface SocketListener {
	/** Whether it watches the job of that prompt_id (otherwise the job's messages may be kept for a submit under way). */
	watches(promptId: string): boolean;
	/** Whether it wants preview images (binary frames are decoded only while someone does). */
	readonly wantsPreview: boolean;
	/** The message types it reads (undefined: every type). */
	readonly reads?: ReadonlySet<string>;
	/** A message of a job it watches. */
	onJobMessage(promptId: string, message: JobMessage): void;
	/** A preview image that names a job it watches. */
	onPreview(promptId: string, preview: PreviewImage): void;
	/** The open socket closed or failed, or a message could not be read: messages may have been missed. */
	onLost(): void;
	/** Something changed that a waiting loop should look at (a connect ended). */
	onChange(): void;
}

export interface SocketSettings {
	/** How long to wait for the socket to open. */
	connectTimeoutMs?: number;
	/** Sent with the upgrade request (a self-hosted server's reverse proxy headers). */
	headers?: Record<string, string>;
	/** Redacted from every message before anyone reads it (the service may echo the API key). */
	secrets: string[];
}

/**
 * The message types a job's watcher reads (`jobs/tracked-job.ts` `readMessage`), and so keeps for a
 * prompt_id it does not know yet. Progress messages (many per job) are neither redacted nor handed on.
 */
export const JOB_MESSAGE_TYPES: ReadonlySet<string> = new Set([
	'executed',
	'execution_success',
	'execution_error',
	'execution_interrupted',
	'executing',
]);
/** How long a restart waits for the old connection to close before opening the new one. */
const CLOSE_WAIT_MS = 2000;
/**
 * A message's size is bounded when it comes; its depth only once it is to be read or kept
 * (`jsonValueProblem`): parsing is safe at any depth, walking is not, and most messages are other
 * runs' and are never walked.
 */
const UNREAD_MESSAGE = { ...JSON_LIMITS.message, maxDepth: Number.POSITIVE_INFINITY };
const RECONNECT_FIRST_MS = 100;
const RECONNECT_MAX_MS = 15_000;
/** A connection that lasted this long was a good one: the next reconnect starts the back-off again. */
const STABLE_MS = 5_000;

export class JobSocket {
	private socket?: RuntimeWebSocket;
	/** The connect under way: everyone who asks for a connect meanwhile waits for this one. */
	private connecting?: Promise<boolean>;
	/** The socket being opened: closing for good ends its handshake too. */
	private opening?: RuntimeWebSocket;
	private closed = false;
	private reconnectDelay = RECONNECT_FIRST_MS;
	/** When the open socket opened. */
	private openedAt = 0;
	/** When the next connect may be tried. */
	reconnectAt = 0;
	/** Connects in a row that did not last STABLE_MS (closed at once, or never opened); a reader may set it back to 0. */
	shortTries = 0;
	/** When the last frame came (or the socket opened): silence is measured from here. */
	lastMessageAt = Date.now();
	/** Counts frames and opens: a listener that fell silent at one count is heard again once it moves. */
	heard = 0;
	/** The messages of jobs nobody watches yet, kept while submits are under way. */
	private readonly kept = new KeptMessages<JobMessage>();
	/** The connection a restart dropped, until it has closed (`closeWait` ends the wait). */
	private closing?: Promise<void>;
	private closeWait?: AbortController;
	private readonly listeners = new Set<SocketListener>();

	constructor(
		private readonly url: string,
		private readonly settings: SocketSettings,
		private readonly logger?: Logger,
	) {}

	/** Whether the runtime has a WebSocket client at all (without one the node polls). */
	static available(): boolean {
		return runtimeWebSocket() !== undefined;
	}

	get open(): boolean {
		return this.socket?.readyState === SOCKET_OPEN;
	}

	/** The connect under way, if any. */
	get connectUnderWay(): Promise<boolean> | undefined {
		return this.connecting;
	}

	/** Adds a reader of the socket's messages. */
	listen(listener: SocketListener): void {
		this.listeners.add(listener);
	}

	/** Removes a reader; answers how many are left. */
	unlisten(listener: SocketListener): number {
		this.listeners.delete(listener);
		return this.listeners.size;
	}

	/** Whether a (re)connect should be tried now. */
	connectDue(now: number): boolean {
		return !this.closed && !this.open && !this.connecting && now >= this.reconnectAt;
	}

	/** Opens the socket; resolves true once it is open, false when it could not be opened in time. */
	connect(): Promise<boolean> {
		const Socket = runtimeWebSocket();
		if (this.open) return Promise.resolve(true);
		if (this.connecting) return this.connecting;
		if (!Socket || this.closed) return Promise.resolve(false);
		if (this.closing) return this.connectAfterClose(this.closing);
		const { attempt, socket } = openSocket(Socket, this.url, this.settings.headers ?? {}, this.settings.connectTimeoutMs ?? 10_000, {
			opened: (opened) => this.opened(opened),
			frame: (from, data) => {
				if (this.socket === from) this.onFrame(data);
			},
			ended: (from, error) => {
				if (this.socket === from && !(error && from.readyState === SOCKET_OPEN)) this.lost();
			},
			settled: (settled, ok) => this.settled(settled, ok),
			changed: () => {
				for (const listener of this.listeners) listener.onChange();
			},
		});
		// A socket that could not even be made has settled already: nothing is under way.
		if (socket) {
			this.opening = socket;
			this.connecting = attempt;
		}
		return attempt;
	}

	/** A restart dropped the connection: the new one opens once the old one has closed (or CLOSE_WAIT_MS passed). */
	private connectAfterClose(closing: Promise<void>): Promise<boolean> {
		this.closing = undefined;
		this.connecting = closing.then(() => {
			this.connecting = undefined;
			return this.connect();
		});
		return this.connecting;
	}

	/** The socket opened: it is the connection now, unless the socket was closed for good meanwhile. */
	private opened(socket: RuntimeWebSocket): boolean {
		if (this.closed) return false;
		this.socket = socket;
		this.lastMessageAt = Date.now();
		this.heard++;
		return true;
	}

	/** A connect ended, open or not. */
	private settled(attempt: Promise<boolean>, ok: boolean): void {
		if (this.connecting === attempt) this.connecting = undefined;
		this.opening = undefined;
		// The back-off starts again only once a connection lasted (a server that closes each one at once is not hammered).
		if (ok) this.openedAt = Date.now();
		else {
			this.shortTries++;
			this.scheduleReconnect();
		}
	}

	/**
	 * Drops the connection now and allows an immediate reconnect (it can no longer be trusted);
	 * every listener but `by` (which asked, so knows) is told that messages may have been missed.
	 */
	restart(by: SocketListener): void {
		const old = this.socket;
		this.drop();
		this.reconnectAt = Date.now();
		if (!old) return;
		// A self-hosted server forgets a client id when any socket of it closes: the new one must not open first.
		const closed = new AbortController();
		old.onclose = () => closed.abort();
		old.onerror = () => closed.abort();
		if (old.readyState === SOCKET_CLOSED) closed.abort();
		this.closeWait = closed;
		this.closing = pause(CLOSE_WAIT_MS, closed.signal).then(
			() => undefined,
			() => undefined,
		);
		this.tellLost(by);
	}

	/** Closes the socket for good. */
	close(): void {
		this.closed = true;
		this.closeWait?.abort();
		this.opening?.close();
		this.drop();
	}

	/** A submit starts: from now on, messages of jobs nobody watches yet are kept. Answers the mark `takeKept` wants. */
	beginSubmission(): number {
		return this.kept.begin();
	}

	/** A submit ended (answered or failed); when none is left, nothing more needs keeping. */
	endSubmission(): void {
		this.kept.end();
	}

	/**
	 * The messages kept for a job whose submit (begun at `mark`) just answered, in the order they
	 * came; `whole` is false when kept messages were dropped since, to stay within the bounds: any
	 * of them may have been this job's, whose outputs must then come from its record.
	 */
	takeKept(promptId: string, mark: number): { messages: JobMessage[]; whole: boolean } {
		return this.kept.take(promptId, mark);
	}

	private scheduleReconnect(): void {
		this.reconnectAt = Date.now() + jittered(this.reconnectDelay);
		this.reconnectDelay = Math.min(RECONNECT_MAX_MS, this.reconnectDelay * 2);
	}

	private lost(): void {
		this.socket = undefined;
		const lasted = Date.now() - this.openedAt >= STABLE_MS;
		if (lasted) this.reconnectDelay = RECONNECT_FIRST_MS;
		this.shortTries = lasted ? 0 : this.shortTries + 1;
		this.scheduleReconnect();
		this.logger?.debug?.('Host Cloud: the progress WebSocket closed; polling job status until it is back');
		this.tellLost();
	}

	private tellLost(except?: SocketListener): void {
		for (const listener of [...this.listeners]) if (listener !== except) listener.onLost();
	}

	private drop(): void {
		const socket = this.socket;
		this.socket = undefined;
		if (!socket) return;
		socket.onclose = null;
		socket.onmessage = null;
		socket.close();
	}

	private onFrame(data: unknown): void {
		this.lastMessageAt = Date.now();
		this.heard++;
		if (typeof data === 'string') {
			const reading = readJson(data, UNREAD_MESSAGE);
			if (!('value' in reading) || !isRecord(reading.value)) this.skipped('problem' in reading ? reading.problem : 'is not a JSON object');
			else this.onJson(reading.value, data.length);
			return;
		}
		if (![...this.listeners].some((listener) => listener.wantsPreview)) return;
		// Realm-independent checks: the runtime's socket may build its ArrayBuffers in another realm.
		if (Object.prototype.toString.call(data) === '[object ArrayBuffer]' || ArrayBuffer.isView(data)) {
			this.onBinary(data as ArrayBuffer | ArrayBufferView);
		} else if (isRecord(data) && typeof data.arrayBuffer === 'function') {
			// A Blob, where the runtime ignores binaryType.
			(data.arrayBuffer as () => Promise<ArrayBuffer>)().then(
				(buffer) => this.onBinary(buffer),
				() => undefined,
			);
		}
	}

	/** A message that could not be read may have been any job's `executed`: a gap, as if the socket had dropped. */
	private skipped(problem: string): void {
		// Outputs of jobs that finish now then come from their record rather than being passed on as whole.
		this.logger?.warn(`Host Cloud: a progress message ${problem}; it was skipped`);
		this.tellLost();
	}

	private onJson(unread: Record<string, unknown>, chars: number): void {
		const data = unread.data;
		if (!isRecord(data) || typeof data.prompt_id !== 'string') return;
		const promptId = redact(data.prompt_id, this.settings.secrets);
		const type = typeof unread.type === 'string' ? unread.type : '';
		const watchers = [...this.listeners].filter((listener) => listener.watches(promptId) && (listener.reads?.has(type) ?? true));
		const watched = watchers.length > 0;
		const keep = !watched && this.kept.wanted && JOB_MESSAGE_TYPES.has(type);
		// Every message of the account comes down every socket: most are other runs' and go unread, so
		// only what is read or kept is redacted (the deep redaction was most of a message's cost).
		if (!watched && !keep) return;
		const tooBig = jsonValueProblem(unread, JSON_LIMITS.message);
		if (tooBig) {
			this.skipped(tooBig);
			return;
		}
		const message = redactDeep(unread, this.settings.secrets) as JobMessage;
		if (watched) {
			for (const listener of watchers) listener.onJobMessage(promptId, message);
			return;
		}
		this.kept.keep(promptId, message, chars);
	}

	private onBinary(data: ArrayBuffer | ArrayBufferView): void {
		const preview = parsePreviewFrame(data);
		// A frame that does not name its job (type 1) goes to none: all of the user's jobs share the
		// socket, so the latest progress message says nothing certain about whose frame it is.
		const promptId = preview?.promptId;
		if (!promptId) return;
		for (const listener of this.listeners) if (listener.wantsPreview && listener.watches(promptId)) listener.onPreview(promptId, preview);
	}
}
