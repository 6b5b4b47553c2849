/**
 * Reading a Host Cloud API credential (cloud or self-hosted), and its WebSocket address.
 */
import { cloudServerOf, socketBaseUrl } from '../../../credentials/cloud-server';

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

describe('socketBaseUrl', () => {
	test('the WebSocket address comes from the credential or the base URL', () => {
		expect(socketBaseUrl('https://cloud.example/', '')).toBe('wss://cloud.example');
		expect(socketBaseUrl('http://127.0.0.1:8188')).toBe('ws://127.0.0.1:8188');
		expect(socketBaseUrl('https://cloud.example', 'wss://socket.example/ws/')).toBe('wss://socket.example');
		expect(socketBaseUrl('HTTPS://cloud.example/base')).toBe('wss://cloud.example/base');
	});
});
