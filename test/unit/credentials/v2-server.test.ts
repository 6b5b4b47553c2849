/**
 * Reading a Host Cloud V2 API credential: the bearer header (or none), the partner key, the secrets
 * kept out of every message, and the addresses that cannot be used.
 */
import { v2ServerOf } from '../../../credentials/v2-server';

describe('v2ServerOf', () => {
	test('a key is sent as a bearer token and is the partner key when no partner key is set', () => {
		const server = v2ServerOf({ baseUrl: ' https://cloud.example/ ', apiKey: ' key-1234 ' });
		expect(server).toMatchObject({
			baseUrl: 'https://cloud.example',
			headers: { Authorization: 'Bearer key-1234' },
			partnerKey: 'key-1234',
			problems: [],
		});
		expect(server.secrets).toEqual(expect.arrayContaining(['key-1234', 'Bearer key-1234']));
	});

	test('a self-hosted proxy without a token sends no Authorization header', () => {
		const server = v2ServerOf({ baseUrl: 'http://127.0.0.1:8189', apiKey: '' });
		expect(server.headers).toEqual({});
		expect(server.partnerKey).toBe('');
		expect(server.secrets).toEqual([]);
	});

	test('a partner key of its own is kept secret beside the API key', () => {
		const server = v2ServerOf({ baseUrl: 'https://cloud.example', apiKey: 'key-1234', platformApiKey: 'partner-5678' });
		expect(server.partnerKey).toBe('partner-5678');
		expect(server.secrets).toEqual(expect.arrayContaining(['key-1234', 'partner-5678']));
	});

	test.each([
		['', /Base URL is empty/],
		['cloud.example', /is not a web address/],
		['ftp://cloud.example', /does not start with http/],
		['https://user:pass@cloud.example', /user name or password/],
		['https://cloud.example/api/v2', /ends with \/api or \/api\/v2/],
		['https://cloud.example/api/', /ends with \/api or \/api\/v2/],
	])('the address %j cannot be used, in words', (baseUrl, words) => {
		expect(v2ServerOf({ baseUrl, apiKey: 'key' }).problems.join('; ')).toMatch(words);
	});

	test('a key with a line break cannot be sent as a header', () => {
		expect(v2ServerOf({ baseUrl: 'https://cloud.example', apiKey: 'key\r\nX-Evil: 1' }).problems).toEqual([
			'its API Key has a line break in it',
		]);
	});
});
