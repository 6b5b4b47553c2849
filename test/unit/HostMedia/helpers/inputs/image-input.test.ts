/** Pure parts of Host Media's input handling: Base64 clean-up. */
import { cleanBase64 } from '../../../../../nodes/HostMedia/helpers/inputs/image-input';

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
