/**
 * One progress socket per process and credential, shared by the node runs there. The cloud sends
 * every message of an account down every socket of that account, so a socket per node run made a
 * worker running ten executions parse each message ten times; a self-hosted server sends a job's
 * messages to the client id that submitted it, so every run that shares the socket submits with
 * its client id. A run's share (`SocketShare`) keeps what is the run's own: which jobs it watches,
 * whether it has judged the socket silent, when it last submitted. The socket closes with the last
 * share. Runs share only a socket opened with the same address, headers and secrets: the same
 * account, which already receives all of these messages.
 */
import { createHash, randomUUID } from 'crypto';

import type { Logger } from 'n8n-workflow';

import {
	JOB_MESSAGE_TYPES,
	JobSocket,
	type JobMessage,
	type SocketListener,
	type SocketSettings,
} from '../progress-socket/progress-socket';
import type { PreviewImage } from '../progress-socket/preview-frames';

/** What a node run hears from its share. */
export interface ShareEvents {
	/** Whether the run watches the job of that prompt_id. */
	watches(promptId: string): boolean;
	onJobMessage(promptId: string, message: JobMessage): void;
	onPreview(promptId: string, preview: PreviewImage): void;
	/** Messages may have been missed (the socket dropped, a message could not be read, another run restarted it). */
	onLost(): void;
	/** A connect ended. */
	onChange(): void;
}

export interface SocketAddress {
	urlFor(clientId: string): string;
	headers: Record<string, string>;
	secrets: string[];
}

const open = new Map<string, { socket: JobSocket; clientId: string }>();

/** Which runs may share: the same address (its token included), headers, secrets and connect time limit. */
function shareKey(address: SocketAddress, connectTimeoutMs: number | undefined): string {
	const headers = Object.entries(address.headers).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
	const parts = [address.urlFor(''), headers, [...address.secrets].sort(), connectTimeoutMs ?? null];
	return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/** A node run's share of the process's socket for its credential (opened for it when there is none). */
export function shareJobSocket(
	address: SocketAddress,
	settings: Omit<SocketSettings, 'headers' | 'secrets'> & { keepPreview: boolean },
	events: ShareEvents,
	logger?: Logger,
): SocketShare {
	const key = shareKey(address, settings.connectTimeoutMs);
	let entry = open.get(key);
	if (!entry) {
		const clientId = randomUUID();
		const socketSettings = { connectTimeoutMs: settings.connectTimeoutMs, headers: address.headers, secrets: address.secrets };
		entry = { socket: new JobSocket(address.urlFor(clientId), socketSettings, logger), clientId };
		open.set(key, entry);
	}
	const { socket, clientId } = entry;
	return new SocketShare(socket, clientId, settings.keepPreview, events, (share) => {
		if (socket.unlisten(share) > 0) return;
		socket.close();
		if (open.get(key)?.socket === socket) open.delete(key);
	});
}

export class SocketShare implements SocketListener {
	/** The socket's frame count when this run judged it silent (undefined: not silent). */
	private silentAt?: number;
	/** When this run last began a submit: silence is measured from the later of this and the last frame. */
	private submittedAt = 0;
	private left = false;
	readonly reads = JOB_MESSAGE_TYPES;

	constructor(
		private readonly socket: JobSocket,
		/** The client id to submit with: the socket's, so that a self-hosted server sends the job's messages to it. */
		readonly clientId: string,
		readonly wantsPreview: boolean,
		private readonly events: ShareEvents,
		private readonly leave: (share: SocketShare) => void,
	) {
		socket.listen(this);
	}

	watches(promptId: string): boolean {
		return this.events.watches(promptId);
	}

	onJobMessage(promptId: string, message: JobMessage): void {
		this.events.onJobMessage(promptId, message);
	}

	onPreview(promptId: string, preview: PreviewImage): void {
		this.events.onPreview(promptId, preview);
	}

	onLost(): void {
		this.events.onLost();
	}

	onChange(): void {
		this.events.onChange();
	}

	get open(): boolean {
		return this.socket.open;
	}

	private get silent(): boolean {
		return this.silentAt !== undefined && this.silentAt === this.socket.heard;
	}

	/** Open, and not silent for this run: what it says (and does not say) can be relied on. */
	get trusted(): boolean {
		return this.open && !this.silent;
	}

	/** Whether this run judged the open socket silent and nothing came since. */
	get isSilent(): boolean {
		return this.open && this.silent;
	}

	private get quietSince(): number {
		return Math.max(this.socket.lastMessageAt, this.submittedAt);
	}

	/** Marks the open socket silent for this run when nothing came for `silenceMs`; true when it just fell silent. */
	fellSilent(now: number, silenceMs: number): boolean {
		if (!this.open || this.silent || now - this.quietSince < silenceMs) return false;
		this.silentAt = this.socket.heard;
		return true;
	}

	/** When the socket next needs a look: a silence check while it is trusted, a reconnect while it is down. */
	nextCheckAt(silenceMs: number): number {
		// A connect under way says when it ends (onChange).
		if (!this.open) return this.socket.connectUnderWay ? Number.POSITIVE_INFINITY : this.socket.reconnectAt;
		return this.silent ? Number.POSITIVE_INFINITY : this.quietSince + silenceMs;
	}

	/** Whether a (re)connect should be tried now. */
	connectDue(now: number): boolean {
		return !this.left && this.socket.connectDue(now);
	}

	/**
	 * Opens the socket unless it is open; resolves true once it is. A run that joins a socket
	 * waiting to reconnect does not hurry it: it polls until the back-off is over.
	 */
	async connect(): Promise<boolean> {
		if (this.left) return false;
		if (this.open) return true;
		if (!this.socket.connectDue(Date.now())) return await (this.socket.connectUnderWay ?? Promise.resolve(false));
		return await this.socket.connect();
	}

	/** The socket never told of a job's end: it is opened anew, for every run that shares it. */
	restart(): void {
		this.socket.restart(this);
	}

	/** A submit starts; answers the mark its `takeKept` wants. */
	beginSubmission(): number {
		this.submittedAt = Date.now();
		return this.socket.beginSubmission();
	}

	endSubmission(): void {
		this.socket.endSubmission();
	}

	takeKept(promptId: string, mark: number): { messages: JobMessage[]; whole: boolean } {
		return this.socket.takeKept(promptId, mark);
	}

	/** Leaves the socket (closed with its last share). */
	close(): void {
		if (this.left) return;
		this.left = true;
		this.leave(this);
	}
}
