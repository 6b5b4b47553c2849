/** A self-hosted server's history entries as job records, and its queue's ids. */
import { queuedIds, recordFromHistory } from '../../../../../nodes/HostCloud/helpers/job-reports/lookup';

describe('a history entry as a job record', () => {
	const outputs = { '9': { images: [{ filename: 'a.png', subfolder: '', type: 'output' }] } };

	test('success is completed with its outputs', () => {
		expect(recordFromHistory({ outputs, status: { status_str: 'success', completed: true, messages: [] } })).toEqual({
			status: 'completed',
			outputs,
		});
	});

	test('an entry without a readable status is no success: unknown, read again', () => {
		expect(recordFromHistory({ outputs })).toEqual({ status: 'unknown' });
		for (const word of ['toString', '__proto__', 'constructor', 'SUCCESS ', 1, null])
			expect(recordFromHistory({ outputs, status: { status_str: word } as never })).toEqual({ status: 'unknown' });
	});

	test('an error is failed with the execution_error the server kept; an interrupt is cancelled', () => {
		const error = { node_id: '4', node_type: 'KSampler', exception_type: 'OOMError', exception_message: 'out of memory' };
		const failed = {
			status_str: 'error',
			completed: false,
			messages: [
				['execution_start', {}],
				['execution_error', error],
			],
		};
		expect(recordFromHistory({ outputs: {}, status: failed })).toEqual({ status: 'failed', outputs: {}, execution_error: error });
		const interrupted = { status_str: 'error', completed: false, messages: [['execution_interrupted', { node_id: '4' }]] };
		expect(recordFromHistory({ outputs: {}, status: interrupted })).toMatchObject({ status: 'cancelled' });
	});

	test('queue entries give the running and pending prompt_ids, whatever else they hold', () => {
		const queue = { queue_running: [[0, 'run-1', {}, {}, []]], queue_pending: [[1, 'wait-1', {}, {}, []], 'junk', [2]] };
		expect(queuedIds(queue)).toEqual({ running: ['run-1'], pending: ['wait-1'] });
		expect(queuedIds(undefined)).toEqual({ running: [], pending: [] });
	});
});
