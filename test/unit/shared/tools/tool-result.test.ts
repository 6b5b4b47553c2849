/** The compact answer of a tool: its outputs, completed and running answers, and the words that describe them to a model. */
import {
	completedForTool,
	describeToolAnswer,
	mimeTypeOfLink,
	runningForTool,
	toolOutput,
} from '../../../../nodes/shared/tools/tool-result';

describe('the compact answer', () => {
	test('an output: its link, kind, MIME type and how long the link is good for', () => {
		expect(toolOutput({ url: 'https://s/x.png', kind: 'image', mimeType: 'image/png' })).toEqual({
			kind: 'image',
			mime_type: 'image/png',
			url: 'https://s/x.png',
			url_valid_for: 'not stated by the service: the link expires, so fetch it or pass it on soon',
		});
	});

	test('MIME types come from the link’s path, never its query', () => {
		expect(mimeTypeOfLink('https://s/o/a/b.mp4?expires=1&signature=c.png', 'x/y')).toBe('video/mp4');
		expect(mimeTypeOfLink('https://s/o/a/b?name=c.png', 'application/octet-stream')).toBe('application/octet-stream');
		expect(mimeTypeOfLink('https://s/photo.JPEG', 'x/y')).toBe('image/jpeg');
	});

	test('completed and running', () => {
		expect(completedForTool({ prompt_id: 'p1' }, [])).toEqual({ status: 'completed', prompt_id: 'p1', outputs: [] });
		expect(runningForTool({ prompt_id: 'p1' }, 'Call X.', 40_000)).toEqual({
			status: 'running',
			prompt_id: 'p1',
			message: 'Still running after 40 s. It goes on running on the service (it was not cancelled). Call X.',
		});
		expect(runningForTool({ task_id: 't' }, 'Call Y.').message).toMatch(/^Started\. /);
	});

	test('the descriptions name the shapes the tools answer', () => {
		const words = describeToolAnswer(['task_id', 'task_type'], 'the status tool');
		expect(words).toContain('{"status": "completed", "task_id", "task_type", "outputs": [{"kind", "mime_type", "url", "url_valid_for"}]}');
		expect(words).toContain('{"status": "running", "task_id", "task_type", "message"}');
		expect(words).toContain('the status tool with the same task_id and task_type collects it');
	});
});
