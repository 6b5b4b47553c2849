/**
 * Media proxy task notifications: POSTs to a task's webhook_url / callback_url on each status change.
 * Retries non-2xx answers and connection errors with exponential back-off (n8n answers 409 to a
 * resume call that arrives before the execution is saved as waiting), keeps deliveries to one URL
 * in order, and delivers only to loopback hosts: anything else is recorded as refused.
 */
import { Agent } from 'node:http';
import { isIP } from 'node:net';

import axios from 'axios';

import type { AreaContext } from '../shared/context';
import type { TimerSet } from './timers';

export interface Delivery {
	/** 1, 2, 3 … in the order deliveries were queued. */
	id: number;
	url: string;
	taskId: string;
	kind: 'image' | 'video';
	body: unknown;
	/** HTTP attempts made; 0 when refused, or cancelled before the first attempt. */
	attempts: number;
	/** HTTP status of the latest attempt, when one was answered. */
	status?: number;
	/** Why the latest attempt failed (connection error), or why nothing was sent (refused, cancelled). */
	error?: string;
	delivered: boolean;
	/** The URL is not on a loopback host, so nothing was sent. */
	refused: boolean;
	/** No more attempts will be made. */
	done: boolean;
	/** When it was queued (ms since the epoch). */
	at: number;
	finishedAt?: number;
}

export interface TaskNotification {
	taskId: string;
	kind: 'image' | 'video';
	url: string;
	body: unknown;
	/** The task reached a final status with this change. */
	final: boolean;
}

export type DeliveryPredicate = (deliveries: readonly Delivery[]) => boolean;

const ATTEMPT_TIMEOUT_MS = 10_000;

