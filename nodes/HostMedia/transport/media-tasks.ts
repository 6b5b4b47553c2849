/**
 * Every kind of task the media proxy runs for the node, one row each: its type (the key: an image
 * task's status path names it, and outputs carry it as `task_type`), its words in messages, its
 * submit path and, for images, its status path and its name in Get Task Status's Task Type. The
 * transport, the task helpers and the operations all read these from here, so a new task is one
 * row. It sits in transport/ because the transport reads its paths and imports no helpers or
 * actions; it imports nothing.
 */

const IMAGING = '/proxy/imaging/v1/ai';

/** Every video task's status, whichever operation started it: read by its id alone (the real service's path; the spec shows none). */
export const VIDEO_STATUS_PATH = '/proxy/video/tasks/{task_id}/creations';

interface TaskRow {
	/** The task in words for messages: "upscale task". */
	label: string;
	/** Where it is started (POST); none where the spec shows no submit. */
	submitPath?: string;
}

interface ImageTaskRow extends TaskRow {
	kind: 'image';
	/** The task's name, the operation that starts it where one does (Get Task Status offers it by this name). */
	name: string;
	/** The option's description, where no operation starts the task ("A task started by …" otherwise). */
	description?: string;
	/** Where its status is read (GET), `{task_id}` standing for the task ID. */
	statusPath: string;
	/** Whether the spec shows the status path: a 404 there then means "no such task", not "no such path". */
	statusInSpec: boolean;
}

interface VideoTaskRow extends TaskRow {
	kind: 'video';
}

/** Image rows in the order Get Task Status names the allowed types in its error (its options are sorted by name). */
export const MEDIA_TASKS = {
	'image-upscaler': {
		kind: 'image',
		label: 'upscale task',
		name: 'Upscale',
		submitPath: `${IMAGING}/image-upscaler`,
		statusPath: `${IMAGING}/image-upscaler/{task_id}`,
		statusInSpec: true,
	},
	'image-upscaler-precision-v2': {
		kind: 'image',
		label: 'precision upscale V2 task',
		name: 'Precision Upscale V2',
		description: 'A precision upscaler V2 task',
		statusPath: `${IMAGING}/image-upscaler-precision-v2/{task_id}`,
		statusInSpec: true,
	},
	'image-style-transfer': {
		kind: 'image',
		label: 'style transfer task',
		name: 'Style Transfer',
		submitPath: `${IMAGING}/image-style-transfer`,
		statusPath: `${IMAGING}/image-style-transfer/{task_id}`,
		statusInSpec: true,
	},
	'image-relight': {
		kind: 'image',
		label: 'relight task',
		name: 'Relight',
		submitPath: `${IMAGING}/image-relight`,
		statusPath: `${IMAGING}/image-relight/{task_id}`,
		statusInSpec: false,
	},
	'skin-enhancer': {
		kind: 'image',
		label: 'skin enhancement task',
		name: 'Enhance Skin',
		// The creative (more artistic) mode, the one the spec shows.
		submitPath: `${IMAGING}/skin-enhancer/creative`,
		statusPath: `${IMAGING}/skin-enhancer/{task_id}`,
		statusInSpec: false,
	},
	multiframe: { kind: 'video', label: 'video task', submitPath: '/proxy/video/multiframe' },
	'start-end2video': { kind: 'video', label: 'video task', submitPath: '/proxy/video/start-end2video' },
	extend: { kind: 'video', label: 'video extension task', submitPath: '/proxy/video/extend' },
} as const satisfies Record<string, ImageTaskRow | VideoTaskRow>;

type Tasks = typeof MEDIA_TASKS;
export type MediaTaskType = keyof Tasks;
export type ImageTaskType = { [T in MediaTaskType]: Tasks[T] extends { kind: 'image' } ? T : never }[MediaTaskType];
/** The tasks an operation can start (the spec shows no submit for some). */
export type StartableTaskType = { [T in MediaTaskType]: Tasks[T] extends { submitPath: string } ? T : never }[MediaTaskType];

export const isImageTaskType = (type: MediaTaskType): type is ImageTaskType => MEDIA_TASKS[type].kind === 'image';

export const IMAGE_TASK_TYPES = (Object.keys(MEDIA_TASKS) as MediaTaskType[]).filter(isImageTaskType);

/** The row of an image task type. */
export const imageTask = (type: ImageTaskType): ImageTaskRow => MEDIA_TASKS[type];

/** Whether a text (an execution's saved `task_type`) names a task of the catalogue; own keys only, so "constructor" is none. */
export const isMediaTaskType = (value: string): value is MediaTaskType => Object.prototype.hasOwnProperty.call(MEDIA_TASKS, value);
