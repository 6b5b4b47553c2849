/** Pure parts of Host Media's input handling: Base64 clean-up and code-point counting. */
import { cleanBase64 } from '../../../../../nodes/HostMedia/helpers/inputs/image-input';
import { charCount, httpUrl, jsonText, maxCharacters } from '../../../../../nodes/shared/items/validation';

const context = { getNode: () => ({ name: 'Host Media' }) as never };

describe('cleanBase64', () => {
	it('removes a data: URL prefix and whitespace', () => {
		expect(cleanBase64('data:image/png;base64,iVBO\nRw0K GgoA')).toBe('iVBORw0KGgoA');
		expect(cleanBase64('aGVsbG8=')).toBe('aGVsbG8=');
		expect(cleanBase64('aGVsbG8_LQ')).toBe('aGVsbG8_LQ');
	});

	it.each(['', 'abc', 'not base64!', 'aGVsb', 'aGV=sbG8', 'aGVsbG8=x'])('refuses %p', (value) => {
		expect(cleanBase64(value)).toBeUndefined();
	});
});

describe('text checks', () => {
	it('counts characters as code points', () => {
		expect(charCount('abc')).toBe(3);
		expect(charCount('\u{1F3B5}\u{1F3B5}')).toBe(2);
		expect(charCount('a\ud800b')).toBe(3);
	});

	it('maxCharacters names the field and the count', () => {
		expect(maxCharacters(context, 0, 'Prompt (prompt)', '\u{1F3B5}'.repeat(3), 3)).toHaveLength(6);
		expect(() => maxCharacters(context, 0, 'Prompt (prompt)', 'abcd', 3)).toThrow(
			'Prompt (prompt) must be at most 3 characters (it has 4)',
		);
	});

	it('httpUrl takes http(s) only, https only when asked', () => {
		expect(httpUrl(context, 0, 'URL', ' https://a.example/x ')).toBe('https://a.example/x');
		expect(httpUrl(context, 0, 'URL', 'http://a.example/x')).toBe('http://a.example/x');
		expect(() => httpUrl(context, 0, 'URL', 'http://a.example/x', true)).toThrow(
			'URL must be a full https:// URL (got "http://a.example/x")',
		);
		expect(() => httpUrl(context, 0, 'URL', 'ftp://a.example/x')).toThrow(/URL must be a full http:\/\/ or https:\/\/ URL/);
		expect(() => httpUrl(context, 0, 'URL', 42)).toThrow(/got "42"/);
	});

	it('jsonText keeps valid JSON text and refuses the rest', () => {
		expect(jsonText(context, 0, 'Metadata', '{"a":1}')).toBe('{"a":1}');
		expect(jsonText(context, 0, 'Metadata', { a: 1 })).toBe('{"a":1}');
		expect(() => jsonText(context, 0, 'Metadata', '{a:1')).toThrow('Metadata must be JSON text');
	});
});
