/**
 * Media proxy video tasks (multiframe, start-end2video, extend): created → queueing → processing →
 * success (or failed), one step every `videoStepMs`. On success a creation holds signed URLs of a
 * small MP4 (real `ftyp` box) and a PNG cover. Credits follow model, seconds and resolution.
 */
import { randomInt } from 'node:crypto';

import type { AreaContext } from '../shared/context';
import { RESULT_URL_TTL_MS } from '../shared/storage';
import type { Body } from './rules';
import { picturePng } from '../shared/png';
import { makeMp4 } from './formats';
import type { Notifier } from './notify';
import type { TimerSet } from './timers';

export type VideoKind = 'multiframe' | 'start-end2video' | 'extend';
export type VideoState = 'created' | 'queueing' | 'processing' | 'success' | 'failed';

export interface VideoCreation {
	id: string;
	url: string;
	cover_url: string;
}

export interface VideoTask {
	taskId: string;
	kind: VideoKind;
	accountId: string;
	state: VideoState;
	credits: number;
	/** Empty unless failed, as the real service sends it. */
	errCode: string;
	creations: VideoCreation[];
	callbackUrl?: string;
	/** The request's payload, passed back unchanged in notifications. */
	payload: string;
	createdAt: string;
	request: Body;
	history: Array<{ state: VideoState; at: number }>;
	/** Set by the chaos fault taskNeverFinishes: the task stays processing for good. */
	neverFinishes?: boolean;
}

const NEXT: Partial<Record<VideoState, VideoState>> = { created: 'queueing', queueing: 'processing' };
const DEFAULT_RESOLUTION = '720p';
const DEFAULT_SECONDS = 5;
/** Added by is_rec, as the spec states. */
export const RECOMMENDED_PROMPT_CREDITS = 10;
/** Error code of a task failed by failNextTask() without a message. */
export const DEFAULT_ERR_CODE = 'GenerationFailed';

// The spec shows only that credits are an integer; these rates are the simulator's own, chosen so
// that model, duration and resolution each change the price (tests and nodes must not hard-code them).
const CREDITS_PER_SECOND: Record<string, number> = {
	'videoq3-pro': 8,
	'videoq2-pro-fast': 4,
	'videoq2-pro': 6,
	'videoq2-turbo': 4,
	videoq1: 5,
	'videoq1-classic': 5,
	'video2.0': 4,
};
const RESOLUTION_FACTOR: Record<string, number> = { '360p': 0.5, '540p': 0.75, '720p': 1, '1080p': 2, '2K': 3 };

/** Video seconds the task will produce: the frames' durations for multiframe, else `duration` (default 5). */
export function videoSeconds(kind: VideoKind, body: Body): number {
	if (kind === 'multiframe') return (body.image_settings as Array<{ duration: number }>).reduce((sum, frame) => sum + frame.duration, 0);
	return typeof body.duration === 'number' ? body.duration : DEFAULT_SECONDS;
}

/** Integer credits: rate × seconds × resolution factor, halved off-peak, plus 10 for is_rec. */
export function videoCredits(kind: VideoKind, body: Body): number {
	const rate = CREDITS_PER_SECOND[String(body.model)] ?? 5;
	const factor = RESOLUTION_FACTOR[String(body.resolution ?? DEFAULT_RESOLUTION)] ?? 1;
	let credits = Math.ceil(rate * videoSeconds(kind, body) * factor);
	if (body.off_peak === true) credits = Math.ceil(credits / 2);
	if (body.is_rec === true) credits += RECOMMENDED_PROMPT_CREDITS;
	return credits;
}

/** The request fields each submit answer echoes, with the defaults the task actually uses. */
function echoes(kind: VideoKind, body: Body): Body {
	const given = (names: string[]) =>
		Object.fromEntries(names.filter((n) => body[n] !== undefined && body[n] !== null).map((n) => [n, body[n]]));
	const resolution = body.resolution ?? DEFAULT_RESOLUTION;
	const payload = body.payload ?? '';
	if (kind === 'multiframe') {
		return { image_settings: body.image_settings, model: body.model, payload, resolution, start_image: body.start_image };
	}
	if (kind === 'extend') {
		return {
			duration: body.duration ?? DEFAULT_SECONDS,
			model: body.model,
			payload,
			prompt: body.prompt ?? '',
			resolution,
			...given(['images', 'video_creation_id', 'video_url']),
		};
	}
	return {
		aspect_ratio: body.aspect_ratio ?? '16:9',
		bgm: body.bgm ?? false,
		duration: body.duration ?? DEFAULT_SECONDS,
		images: body.images,
		model: body.model,
		movement_amplitude: body.movement_amplitude ?? 'auto',
		off_peak: body.off_peak ?? false,
		payload,
		prompt: body.prompt ?? '',
		resolution,
		// "random when omitted": the answer tells the client which seed was used.
		seed: body.seed ?? randomInt(0, 2147483647),
		style: body.style ?? 'general',
		watermark: body.watermark ?? false,
	};
}

