/**
 * A v2 job answer is checked before it is believed (`v2-jobs/job-record.ts`): about the job asked
 * for, its status one of the contract's, its outputs Output objects; a failed job's error in words.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { checkedJob, endedJobError, jobAnswerProblem, jobPhase } from '../../../../../nodes/HostCloud/helpers/v2-jobs/job-record';

const ID = '7f3d2c1b-9a8e-4d6f-b012-3c4d5e6f7a8b';
const output = {
	node_id: '9',
	name: 'a.png',
	type: 'image',
	content_type: 'image/png',
	size_bytes: 3,
	id: 'asset-1',
	hash: null,
	url: 'https://x/a',
	url_expires_at: '2026-01-01T00:00:00Z',
};
const job = (more: Record<string, unknown> = {}) => ({
	id: ID,
	status: 'succeeded',
	outputs: [output],
	error: null,
	progress: null,
	queue_position: null,
	...more,
});
const context = { getNode: () => ({ name: 'Host Cloud', type: 'hostCloud', typeVersion: 3 }) } as unknown as IExecuteFunctions;

test.each([
	['not an object', [job()], 'it is not a job'],
	['no id', job({ id: undefined }), 'it names no job id'],
	['another job', job({ id: 'other-job' }), 'it is about another job (other-job)'],
	['an unknown status', job({ status: 'done' }), 'its status "done" is not one a job can have'],
	['outputs not a list', job({ outputs: {} }), 'its outputs are not a list'],
	['an output without url', job({ outputs: [{ ...output, url: undefined }] }), 'an output has no url'],
	['an output with a negative size', job({ outputs: [{ ...output, size_bytes: -1 }] }), 'an output has no size_bytes'],
	['an error of another kind', job({ error: 'boom' }), 'its error is not an object'],
])('an answer with %s is refused', (_case, answer, problem) => {
	expect(jobAnswerProblem(answer, ID)).toBe(problem);
	expect(() => checkedJob(context, answer, ID, 0)).toThrow(`The v2 API's answer about job ${ID} cannot be used: ${problem}`);
});

test('a job answer about the job asked for is taken', () => {
	expect(checkedJob(context, job(), ID, 0)).toMatchObject({ id: ID, status: 'succeeded', outputs: [output] });
});

test('statuses: queued, running and canceling still run; succeeded is done; the others ended', () => {
	expect(['queued', 'running', 'canceling', 'succeeded', 'failed', 'canceled', 'expired'].map((s) => jobPhase(s as never))).toEqual([
		'running',
		'running',
		'running',
		'succeeded',
		'ended',
		'ended',
		'ended',
	]);
});

test("a failed job's error names its node, class, code and message, and its context names the job", () => {
	const failed = checkedJob(
		context,
		job({
			status: 'failed',
			outputs: [],
			error: { code: 'node_execution_error', message: 'CUDA out of memory', node_id: '3', class_type: 'KSampler' },
		}),
		ID,
		0,
	);
	const error = endedJobError(context, failed, 0);
	expect(error.message).toBe(`Job ${ID} failed at node 3 (KSampler): node_execution_error: CUDA out of memory`);
	expect(error.context).toMatchObject({
		job_id: ID,
		prompt_id: ID,
		error_code: 'node_execution_error',
		node_id: '3',
		class_type: 'KSampler',
	});
});
