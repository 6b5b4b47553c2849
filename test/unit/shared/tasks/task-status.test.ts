import { normaliseTask, taskStateOf } from '../../../../nodes/shared/tasks/task-status';

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

	it('a video answer whose err_code is neither a code nor nothing is no answer the service gives', () => {
		for (const errCode of [42, { a: 1 }, ['x'], true])
			expect(normaliseTask({ task_id: 'v', state: 'success', err_code: errCode })).toBeUndefined();
		expect(normaliseTask({ task_id: 'v', state: 'success', err_code: null })?.status).toBe('succeeded');
		expect(normaliseTask({ task_id: 'v', state: 'failed', err_code: 'E42' })?.error).toBe('E42');
	});
});

describe('result and cover addresses', () => {
	it('are passed on only as absolute http(s) URLs written anew: markup characters escaped', () => {
		const task = normaliseTask({
			task_id: 'v1',
			state: 'success',
			creations: [{ id: 'c1', url: 'https://x/v.mp4?a="><script>1</script>', cover_url: "https://x/c.png#'<b>" }],
		})!;
		expect(task.creations).toEqual([
			{ id: 'c1', url: 'https://x/v.mp4?a=%22%3E%3Cscript%3E1%3C/script%3E', cover_url: 'https://x/c.png#%27%3Cb%3E' },
		]);
		expect(task.refused_addresses).toBeUndefined();
		const image = normaliseTask({ data: { task_id: 't1', status: 'COMPLETED', generated: ['https://x/a.png?<i>'] } })!;
		expect(image.generated).toEqual(['https://x/a.png?%3Ci%3E']);
	});

	it('another scheme or a relative address is left out and counted in refused_addresses', () => {
		const image = normaliseTask({
			data: { task_id: 't1', status: 'COMPLETED', generated: ['javascript:alert(1)', '/a.png', 'https://x/b.png'] },
		})!;
		expect(image).toMatchObject({ generated: ['https://x/b.png'], refused_addresses: 2 });
		const video = normaliseTask({
			task_id: 'v1',
			state: 'success',
			creations: [
				{ id: 'c1', url: 'https://x/v.mp4', cover_url: 'data:image/png;base64,AAAA' },
				{ id: 'c2', url: 'file:///etc/passwd' },
			],
		})!;
		expect(video).toMatchObject({ creations: [{ id: 'c1', url: 'https://x/v.mp4' }], refused_addresses: 2 });
		expect(JSON.stringify(video)).not.toMatch(/data:|file:/);
	});
});
