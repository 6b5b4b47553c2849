import { normaliseTask, taskStateOf } from '../../nodes/shared/task-status';

describe('task status vocabulary', () => {
	it.each([
		['CREATED', 'pending'],
		['IN_PROGRESS', 'running'],
		['COMPLETED', 'succeeded'],
		['FAILED', 'failed'],
		['created', 'pending'],
		['queueing', 'pending'],
		['processing', 'running'],
		['success', 'succeeded'],
		['failed', 'failed'],
		['Completed', 'succeeded'],
		['something-new', 'unknown'],
	])('%s → %s', (raw, state) => {
		expect(taskStateOf(raw)).toBe(state);
	});

	it('reads wrapped image bodies, with status or task_status', () => {
		expect(normaliseTask({ data: { task_id: 't1', status: 'COMPLETED', generated: ['https://x/a.png'] } })).toEqual({
			task_id: 't1',
			kind: 'image',
			status: 'succeeded',
			raw_status: 'COMPLETED',
			final: true,
			generated: ['https://x/a.png'],
			creations: [],
		});
		expect(normaliseTask({ data: { task_id: 't2', task_status: 'IN_PROGRESS', generated: [] } })).toMatchObject({
			status: 'running',
			final: false,
		});
	});

	it('reads the unwrapped style-transfer submit body', () => {
		expect(normaliseTask({ task_id: 't3', status: 'CREATED', generated: [] })).toMatchObject({ kind: 'image', status: 'pending' });
	});

	it('reads video bodies with creations and failure codes', () => {
		expect(
			normaliseTask({ task_id: 'v1', state: 'success', creations: [{ id: 'c1', url: 'https://x/v.mp4', cover_url: 'https://x/c.png' }] }),
		).toEqual({
			task_id: 'v1',
			kind: 'video',
			status: 'succeeded',
			raw_status: 'success',
			final: true,
			generated: [],
			creations: [{ id: 'c1', url: 'https://x/v.mp4', cover_url: 'https://x/c.png' }],
		});
		expect(normaliseTask({ task_id: 'v2', state: 'failed', err_code: 'GenerationFailed', creations: [] })).toMatchObject({
			status: 'failed',
			final: true,
			error: 'GenerationFailed',
		});
	});

	it('answers undefined for bodies that are not task bodies', () => {
		expect(normaliseTask(null)).toBeUndefined();
		expect(normaliseTask('COMPLETED')).toBeUndefined();
		expect(normaliseTask({ status: 'COMPLETED' })).toBeUndefined();
		expect(normaliseTask({ task_id: 'x' })).toBeUndefined();
	});
});
