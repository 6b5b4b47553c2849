/**
 * The media proxy endpoints at {registry_url}/proxy/... — image tasks (relight, upscaler,
 * precision upscaler V2, style transfer, skin enhancer), video tasks (multiframe, start-end2video,
 * extend), their notifications, and the streamed text-to-music endpoint.
 *
 * Auth: every proxy endpoint takes `Authorization: Bearer <ACCESS_TOKEN>`. The spec shows it for the
 * image and music endpoints and leaves the video endpoints "not shown"; they are part of the same
 * proxy, so the simulator requires the same header there too (401 without it).
 *
 * Folder rule: media/ owns the media proxy (area C) and imports only shared/. server.ts wires it
 * up. test/simulator/shared/import-rules.test.ts checks the rule.
 */
import type { ServerResponse } from 'node:http';

import type { AreaContext } from '../shared/context';
import { type Account, type SimRequest, bearerToken, parseMultipart, readJson, sendError, sendJson } from '../shared/core';
import { IMAGE_KINDS, ImageTasks, type ImageKind, type ImageSeed, type ImageTask, type StatusField } from './images';
import { type MusicOptions, MusicStreamer, defaultMusicOptions } from './music';
import { type Delivery, type DeliveryPredicate, Notifier } from './notify';
import { TimerSet } from './timers';
import { type Body, type BodyValidator, isInvalid, isPlainObject } from './rules';
import {
	validateExtend,
	validateMultiframe,
	validateMusic,
	validateRelight,
	validateSkinEnhancer,
	validateStartEnd,
	validateStyleTransfer,
	validateUpscaler,
} from './validation';
import { type VideoKind, type VideoTask, VideoTasks } from './video';

export type { Delivery } from './notify';
export type { ImageKind, ImageSeed, ImageStatus, ImageTask, StatusField } from './images';
export type { MusicOptions } from './music';
export type { VideoState, VideoTask } from './video';

export interface ProxyArea {
	/** Field name of the status in image status answers and notifications; the real service sometimes says `task_status`. */
	statusField: StatusField;
	/** Shape of the music stream (streams, sizes, pacing); edit per test or benchmark, reset() restores the defaults. */
	readonly music: MusicOptions;
	/** Music streams started / completed / cut short since the last reset, and audio bytes written to sockets. */
	readonly musicStats: Readonly<{ started: number; completed: number; aborted: number; audioBytesSent: number }>;
	/** Image tasks by task_id (live objects). */
	readonly imageTasks: ReadonlyMap<string, ImageTask>;
	/** Video tasks by task_id (live objects). */
	readonly videoTasks: ReadonlyMap<string, VideoTask>;
	/** Every notification queued since the last reset, in queue order. */
	readonly deliveries: readonly Delivery[];
	/** Creates an image task without a submit (the only way to get precision-v2 tasks); it then advances as usual. */
	seedImageTask(kind: ImageKind, seed?: ImageSeed): ImageTask;
	/** The next submitted task (image or video) ends FAILED / failed; for video, `message` becomes err_code. Calls queue up. */
	failNextTask(message?: string): void;
	/**
	 * While true, tasks stop one step short of their final status (images IN_PROGRESS, videos
	 * processing) until releaseHeldTasks(): for a test that needs tasks to finish at a moment it
	 * chooses (a task that takes longer, as real ones do). reset() sets it back to false.
	 */
	holdFinalStatus: boolean;
	/** Lets every held task reach its final status now (each change notified as usual); returns their ids. */
	releaseHeldTasks(): string[];
	/** Resolves when `predicate(deliveries)` holds; rejects after `timeoutMs` (default 5000) with what was delivered. */
	waitForDeliveries(predicate: DeliveryPredicate, timeoutMs?: number): Promise<readonly Delivery[]>;
	/** Forgets tasks and deliveries, cancels timers, in-flight deliveries and music streams, restores the switches. */
	reset(): void;
	close(): Promise<void>;
}

const IMAGING = '/proxy/imaging/v1/ai';

type Shape = 'image' | 'video';
type AuthedHandler = (req: SimRequest, res: ServerResponse, account: Account) => void | Promise<void>;

