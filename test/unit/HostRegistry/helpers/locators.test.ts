/** Host Registry's resource locator values. */
import { locatorValue } from '../../../../nodes/HostRegistry/helpers/locators';

describe('ids and paths', () => {
	it('reads resource locator values and plain texts alike', () => {
		expect(locatorValue({ __rl: true, mode: 'list', value: ' acme ' })).toBe('acme');
		expect(locatorValue('acme')).toBe('acme');
		expect(locatorValue(undefined)).toBe('');
	});
});
