/** The shared field checks: lists, whole numbers, booleans, enums and JSON objects (as Host Registry uses them), texts counted in code points, URLs and JSON text (as Host Media uses them). */
import type { INode } from 'n8n-workflow';

import {
	booleanValue,
	charCount,
	httpUrl,
	integerInRange,
	jsonObject,
	jsonText,
	maxCharacters,
	oneOf,
	stringList,
} from '../../../../nodes/shared/items/validation';
import { failure } from '../../../support/thrown';

const context = { getNode: () => ({ name: 'Host Registry' }) as INode };

describe('shared field checks', () => {
	it('reads lists from the list box, from arrays and from comma or line separated text', () => {
		expect(stringList(context, 0, 'Tags', ['a', ' b ', ''])).toEqual(['a', 'b']);
		expect(stringList(context, 0, 'Tags', 'a, b,\nc')).toEqual(['a', 'b', 'c']);
		expect(stringList(context, 0, 'Tags', undefined)).toEqual([]);
		expect(failure(() => stringList(context, 0, 'Tags', 42)).message).toBe('Tags must be a list of texts (got "42")');
	});

	it('checks whole numbers, booleans, enums and JSON objects', () => {
		expect(integerInRange(context, 0, 'Page Size', '25', 1, 100)).toBe(25);
		expect(failure(() => integerInRange(context, 0, 'Page Size', 0, 1, 100)).message).toBe(
			'Page Size must be a whole number from 1 to 100 (got "0")',
		);
		expect(booleanValue(context, 0, 'Deprecated', 'TRUE')).toBe(true);
		expect(failure(() => booleanValue(context, 0, 'Deprecated', 'yes')).message).toBe('Deprecated must be true or false (got "yes")');
		expect(oneOf(context, 0, 'Status', 'b', ['a', 'b'])).toBe('b');
		expect(failure(() => oneOf(context, 0, 'Status', 'c', ['a', 'b'])).message).toBe('Status must be one of a, b (got "c")');
		expect(jsonObject(context, 0, 'Translations', '{"de":{}}')).toEqual({ de: {} });
		expect(failure(() => jsonObject(context, 0, 'Translations', '[1]')).message).toBe('Translations must be a JSON object (got "[1]")');
	});
});

describe('text checks', () => {
	const context = { getNode: () => ({ name: 'Host Media' }) as never };

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
