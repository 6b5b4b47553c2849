/**
 * Media proxy image tasks (relight, upscaler, precision upscaler V2, style transfer, skin enhancer):
 * CREATED → IN_PROGRESS → COMPLETED (or FAILED), one step every `imageStepMs`. Completed tasks
 * carry signed storage URLs of real PNGs. Task ids are per kind, as on the real service: a status
 * path of another kind does not know the id.
 */
import { randomUUID } from 'node:crypto';

import type { AreaContext } from '../shared/context';
import { picturePng } from '../shared/png';
import { RESULT_URL_TTL_MS } from '../shared/storage';
import type { Body } from './rules';
import type { Notifier } from './notify';
import type { TimerSet } from './timers';

export const IMAGE_KINDS = [
	'image-relight',
	'image-upscaler',
	'image-upscaler-precision-v2',
	'image-style-transfer',
	'skin-enhancer',
] as const;
export type ImageKind = (typeof IMAGE_KINDS)[number];
export type ImageStatus = 'CREATED' | 'IN_PROGRESS' | 'COMPLETED' | 'FAILED';
export type StatusField = 'status' | 'task_status';

export interface ImageTask {
	taskId: string;
	kind: ImageKind;
	accountId: string;
	status: ImageStatus;
	/** Signed URLs of the results; empty until COMPLETED. */
	generated: string[];
	webhookUrl?: string;
	/** The submitted body (empty for seeded tasks). */
	request: Body;
	/** Set when the task is going to fail (failNextTask); never sent to clients, the spec has no field for it. */
	failMessage?: string;
	/** Set by the chaos fault taskNeverFinishes: the task stays IN_PROGRESS for good. */
	neverFinishes?: boolean;
	createdAt: number;
	history: Array<{ status: ImageStatus; at: number }>;
}

export interface ImageSeed {
	/** Start here (default CREATED); a final status is reached at once, without steps. */
	status?: ImageStatus;
	/** Owner account (default: the main account). */
	accountId?: string;
	webhookUrl?: string;
	/** Make the task end FAILED. */
	failMessage?: string;
	taskId?: string;
}

export interface ImageHooks {
	statusField(): StatusField;
	/** The failure queued by failNextTask, consumed. */
	takeFailure(): string | undefined;
	/** Whether a task about to reach its final status stops short of it (until releaseHeld). */
	holdFinal(): boolean;
}

const NEXT: Partial<Record<ImageStatus, ImageStatus>> = { CREATED: 'IN_PROGRESS' };
const TINTS: Record<ImageKind, [number, number, number]> = {
	'image-relight': [220, 160, 40],
	'image-upscaler': [40, 120, 200],
	'image-upscaler-precision-v2': [20, 90, 160],
	'image-style-transfer': [180, 40, 160],
	'skin-enhancer': [230, 180, 150],
};

export class ImageTasks {
	readonly tasks = new Map<string, ImageTask>();
	/** Tasks stopped short of their final status (holdFinal). */
	private readonly held = new Set<ImageTask>();
	private readonly pngs = new Map<ImageKind, Buffer>();

	constructor(
		private readonly ctx: AreaContext,
		private readonly timers: TimerSet,
		private readonly notifier: Notifier,
		private readonly hooks: ImageHooks,
	) {}

	submit(kind: ImageKind, accountId: string, body: Body): ImageTask {
		const webhookUrl = typeof body.webhook_url === 'string' ? body.webhook_url : undefined;
		const task = this.add(kind, { accountId, webhookUrl, failMessage: this.hooks.takeFailure() }, body);
		if (this.ctx.faults.chaos?.roll('taskNeverFinishes')) task.neverFinishes = true;
		this.schedule(task);
		return task;
	}

	seed(kind: ImageKind, seed: ImageSeed = {}): ImageTask {
		const task = this.add(kind, { accountId: this.ctx.accounts[0].id, ...seed }, {});
		const status = seed.status ?? 'CREATED';
		if (status === 'COMPLETED' || status === 'FAILED') this.finish(task, status, false);
		else {
			if (status !== 'CREATED') this.setStatus(task, status, false);
			this.schedule(task);
		}
		return task;
	}

