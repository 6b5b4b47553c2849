/** The shared field checks (lists, whole numbers, booleans, enums, JSON objects), as Host Registry uses them. */
import type { INode } from 'n8n-workflow';

import { booleanValue, integerInRange, jsonObject, oneOf, stringList } from '../../../../nodes/shared/items/validation';
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
