/**
 * The forms a secret is matched in: whatever encoding the service echoes it in, and wherever it
 * sits inside a longer text, nothing readable of it is left; text without secrets is untouched.
 */
import fc from 'fast-check';

import { containsSecret, redact, redactDeep, resumeUrlSecrets, secretForms } from '../../../../nodes/shared/transport/redaction';

const SECRETS = [
	'sk-live_0123456789abcdefXYZ',
	'tok/with+special=chars&more?',
	'ünïcödé-secret-42',
	'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b2',
];

describe.each(SECRETS)('secret %s', (secret) => {
	it.each([
		['as is', (s: string) => s],
		['URL-encoded', encodeURIComponent],
		['URL-encoded with lower-case escapes', (s: string) => encodeURIComponent(s).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase())],
		['form-encoded', (s: string) => new URLSearchParams({ s }).toString().slice(2)],
		['JSON-escaped', (s: string) => JSON.stringify(s).slice(1, -1)],
		['JSON-escaped with escaped slashes', (s: string) => JSON.stringify(s).slice(1, -1).replace(/\//g, '\\/')],
	])('%s, inside other text', (_name, encode) => {
		const text = `before ${encode(secret)} after`;
		expect(containsSecret(text, [secret])).toBe(true);
		expect(redact(text, [secret])).toBe('before *** after');
	});

	const everyByte = (s: string) => [...Buffer.from(s, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
	it.each([
		['every byte percent-encoded', (s: string) => everyByte(s).toUpperCase()],
		['every byte percent-encoded, lower case', everyByte],
		['percent-encoded twice', (s: string) => encodeURIComponent(encodeURIComponent(s))],
		['only its dashes as %2D', (s: string) => s.replace(/-/g, '%2D')],
		['every other character percent-encoded', (s: string) => [...s].map((c, i) => (i % 2 ? everyByte(c) : c)).join('')],
		[
			'JSON \\u escapes for every character',
			(s: string) => [...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
		],
	])('%s, inside other text: found and redacted by the same matcher', (_name, encode) => {
		const text = `before ${encode(secret)} after`;
		expect(containsSecret(text, [secret])).toBe(true);
		expect(redact(text, [secret])).toBe('before *** after');
	});

	it.each([0, 1, 2, 3, 4, 5])('inside Base64 (standard and URL-safe) after %i other bytes: nothing decodable is left', (offset) => {
		const plain = Buffer.concat([Buffer.from('p'.repeat(offset)), Buffer.from(secret), Buffer.from(' and more')]);
		for (const encoded of [plain.toString('base64'), plain.toString('base64url')]) {
			const redacted = redact(encoded, [secret]);
			expect(redacted).toContain('***');
			// What is left decodes to the text around the secret, never to a run of it.
			const left = redacted.split('***').map((part) => Buffer.from(part, 'base64').toString('latin1'));
			for (const part of left) expect(part.includes(secret.slice(0, 4))).toBe(false);
		}
	});

	it('is looked for longest form first', () => {
		const forms = secretForms(secret);
		expect([...forms].sort((a, b) => b.length - a.length)).toEqual(forms);
	});
});

describe('a text without `%`, `\\` or `+` (looked through with the smaller expression)', () => {
	// A trailing `%` sends the text through the whole expression without adding a match (an escape
	// needs hex digits after it), so both ways must redact and find the same.
	const pieces = fc.oneof(
		fc.constantFrom(...SECRETS.filter((secret) => !/[%\\+]/.test(secret))).chain((secret) =>
			fc.tuple(fc.nat(secret.length), fc.nat(secret.length)).map(([a, b]) => secret.slice(Math.min(a, b), Math.max(a, b) + 4)),
		),
		fc.constantFrom('İ', 'ı', 'ſ', 'K', 'ß', 'ü', 'Ü', 'ÏÖ', '-', '_', ' ', '/', '"', '=', 'x'),
		fc.string({ maxLength: 6 }),
	);
	const texts = fc
		.array(fc.tuple(pieces, fc.boolean()), { maxLength: 8 })
		.map((parts) => parts.map(([part, upper]) => (upper ? part.toUpperCase() : part)).join('').replace(/[%\\+]/g, ''));

	it('is redacted, and found, exactly as the whole expression does', () => {
		fc.assert(
			fc.property(texts, (text) => {
				expect(`${redact(text, SECRETS)}%`).toBe(redact(`${text}%`, SECRETS));
				expect(containsSecret(text, SECRETS)).toBe(containsSecret(`${text}%`, SECRETS));
			}),
			{ numRuns: 500 },
		);
	});

	it('in another letter case, inside other text', () => {
		expect(redact('before SK-LIVE_0123456789ABCDEFxyz after', SECRETS)).toBe('before *** after');
		expect(redact('before ÜNÏCÖDÉ-SECRET-42 after', SECRETS)).toBe('before *** after');
	});
});

describe('what is not a secret is left alone', () => {
	it('ordinary text, numbers, buffers and nested values', () => {
		const value = { text: 'a normal answer', n: 3, list: ['x', { deep: 'y' }], bytes: Buffer.from('raw'), when: null };
		expect(redactDeep(value, ['sk-live_0123456789abcdefXYZ'])).toEqual(value);
		expect((redactDeep(value, ['sk-live_0123456789abcdefXYZ']) as typeof value).bytes).toBe(value.bytes);
	});

	it('secrets shorter than 4 characters (an unset field) match nothing', () => {
		expect(redact('a b c abc', ['', 'a', 'abc'])).toBe('a b c abc');
	});

	it('redacts object keys as well as values', () => {
		expect(redactDeep({ 'key-sk-live_0123456789abcdefXYZ': 'sk-live_0123456789abcdefXYZ' }, ['sk-live_0123456789abcdefXYZ'])).toEqual({
			'key-***': '***',
		});
	});
});

describe('resume URL secrets', () => {
	it('are the URL and its signature', () => {
		const signature = 'f'.repeat(64);
		expect(resumeUrlSecrets(`http://n8n.local/webhook-waiting/12/node?signature=${signature}`)).toEqual([
			`http://n8n.local/webhook-waiting/12/node?signature=${signature}`,
			signature,
		]);
		expect(resumeUrlSecrets('not a url')).toEqual(['not a url']);
	});
});
