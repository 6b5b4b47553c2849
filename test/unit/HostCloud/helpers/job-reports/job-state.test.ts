/** The job status words of the cloud and the state each means. */
import { cloudJobStateOf } from '../../../../../nodes/HostCloud/helpers/job-reports/job-state';

describe('job status words', () => {
	test.each([
		['completed', 'completed'],
		['SUCCESS', 'completed'],
		[' Success ', 'completed'],
		['failed', 'failed'],
		['Error', 'failed'],
		['lost', 'failed'],
		['cancelled', 'cancelled'],
		['CANCELED', 'cancelled'],
		['interrupted', 'cancelled'],
		['pending', 'running'],
		['in_progress', 'running'],
		['queued', 'running'],
		['something new', 'running'],
		[undefined, 'running'],
	])('%s → %s', (word, state) => {
		expect(cloudJobStateOf(word)).toBe(state);
	});
});