/** 127.0.0.0/8, localhost and [::1]. The WHATWG URL parser already normalises forms like 127.1 or 2130706433. */
export function isLoopbackUrl(raw: string): boolean {
	let url: URL;
	try {
		url = new URL(raw);
	} catch {
		return false;
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
	const host = url.hostname.toLowerCase();
	if (host === 'localhost' || host === '[::1]') return true;
	return isIP(host) === 4 && host.startsWith('127.');
}

function describeError(error: unknown): string {
	const e = error as { code?: string; message?: string };
	return e.code ? `${e.code}: ${e.message ?? ''}`.trim() : String(e.message ?? error);
}

interface Waiter {
	check(): void;
	cancel(reason: string): void;
}

export class Notifier {
	readonly deliveries: Delivery[] = [];
	/** Last queued delivery per URL: the next one starts only when it settles (in-order per URL). */
	private readonly tails = new Map<string, Promise<void>>();
	/** Notifications held back by the out-of-order fault, per task, until the task is final. */
	private readonly held = new Map<string, TaskNotification[]>();
	private readonly waiters = new Set<Waiter>();
	private abort = new AbortController();
	// No keep-alive: a receiver in a test closes cleanly and no socket outlives close().
	private readonly agent = new Agent({ keepAlive: false });
	private nextId = 1;

	constructor(
		private readonly ctx: AreaContext,
		private readonly timers: TimerSet,
	) {}

	/** A task changed status and has a notification URL. */
	taskChanged(notification: TaskNotification): void {
		const held = this.held.get(notification.taskId);
		if (!held && !this.ctx.faults.outOfOrderNotifications) return this.send(notification);
		const queue = held ?? [];
		queue.push(notification);
		this.held.set(notification.taskId, queue);
		if (!notification.final) return;
		this.held.delete(notification.taskId);
		for (const later of queue.reverse()) this.send(later);
	}

	waitFor(predicate: DeliveryPredicate, timeoutMs: number): Promise<readonly Delivery[]> {
		return new Promise((resolve, reject) => {
			const finish = (error?: Error) => {
				clearTimeout(timer);
				this.waiters.delete(waiter);
				if (error) reject(error);
				else resolve(this.deliveries);
			};
			const waiter: Waiter = {
				check: () => {
					try {
						if (predicate(this.deliveries)) finish();
					} catch (error) {
						finish(error as Error);
					}
				},
				cancel: (reason) => finish(new Error(`waitForDeliveries: ${reason}`)),
			};
			const timer = setTimeout(() => waiter.cancel(`timed out after ${timeoutMs} ms; deliveries so far: ${this.summary()}`), timeoutMs);
			this.waiters.add(waiter);
			waiter.check();
		});
	}

	/** Cancels in-flight attempts and back-offs, forgets deliveries, held notifications and waiters. */
	reset(): void {
		this.abort.abort();
		this.abort = new AbortController();
		this.tails.clear();
		this.held.clear();
		this.deliveries.length = 0;
		for (const waiter of [...this.waiters]) waiter.cancel('the simulator was reset');
	}

	close(): void {
		this.reset();
		this.agent.destroy();
	}

	private send(notification: TaskNotification): void {
		const times = Math.max(1, Math.floor(this.ctx.faults.duplicateNotifications?.times ?? 1));
		for (let i = 0; i < times; i++) {
			const delivery: Delivery = {
				id: this.nextId++,
				url: notification.url,
				taskId: notification.taskId,
				kind: notification.kind,
				body: notification.body,
				attempts: 0,
				delivered: false,
				refused: false,
				done: false,
				at: Date.now(),
			};
			this.deliveries.push(delivery);
			if (isLoopbackUrl(delivery.url)) this.enqueue(delivery);
			else this.refuse(delivery);
		}
	}

	private refuse(delivery: Delivery): void {
		delivery.refused = true;
		delivery.error = 'refused: the simulator only delivers notifications to loopback hosts (127.0.0.0/8, localhost, [::1])';
		this.ctx.log(`notification for task ${delivery.taskId} to ${delivery.url} refused (not a loopback host)`);
		this.finish(delivery, false);
	}

	private enqueue(delivery: Delivery): void {
		const signal = this.abort.signal;
		const tails = this.tails;
		const previous = tails.get(delivery.url) ?? Promise.resolve();
		const tail = previous.then(() => this.deliver(delivery, signal));
		tails.set(delivery.url, tail);
		void tail.then(() => {
			if (tails.get(delivery.url) === tail) tails.delete(delivery.url);
		});
	}

	private async deliver(delivery: Delivery, signal: AbortSignal): Promise<void> {
		const attempts = Math.max(1, this.ctx.options.notifyAttempts);
		for (let attempt = 1; attempt <= attempts; attempt++) {
			if (signal.aborted) return this.cancel(delivery);
			delivery.attempts = attempt;
			if (await this.attempt(delivery, signal)) return this.finish(delivery, true);
			if (signal.aborted) return this.cancel(delivery);
			this.notifyWaiters();
			if (attempt < attempts) {
				const backoff = this.ctx.options.notifyBackoffMs * 2 ** (attempt - 1);
				if (!(await this.timers.sleep(backoff, signal))) return this.cancel(delivery);
			}
		}
		this.ctx.log(`notification for task ${delivery.taskId} to ${delivery.url} gave up after ${attempts} attempts`);
		this.finish(delivery, false);
	}

	/** One POST; true on a 2xx answer. */
	private async attempt(delivery: Delivery, signal: AbortSignal): Promise<boolean> {
		try {
			const response = await axios.post(delivery.url, delivery.body, {
				signal,
				timeout: ATTEMPT_TIMEOUT_MS,
				proxy: false, // never route through an environment proxy: loopback only
				maxRedirects: 0,
				httpAgent: this.agent,
				validateStatus: () => true,
				responseType: 'text',
				headers: { 'content-type': 'application/json', 'user-agent': 'host-simulator-notifier' },
			});
			delivery.status = response.status;
			delivery.error = undefined;
			return response.status >= 200 && response.status < 300;
		} catch (error) {
			delivery.status = undefined;
			delivery.error = describeError(error);
			return false;
		}
	}

	private cancel(delivery: Delivery): void {
		delivery.error = 'cancelled: the simulator was reset or closed';
		this.finish(delivery, false);
	}

	private finish(delivery: Delivery, delivered: boolean): void {
		delivery.delivered = delivered;
		delivery.done = true;
		delivery.finishedAt = Date.now();
		this.notifyWaiters();
	}

	private notifyWaiters(): void {
		for (const waiter of [...this.waiters]) waiter.check();
	}

	private summary(): string {
		if (this.deliveries.length === 0) return 'none';
		return this.deliveries
			.map(
				(d) =>
					`#${d.id} ${d.url} attempts=${d.attempts} status=${d.status ?? '-'} delivered=${d.delivered}${d.error ? ` (${d.error})` : ''}`,
			)
			.join('; ');
	}
}
