/**
 * Reading a Host Cloud API credential (cloud or self-hosted) and a self-hosted server's history
 * entries as job records.
 */
import { cloudServerOf } from '../../../credentials/cloud-server';
import { queuedIds, recordFromHistory } from '../../../nodes/HostCloud/helpers/job-reports/lookup';

describe('cloudServerOf', () => {
	test('a credential saved before the Server choice existed is the cloud, with its key as the header and the secret', () => {
		const server = cloudServerOf({ apiKey: 'key-1234', baseUrl: 'https://cloud.example/ ' });
		expect(server).toMatchObject({
			kind: 'cloud',
			baseUrl: 'https://cloud.example',
			wsBaseUrl: 'wss://cloud.example',
			headers: { 'X-API-Key': 'key-1234' },
			partnerKey: 'key-1234',
			problems: [],
		});
		expect(server.secrets).toEqual(['key-1234']);
	});

	test('a self-hosted server sends its proxy headers, no API key, and keeps every value secret', () => {
		const server = cloudServerOf({
			server: 'selfHosted',
			serverUrl: 'http://10.0.0.5:8188/',
			platformApiKey: ' platform-key ',
			proxyHeaders: {
				values: [
					{ name: 'Authorization', value: 'Basic dXNlcjpwYXNz' },
					{ name: ' X-Token ', value: 'token-value' },
					{ name: '', value: '' },
				],
			},
		});
		expect(server).toMatchObject({
			kind: 'selfHosted',
			baseUrl: 'http://10.0.0.5:8188',
			wsBaseUrl: 'ws://10.0.0.5:8188',
			headers: { Authorization: 'Basic dXNlcjpwYXNz', 'X-Token': 'token-value' },
			partnerKey: 'platform-key',
			problems: [],
		});
		expect(server.headers).not.toHaveProperty('X-API-Key');
		// A header's parts are secrets too, where they are long enough not to be an ordinary word ("pass" is not kept).
		expect(server.secrets).toEqual(['platform-key', 'Basic dXNlcjpwYXNz', 'dXNlcjpwYXNz', 'user:pass', 'token-value']);
	});

	test.each([
		[{ serverUrl: '' }, 'its Server URL is empty'],
		[{ serverUrl: 'ftp://host' }, 'its Server URL does not start with http:// or https://'],
		[{ serverUrl: 'http://me:pw@host:8188' }, 'its Server URL holds a user name or password'],
		[{ proxyHeaders: { values: [{ name: '', value: 'orphan' }] } }, 'Proxy header 1 has no name'],
		[{ proxyHeaders: { values: [{ name: 'Bad Name', value: 'x' }] } }, 'Proxy header 1 ("Bad Name") has a name HTTP does not allow'],
		[{ proxyHeaders: { values: [{ name: 'host', value: 'x' }] } }, 'Proxy header 1 ("host") would replace a header the node sets itself'],
		[{ proxyHeaders: { values: [{ name: 'X-A', value: 'a\r\nX-B: b' }] } }, 'Proxy header 1 ("X-A") has a line break in its value'],
	])('%j cannot be used: %s', (changes, problem) => {
		const server = cloudServerOf({ server: 'selfHosted', serverUrl: 'http://127.0.0.1:8188', ...changes });
		expect(server.problems.join('; ')).toContain(problem);
		expect(Object.keys(server.headers)).toHaveLength(0);
	});
});

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