export class VideoTasks {
	readonly tasks = new Map<string, VideoTask>();
	/** Tasks stopped short of their final state (holdFinal), with the failure they will end with. */
	private readonly held = new Map<VideoTask, string | undefined>();
	private sequence = 0;
	private cover?: Buffer;

	constructor(
		private readonly ctx: AreaContext,
		private readonly timers: TimerSet,
		private readonly notifier: Notifier,
		private readonly takeFailure: () => string | undefined,
		private readonly holdFinal: () => boolean,
	) {}

	/** Creates the task and returns it with the submit answer `{task_id, state, credits, created_at, ...echoes}`. */
	submit(kind: VideoKind, accountId: string, body: Body): { task: VideoTask; answer: Body } {
		const echoed = echoes(kind, body);
		const task: VideoTask = {
			taskId: this.nextId(),
			kind,
			accountId,
			state: 'created',
			credits: videoCredits(kind, body),
			errCode: '',
			creations: [],
			callbackUrl: typeof body.callback_url === 'string' ? body.callback_url : undefined,
			payload: typeof body.payload === 'string' ? body.payload : '',
			createdAt: new Date().toISOString(),
			request: body,
			history: [{ state: 'created', at: Date.now() }],
		};
		const failure = this.takeFailure();
		if (this.ctx.faults.chaos?.roll('taskNeverFinishes')) task.neverFinishes = true;
		this.tasks.set(task.taskId, task);
		this.schedule(task, failure);
		return { task, answer: { task_id: task.taskId, state: task.state, credits: task.credits, created_at: task.createdAt, ...echoed } };
	}

	find(taskId: string, accountId: string): VideoTask | undefined {
		const task = this.tasks.get(taskId);
		return task && task.accountId === accountId ? task : undefined;
	}

	/** GET /proxy/video/tasks/{id}/creations. */
	creationsBody(task: VideoTask): Body {
		return {
			task_id: task.taskId,
			state: task.state,
			err_code: task.errCode,
			credits: task.credits,
			creations: task.creations.map((c) => ({ ...c })),
		};
	}

	/** Lets every held task reach its final state now; returns their ids. */
	releaseHeld(): string[] {
		const held = [...this.held];
		this.held.clear();
		const released: string[] = [];
		for (const [task, failure] of held) {
			if (this.tasks.get(task.taskId) !== task) continue;
			this.finish(task, failure);
			released.push(task.taskId);
		}
		return released;
	}

	reset(): void {
		this.tasks.clear();
		this.held.clear();
	}

	private nextId(): string {
		// Numeric string ids like the real video service; unique within a run.
		this.sequence = (this.sequence + 1) % 1_000_000;
		return `${Date.now()}${String(this.sequence).padStart(6, '0')}`;
	}

	private schedule(task: VideoTask, failure: string | undefined): void {
		this.timers.after(this.ctx.options.videoStepMs, () => this.advance(task, failure));
	}

	private advance(task: VideoTask, failure: string | undefined): void {
		if (this.tasks.get(task.taskId) !== task) return;
		const next = NEXT[task.state];
		if (next) {
			this.setState(task, next);
			this.schedule(task, failure);
			return;
		}
		if (task.neverFinishes) return;
		if (this.holdFinal()) {
			this.held.set(task, failure);
			return;
		}
		this.finish(task, failure);
	}

	private finish(task: VideoTask, failure: string | undefined): void {
		if (failure !== undefined) {
			task.errCode = failure || DEFAULT_ERR_CODE;
			this.setState(task, 'failed');
			return;
		}
		task.creations = [this.storeCreation(task)];
		this.setState(task, 'success');
	}

	private setState(task: VideoTask, state: VideoState): void {
		task.state = state;
		task.history.push({ state, at: Date.now() });
		if (!task.callbackUrl) return;
		this.notifier.taskChanged({
			taskId: task.taskId,
			kind: 'video',
			url: task.callbackUrl,
			body: {
				task_id: task.taskId,
				state,
				err_code: task.errCode,
				creations: task.creations.map((c) => ({ ...c })),
				payload: task.payload,
			},
			final: state === 'success' || state === 'failed',
		});
	}

	private storeCreation(task: VideoTask): VideoCreation {
		const id = this.nextId();
		const base = `proxy/video/${task.taskId}/${id}`;
		this.cover ??= picturePng(320, 180, 0, [30, 30, 30]);
		this.ctx.storage.put(`${base}.mp4`, 'video/mp4', makeMp4(id));
		this.ctx.storage.put(`${base}-cover.png`, 'image/png', this.cover);
		return {
			id,
			url: this.ctx.storage.signedUrl(`${base}.mp4`, 'GET', RESULT_URL_TTL_MS),
			cover_url: this.ctx.storage.signedUrl(`${base}-cover.png`, 'GET', RESULT_URL_TTL_MS),
		};
	}
}
