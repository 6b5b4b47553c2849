/** A job's execution error in plain words. */
import { describeExecutionError } from '../../../../../nodes/HostCloud/helpers/job-reports/execution-errors';

describe('messages', () => {
	test('execution errors in plain words, unknown types passed on', () => {
		expect(
			describeExecutionError('p-1', {
				exception_type: 'OOMError',
				exception_message: 'CUDA out of memory',
				node_id: '3',
				node_type: 'KSampler',
			}),
		).toEqual({
			message: 'Job p-1 failed at node 3 (KSampler): the cloud ran out of GPU memory (OOMError: CUDA out of memory)',
			description: expect.stringMatching(/smaller image size/),
		});
		expect(describeExecutionError('p-2', { exception_type: 'RuntimeError', exception_message: 'boom' }).message).toBe(
			'Job p-2 failed: RuntimeError: boom',
		);
	});
});