	/** The task of this kind owned by this account, or undefined (both answer 404 alike). */
	find(kind: ImageKind, taskId: string, accountId: string): ImageTask | undefined {
		const task = this.tasks.get(taskId);
		return task && task.kind === kind && task.accountId === accountId ? task : undefined;
	}

	/** `{data: {generated, status, task_id}}`, or with `task_status` when that switch is set. */
	statusBody(task: ImageTask): { data: Record<string, unknown> } {
		return { data: { generated: [...task.generated], [this.hooks.statusField()]: task.status, task_id: task.taskId } };
	}

	/** Submit answers use `status` as the spec shows; style transfer answers them unwrapped. */
	submitBody(task: ImageTask, unwrapped: boolean): Record<string, unknown> {
		const fields = { generated: [...task.generated], status: task.status, task_id: task.taskId };
		return unwrapped ? fields : { data: fields };
	}

	/** Lets every held task reach its final status now; returns their ids. */
	releaseHeld(): string[] {
		const held = [...this.held].filter((task) => this.tasks.get(task.taskId) === task);
		this.held.clear();
		for (const task of held) this.complete(task);
		return held.map((task) => task.taskId);
	}

	reset(): void {
		this.tasks.clear();
		this.held.clear();
	}

	private add(kind: ImageKind, seed: ImageSeed & { accountId: string }, request: Body): ImageTask {
		const now = Date.now();
		const task: ImageTask = {
			taskId: seed.taskId ?? randomUUID(),
			kind,
			accountId: seed.accountId,
			status: 'CREATED',
			generated: [],
			webhookUrl: seed.webhookUrl,
			request,
			failMessage: seed.failMessage,
			createdAt: now,
			history: [{ status: 'CREATED', at: now }],
		};
		this.tasks.set(task.taskId, task);
		return task;
	}

	private schedule(task: ImageTask): void {
		this.timers.after(this.ctx.options.imageStepMs, () => this.advance(task));
	}

	private advance(task: ImageTask): void {
		// A reset forgets the task; a timer that slipped through must not revive it.
		if (this.tasks.get(task.taskId) !== task) return;
		const next = NEXT[task.status];
		if (next) {
			this.setStatus(task, next, true);
			this.schedule(task);
			return;
		}
		if (task.neverFinishes) return;
		if (this.hooks.holdFinal()) this.held.add(task);
		else this.complete(task);
	}

	private complete(task: ImageTask): void {
		this.finish(task, task.failMessage === undefined ? 'COMPLETED' : 'FAILED', true);
	}

	private finish(task: ImageTask, status: 'COMPLETED' | 'FAILED', notify: boolean): void {
		if (status === 'COMPLETED') task.generated = [this.storeResult(task)];
		this.setStatus(task, status, notify);
	}

	private setStatus(task: ImageTask, status: ImageStatus, notify: boolean): void {
		task.status = status;
		task.history.push({ status, at: Date.now() });
		if (!notify || !task.webhookUrl) return;
		this.notifier.taskChanged({
			taskId: task.taskId,
			kind: 'image',
			url: task.webhookUrl,
			body: { data: { task_id: task.taskId, [this.hooks.statusField()]: status, generated: [...task.generated] } },
			final: status === 'COMPLETED' || status === 'FAILED',
		});
	}

	private storeResult(task: ImageTask): string {
		let png = this.pngs.get(task.kind);
		if (!png) {
			png = picturePng(512, 512, 0, TINTS[task.kind]);
			this.pngs.set(task.kind, png);
		}
		const key = `proxy/imaging/${task.kind}/${task.taskId}/result-0.png`;
		this.ctx.storage.put(key, 'image/png', png);
		return this.ctx.storage.signedUrl(key, 'GET', RESULT_URL_TTL_MS);
	}
}