export function createProxyArea(ctx: AreaContext): ProxyArea {
	const timers = new TimerSet((error) => ctx.log(`proxy timer error: ${(error as Error).stack ?? String(error)}`));
	const notifier = new Notifier(ctx, timers);
	const failures: string[] = [];
	const takeFailure = () => failures.shift();
	let statusField: StatusField = 'status';
	let holdFinalStatus = false;
	const holdFinal = () => holdFinalStatus;
	const images = new ImageTasks(ctx, timers, notifier, { statusField: () => statusField, takeFailure, holdFinal });
	const videos = new VideoTasks(ctx, timers, notifier, takeFailure, holdFinal);
	const music = defaultMusicOptions();
	const streamer = new MusicStreamer(ctx.faults, music, timers);

	const authed =
		(shape: Shape, handler: AuthedHandler) =>
		(req: SimRequest, res: ServerResponse): void | Promise<void> => {
			const account = ctx.accountByToken(bearerToken(req));
			if (!account) {
				return sendError(
					res,
					401,
					shape,
					'unauthorized',
					'Missing or invalid access token: send the header Authorization: Bearer <ACCESS_TOKEN>.',
				);
			}
			return handler(req, res, account);
		};

	/** The JSON body as an object, or undefined after answering 400. */
	const readBody = (req: SimRequest, res: ServerResponse, shape: Shape): Body | undefined => {
		const body = readJson(req, res, shape);
		if (body === undefined) return undefined;
		if (isPlainObject(body)) return body;
		sendError(res, 400, shape, 'invalid_body', 'The request body must be a JSON object.');
		return undefined;
	};

	const submitImage = (kind: ImageKind, validate: BodyValidator, unwrapped = false) =>
		authed('image', (req, res, account) => {
			const body = readBody(req, res, 'image');
			if (!body) return;
			const problem = validate(body);
			if (problem) return sendError(res, 400, 'image', 'invalid_field', problem.message);
			sendJson(res, 200, images.submitBody(images.submit(kind, account.id, body), unwrapped));
		});

	/** Status reads held by the chaos fault taskStatusTimeout; reset() and close() drop them. */
	const held = new Set<ServerResponse>();

	/**
	 * The chaos faults of a status read, when one strikes (then it has answered, or holds the read):
	 * a 503, a 429, or no answer until the client gives up or `hangMs` passes, then a dropped connection.
	 */
	const statusFault = (res: ServerResponse, shape: Shape): boolean => {
		const chaos = ctx.faults.chaos;
		if (!chaos) return false;
		if (chaos.roll('taskStatus5xx')) {
			sendError(res, 503, shape, 'service_unavailable', 'Service temporarily unavailable (injected fault).');
			return true;
		}
		if (chaos.roll('taskStatus429')) {
			sendError(res, 429, shape, 'too_many_requests', 'Too many requests (injected fault).');
			return true;
		}
		if (!chaos.roll('taskStatusTimeout')) return false;
		held.add(res);
		const cancel = timers.after(chaos.hangMs, () => res.destroy());
		res.once('close', () => {
			cancel();
			held.delete(res);
		});
		return true;
	};

	const dropHeld = (): void => {
		for (const res of held) res.destroy();
		held.clear();
	};

	const imageStatus = (kind: ImageKind) =>
		authed('image', (req, res, account) => {
			if (statusFault(res, 'image')) return;
			const task = images.find(kind, req.params.id, account.id);
			if (!task) return sendError(res, 404, 'image', 'not_found', `No ${kind} task with id ${req.params.id}.`);
			sendJson(res, 200, images.statusBody(task));
		});

	// Video 400s carry the offending field's path in `details`; other video errors carry a code there.
	const submitVideo = (kind: VideoKind, validate: BodyValidator) =>
		authed('video', (req, res, account) => {
			const body = readBody(req, res, 'video');
			if (!body) return;
			const problem = validate(body);
			if (problem) return sendError(res, 400, 'video', 'invalid_field', problem.message, problem.field);
			sendJson(res, 200, videos.submit(kind, account.id, body).answer);
		});

	const videoCreations = authed('video', (req, res, account) => {
		if (statusFault(res, 'video')) return;
		const task = videos.find(req.params.id, account.id);
		if (!task) return sendError(res, 404, 'video', 'not_found', `No video task with id ${req.params.id}.`);
		sendJson(res, 200, videos.creationsBody(task));
	});

	const generateMusic = authed('image', async (req, res) => {
		const parts = parseMultipart(req);
		if (!parts) {
			return sendError(res, 400, 'image', 'invalid_body', 'Send multipart/form-data with a prompt field (and an optional duration).');
		}
		const request = validateMusic(parts);
		if (isInvalid(request)) return sendError(res, 400, 'image', 'invalid_field', request.message);
		await streamer.stream(res, request);
	});

	const router = ctx.registryRouter;
	router.add('POST', `${IMAGING}/image-relight`, submitImage('image-relight', validateRelight));
	router.add('POST', `${IMAGING}/image-upscaler`, submitImage('image-upscaler', validateUpscaler));
	router.add('POST', `${IMAGING}/image-style-transfer`, submitImage('image-style-transfer', validateStyleTransfer, true));
	router.add('POST', `${IMAGING}/skin-enhancer/creative`, submitImage('skin-enhancer', validateSkinEnhancer));
	for (const kind of IMAGE_KINDS) router.add('GET', `${IMAGING}/${kind}/:id`, imageStatus(kind));
	router.add('POST', '/proxy/video/multiframe', submitVideo('multiframe', validateMultiframe));
	router.add('POST', '/proxy/video/start-end2video', submitVideo('start-end2video', validateStartEnd));
	router.add('POST', '/proxy/video/extend', submitVideo('extend', validateExtend));
	router.add('GET', '/proxy/video/tasks/:id/creations', videoCreations);
	router.add('POST', '/proxy/music/t2m/generate', generateMusic);

	const reset = (): void => {
		timers.clear();
		dropHeld();
		notifier.reset();
		streamer.reset(defaultMusicOptions());
		images.reset();
		videos.reset();
		failures.length = 0;
		statusField = 'status';
		holdFinalStatus = false;
	};

	return {
		get statusField() {
			return statusField;
		},
		set statusField(value: StatusField) {
			statusField = value;
		},
		music,
		musicStats: streamer.stats,
		imageTasks: images.tasks,
		videoTasks: videos.tasks,
		deliveries: notifier.deliveries,
		seedImageTask: (kind, seed) => images.seed(kind, seed),
		failNextTask: (message) => void failures.push(message ?? ''),
		get holdFinalStatus() {
			return holdFinalStatus;
		},
		set holdFinalStatus(value: boolean) {
			holdFinalStatus = value;
		},
		releaseHeldTasks: () => [...images.releaseHeld(), ...videos.releaseHeld()],
		waitForDeliveries: (predicate, timeoutMs = 5000) => notifier.waitFor(predicate, timeoutMs),
		reset,
		async close() {
			timers.clear();
			dropHeld();
			notifier.close();
			streamer.stopAll();
		},
	};
}
